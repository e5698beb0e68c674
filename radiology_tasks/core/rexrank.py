"""ReXrank prediction files: the JSON that the ReXrank chest X-ray leaderboard's inference scripts write.

One JSON object keyed by study id. Each value is the study's entry of ReXrank's test-set file (`image_path`, a
list of image paths; `section_findings`, `section_impression`; `context`; `key_image_path`; `frontal_lateral`;
`split`; `subject_id` for MIMIC-CXR; `report`; CheXpert Plus adds a few more) with the generator's report
added as `model_prediction`. A missing section is written as the bare JSON token `NaN`, which Python reads.

Read as data (`-T data=FILE.json`), each study becomes a report pair whose candidate is `model_prediction`:

* `-T track=findings` (the default): the reference is the findings section as written. A study without one
  has no reference on this track: it is left out and counted (`data.left_out` in the task metadata).
* `-T track=findings_impression`: the reference is ReXrank's `Findings: <findings> Impression: <impression>`,
  with `None` written for a missing section, as ReXrank's evaluation script (`split_json`) builds it; no study
  is left out.

The study's `context` becomes the sample's indication. Images are kept only when their files exist under
`-T image_root=DIR` (ReXrank's `--img_root_dir`; the paths' leading `/` is dropped). Read as candidates
(`-T candidates=FILE.json`), only `model_prediction` is taken, joined by study id. Where this was confirmed is in
the README's "Real datasets" section.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.tables import DataError, json_document

FINDINGS, IMPRESSION, PREDICTION = "section_findings", "section_impression", "model_prediction"
CONTEXT, IMAGES = "context", "image_path"
KEYS = (FINDINGS, IMPRESSION, PREDICTION)


def _section(value: Any) -> str | None:
    """A section's text as written, or None for a missing one (`NaN`, null or absent)."""
    return value if isinstance(value, str) else None


def reference_text(study: Mapping[str, Any], track: str) -> str | None:
    """The reference of one study on a track, as ReXrank's evaluation builds it (None: not on this track)."""
    findings = _section(study.get(FINDINGS))
    if track == "findings":
        return findings if findings and findings.strip() else None
    return f"Findings: {findings} Impression: {_section(study.get(IMPRESSION))}"


def _images(value: Any, root: Path | None) -> list[str]:
    """The study's images whose files exist under the image root (none without one)."""
    if root is None:
        return []
    names = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    paths = [root.absolute() / name.lstrip("/") for name in names if isinstance(name, str) and name.strip()]
    return [str(path) for path in paths if path.is_file()]


def rexrank_rows(source: LayoutInput) -> Iterator[Row]:
    """One flat row per study, numbered in file order; the study id is the sample id."""
    path = source.one("predictions")
    document = json_document(path)
    if not isinstance(document, Mapping):
        raise DataError(str(path), None, None, "a ReXrank prediction file is one JSON object keyed by study id")
    track = source.options.reference_track
    for number, (study_id, study) in enumerate(document.items(), start=1):
        if not isinstance(study, Mapping):
            raise DataError(str(path), number, str(study_id), "expected an object with the study's sections")
        reference = reference_text(study, track)
        if reference is None:
            source.left_out.append({"row": number, "id": str(study_id), "reason": f"no {FINDINGS} (track {track})"})
            continue
        prediction = study.get(PREDICTION)
        extra = {k: v for k, v in study.items() if k not in (*KEYS, CONTEXT) and not _is_nan(v)}
        yield (
            number,
            {
                **extra,
                "id": str(study_id),
                "reference": reference,
                "candidate": prediction if isinstance(prediction, str) else None,
                "indication": (_section(study.get(CONTEXT)) or "").strip() or None,
                "images": _images(study.get(IMAGES), source.options.image_folder),
                "image_path": study.get(IMAGES),
                "track": track,
            },
        )


def rexrank_candidates(source: LayoutInput) -> Iterator[Row]:
    """Each study's `model_prediction` under its study id, whatever sections the study has."""
    document = json_document(source.one("predictions"))
    if not isinstance(document, Mapping):
        raise DataError(source.label, None, None, "a ReXrank prediction file is one JSON object keyed by study id")
    for number, (study_id, study) in enumerate(document.items(), start=1):
        prediction = study.get(PREDICTION) if isinstance(study, Mapping) else None
        yield number, {"id": str(study_id), "candidate": prediction if isinstance(prediction, str) else None}


def _is_nan(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


LAYOUT = Layout(
    name="rexrank",
    description="ReXrank prediction file (JSON keyed by study id, with model_prediction)",
    files=(DataFile("predictions", "*.json", KEYS, named=False),),
    read=rexrank_rows,
    uses_track=True,
    candidates=rexrank_candidates,
    credentialed=True,  # ReXrank's test sets hold MIMIC-CXR and CheXpert Plus reports under data-use agreements
)
