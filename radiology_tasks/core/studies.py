"""Report pairs folded into studies: the unit a generator writes one report for.

Meta-evaluation data holds several candidates per reference (RadEval's expert set three, ReXVal four, the demo
two or three), one report pair each. A generator asked once per pair would write several reports for one study,
weigh that study several times, and, when it samples, be judged on different reports for it. So when the model
under test writes the candidates (`report_generation`, `-T generate=true`) or they come from a generation log,
the pairs of one study become one sample.

Pairs are one study when they share everything the generator is given and everything the judge holds its report
against: the reference text, the section asked for, the study's modality, anatomy, language, the patient's age
and sex, the indication, the comparison, findings text, images with their views and key image, the prior study,
the questions about the reference (`qa`), and the data's own fields naming the study or its images when it has
them (`STUDY_FIELDS`: ReXVal's `study_id`, RadEval's `images_path`, ReXrank's `image_path`), so two studies with
the same reference text stay two where the data can tell them apart. The study's sample id is the id of its
first pair in data order, and its metadata lists every pair's id under `study_pairs`. The candidates and their
expert annotations are dropped (they are about reports the generator did not write); so is any other field the
pairs do not all share, named in the summary.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from radiology_tasks.core.records import ReportPair

STUDY_PAIRS = "study_pairs"
"""Key of a study's `ReportPair.metadata` listing the ids of the pairs folded into it, in data order."""

STUDIES = "studies"
"""Key of a task's data summary (``metadata["data"]``) recording the folding (see `Studies.summary`)."""

STUDY_FIELDS = ("study_id", "images_path", "image_path")
"""Metadata fields naming a study or its images where the data has them (ReXVal, RadEval's expert set, ReXrank):
pairs that differ in one are different studies."""

GENERATION_FIELDS = {"section", "age", "sex", "comparison", "views", "key_image", "prior"}
"""The typed generation inputs beyond the first release's (`ReportPair`), compared whole."""

RULE = (
    "one sample per study: pairs sharing the reference, the generation inputs (section, modality, anatomy, "
    "language, age, sex, indication, comparison, findings, images, views, key image, prior study), the questions "
    f"(qa) and {', '.join(STUDY_FIELDS)} where given; "
    "sample id = first pair's id"
)
"""The folding rule in one line, as the log records it."""


def study_key(pair: ReportPair) -> str:
    """What makes `pair` the pair of one study rather than another (equal keys: the same study)."""
    return json.dumps(
        {
            "reference": pair.reference,
            "modality": pair.modality,
            "anatomy": pair.anatomy,
            "language": pair.language,
            "indication": pair.indication,
            "findings": pair.metadata.get("findings"),
            "images": pair.images,
            **pair.model_dump(mode="json", include=GENERATION_FIELDS),
            "qa": [qa.model_dump(mode="json") for qa in pair.qa],
            **{name: pair.metadata.get(name) for name in STUDY_FIELDS},
        },
        sort_keys=True,
        default=str,
    )


@dataclass(frozen=True)
class Studies:
    """The studies of a list of pairs: one pair per study (no candidate, no expert annotation), in data order."""

    pairs: list[ReportPair]
    folded_pairs: int
    differing_fields: list[str]

    def summary(self) -> dict[str, Any]:
        """What a task records under ``metadata["data"]["studies"]`` (JSON-able)."""
        return {
            "pairs": self.folded_pairs,
            "studies": len(self.pairs),
            "rule": RULE,
            "fields_not_shared": self.differing_fields,
        }


def fold_studies(pairs: list[ReportPair]) -> Studies:
    """One pair per study, in the order of each study's first pair.

    Each study keeps its first pair's id, reference and generation inputs, the metadata fields all its pairs
    share (with `study_pairs` added), and no candidate or expert annotation.
    """
    groups: dict[str, list[ReportPair]] = {}
    for pair in pairs:
        groups.setdefault(study_key(pair), []).append(pair)
    differing: set[str] = set()
    studies = []
    for group in groups.values():
        shared = _shared_metadata([p.metadata for p in group])
        differing |= {key for p in group for key in p.metadata if key not in shared}
        first = group[0]
        studies.append(
            first.model_copy(
                update={
                    "candidate": None,
                    "expert": None,
                    "metadata": {**shared, STUDY_PAIRS: [p.id for p in group]},
                }
            )
        )
    return Studies(studies, len(pairs), sorted(differing))


def rows_behind(pair: ReportPair) -> int:
    """How many of the data's rows a pair stands for: the pairs folded into it for a study, else one."""
    folded = pair.metadata.get(STUDY_PAIRS)
    return len(folded) if isinstance(folded, list) else 1


def _shared_metadata(metadata: list[Mapping[str, Any]]) -> dict[str, Any]:
    first, *others = metadata
    return {key: value for key, value in first.items() if all(key in m and m[key] == value for m in others)}


def recorded_studies(data_summary: Mapping[str, Any]) -> bool:
    """Whether a run's data summary says its samples are studies (logs made before folding record no such entry)."""
    return isinstance(data_summary.get(STUDIES), Mapping)


def as_run_used(pairs: list[ReportPair], data_summary: Mapping[str, Any]) -> list[ReportPair]:
    """The data's pairs as a run with this data summary used them: folded into studies when it records so."""
    return fold_studies(pairs).pairs if recorded_studies(data_summary) else pairs
