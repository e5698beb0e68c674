"""RadPref: the CRIMSON authors' radiologist preference set, read as their repository holds it.

A copy is the `RadPref` folder of the authors' repository, or a clone of the whole repository:

* `RadPref/preference_data.json`: a JSON list with one object per study: `id`, `ground_truth_report`,
  `ground_truth_findings`, for each candidate `C1` and `C2` its `<name>_report`, `<name>_findings` and
  `<name>_source` (the model that wrote it), then `PatientAge` (a DICOM age such as `072Y`, `019M`, `001D`, or
  blank), `PatientSex` (`M`, `F` or `O`), `Indication`, `Comparison` and `StudyDescription`;
* `RadPref/radiologist_annotations/user_<n>.json`: one radiologist each, an object with `user_id` and
  `annotations`, the latter keyed by study id; each study holds, per candidate, the `rating` (1-5), the itemised
  `finding_errors` and `missing_findings` (objects keyed by a finding's position, written as text) and, mostly,
  a `rating_explanation`; some studies also hold `new_finding_indices`.

Each (study, candidate) becomes one report pair, id `<study id>-<candidate>`: the reference is the study's
ground-truth report, the expert score the mean of the radiologists' ratings of that candidate on 1-5 with
`expert_raters` saying over how many, and each radiologist's own rating, itemised errors, explanation and new
finding indices stay in the metadata keyed by their `user_id` (`rater_ratings`, `rater_errors`,
`rater_explanations`, `rater_new_finding_indices`). `study_id` names the study, so its two candidates are one
study even where another study has the same reference text (three real studies share one normal report). The
patient's age and sex keep the file's names (`PatientAge`, `PatientSex`) and values, which CRIMSON's judge reads
as written; the indication is the pair's `indication`. A candidate no radiologist rated is judged without an
expert score, and counted (`data.unreadable_annotations`).

The files are read whole: an entry that breaks the layout (a rating missing or outside 1-5, a study that
`preference_data.json` does not hold, a key the layout does not have) stops the run with one line naming the
file, the entry (`row`: its position in the file's list, or in a radiologist's `annotations`) and the field.
Where each fact was confirmed is in docs/data.md ("RadPref").
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.rows import KNOWN_COLUMNS
from radiology_tasks.core.tables import DataError, json_document, table_records

PREFERENCES_FILE = "RadPref/preference_data.json"
ANNOTATION_FILES = "RadPref/radiologist_annotations/user_*.json"
CANDIDATES = ("C1", "C2")
STUDY, REFERENCE, INDICATION = "id", "ground_truth_report", "Indication"
CONTEXT = ("PatientAge", "PatientSex", INDICATION)
PREFERENCE_KEYS = (STUDY, REFERENCE, *(f"{name}_report" for name in CANDIDATES), *CONTEXT)
"""The keys every study of `preference_data.json` has (the authors' evaluation reads each of them)."""
RATER_KEYS = ("user_id", "annotations")
STUDY_KEYS = (*CANDIDATES, "new_finding_indices")
ERROR_KEYS = ("finding_errors", "missing_findings")
CANDIDATE_KEYS = (*ERROR_KEYS, "rating", "rating_explanation")
RATING_SCALE = (1, 5)
_CANDIDATE_FIELD = re.compile(r"(C[0-9]+)_(.+)")


@dataclass(frozen=True)
class Rating:
    """One radiologist's reading of one candidate: the rating, the itemised errors as given, the explanation (None
    when absent or empty)."""

    rating: int
    errors: dict[str, Any]
    explanation: str | None


@dataclass
class Annotations:
    """Every radiologist's readings: per (study, candidate) and radiologist, and per study its new finding indices."""

    ratings: dict[tuple[str, str], dict[str, Rating]] = field(default_factory=dict)
    new_findings: dict[str, dict[str, Any]] = field(default_factory=dict)


def radpref_rows(source: LayoutInput) -> Iterator[Row]:
    """Two flat rows per study, C1 then C2, in the order of `preference_data.json`; row = the study's entry."""
    studies = _studies(source.one("preferences"))
    annotations = _annotations(source.files["annotations"], {study for _, study, _ in studies})
    for number, study, entry in studies:
        for name in CANDIDATES:
            yield number, _pair_row(study, entry, name, annotations)


def _studies(path: Path) -> list[tuple[int, str, dict[str, Any]]]:
    """The studies of `preference_data.json` as (entry number, study id, entry), each checked."""
    studies: list[tuple[int, str, dict[str, Any]]] = []
    seen: dict[str, int] = {}
    for number, entry in table_records(path):
        for key in PREFERENCE_KEYS:
            if key not in entry:
                raise DataError(str(path), number, key, "missing")
            _text(entry[key], str(path), number, key, required=key not in CONTEXT)
        study = entry[STUDY]
        if study in seen:
            raise DataError(str(path), number, STUDY, f"study {study!r} appears twice (first in row {seen[study]})")
        seen[study] = number
        studies.append((number, study, entry))
    return studies


def _text(value: Any, where: str, number: int, key: str, *, required: bool) -> None:
    if value is None and not required:
        return
    if not isinstance(value, str):
        raise DataError(where, number, key, f"expected text, got {type(value).__name__}")
    if required and not value.strip():
        raise DataError(where, number, key, "empty")


def _pair_row(study: str, entry: Mapping[str, Any], name: str, annotations: Annotations) -> dict[str, Any]:
    """The flat row of one candidate: its texts, the study's other fields, and the radiologists' readings."""
    ratings = annotations.ratings.get((study, name), {})
    row = {
        **_other_fields(entry, name),
        "id": f"{study}-{name}",
        "reference": entry[REFERENCE],
        "candidate": entry[f"{name}_report"],
        "indication": entry[INDICATION],
        "study_id": study,
        "candidate_name": name,
        "expert_score": sum(r.rating for r in ratings.values()) / len(ratings) if ratings else None,
        "expert_raters": len(ratings) or None,
        "rater_ratings": {rater: rating.rating for rater, rating in ratings.items()},
        "rater_errors": {rater: rating.errors for rater, rating in ratings.items()},
        "rater_explanations": {rater: rating.explanation for rater, rating in ratings.items() if rating.explanation},
        "rater_new_finding_indices": annotations.new_findings.get(study, {}),
    }
    if not ratings:
        row["expert_problem"] = {"annotation": name, "problem": "no radiologist rated this candidate"}
    return row


def _other_fields(entry: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The study's fields kept as metadata under the file's names; this candidate's `<name>_x` as `candidate_x`,
    the other candidate's left to its own pair."""
    kept: dict[str, Any] = {}
    for key, value in entry.items():
        own = _CANDIDATE_FIELD.fullmatch(key)
        if own is not None:
            if own.group(1) == name and own.group(2) != "report":
                kept[f"candidate_{own.group(2)}"] = value
        elif key not in (STUDY, REFERENCE, INDICATION):
            kept[f"hub_{key}" if key in KNOWN_COLUMNS else key] = value
    return kept


def _annotations(paths: Sequence[Path], studies: set[str]) -> Annotations:
    """Every radiologist's file read into `Annotations` (radiologists in the files' order); a radiologist may leave
    studies or candidates out."""
    annotations = Annotations()
    files: dict[str, Path] = {}
    for path in paths:
        where = str(path)
        document = json_document(path)
        if not isinstance(document, dict):
            raise DataError(where, None, None, "expected a JSON object with user_id and annotations")
        _known_keys(document, RATER_KEYS, where, None, "")
        rater = _rater(document.get("user_id"), where)
        if rater in files:
            raise DataError(where, None, "user_id", f"radiologist {rater!r} also has the file {files[rater].name}")
        files[rater] = path
        entries = document.get("annotations")
        if not isinstance(entries, dict):
            raise DataError(where, None, "annotations", "expected an object keyed by study id")
        for number, (study, entry) in enumerate(entries.items(), start=1):
            if study not in studies:
                raise DataError(where, number, "annotations", f"study {study!r} is not in preference_data.json")
            _read_study(annotations, rater, study, entry, where, number)
    return annotations


def _rater(value: Any, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str) and value.strip():
        return value.strip()
    raise DataError(where, None, "user_id", f"expected the radiologist's id, got {value!r}")


def _read_study(annotations: Annotations, rater: str, study: str, entry: Any, where: str, number: int) -> None:
    if not isinstance(entry, dict):
        raise DataError(where, number, "annotations", f"study {study}: expected an object with C1 and C2")
    _known_keys(entry, STUDY_KEYS, where, number, "", study)
    for name in CANDIDATES:
        if name in entry:
            rating = _rating(entry[name], name, study, where, number)
            annotations.ratings.setdefault((study, name), {})[rater] = rating
    if "new_finding_indices" in entry:
        annotations.new_findings.setdefault(study, {})[rater] = entry["new_finding_indices"]


def _rating(value: Any, name: str, study: str, where: str, number: int) -> Rating:
    """One candidate's reading: the rating a whole number from 1 to 5, the itemised errors objects."""
    if not isinstance(value, dict):
        raise DataError(where, number, name, f"study {study}: expected an object with the rating")
    _known_keys(value, CANDIDATE_KEYS, where, number, f"{name}.", study)
    if "rating" not in value:
        raise DataError(where, number, f"{name}.rating", f"study {study}: missing")
    rating = value["rating"]
    whole = isinstance(rating, int) or (isinstance(rating, float) and rating.is_integer())
    if isinstance(rating, bool) or not whole or not RATING_SCALE[0] <= rating <= RATING_SCALE[1]:
        raise DataError(
            where, number, f"{name}.rating", f"study {study}: expected a whole number from 1 to 5, got {rating!r}"
        )
    for key in ERROR_KEYS:
        if key in value and not isinstance(value[key], dict):
            raise DataError(where, number, f"{name}.{key}", f"study {study}: expected an object keyed by position")
    explanation = value.get("rating_explanation")
    if explanation is not None and not isinstance(explanation, str):
        raise DataError(where, number, f"{name}.rating_explanation", f"study {study}: expected text")
    return Rating(
        int(rating),
        {key: value[key] for key in ERROR_KEYS if key in value},
        explanation or None,
    )


def _known_keys(
    mapping: Mapping[str, Any], known: Sequence[str], where: str, number: int | None, prefix: str, study: str = ""
) -> None:
    unknown = [key for key in mapping if key not in known]
    if unknown:
        about = f"study {study}: " if study else ""
        raise DataError(
            where, number, f"{prefix}{unknown[0]}", f"{about}not a key of RadPref's files (known: {', '.join(known)})"
        )


LAYOUT = Layout(
    name="radpref",
    description="RadPref (the CRIMSON authors' set): 100 chest X-ray studies x 2 candidates, 1-5 ratings of 3 "
    "radiologists",
    files=(
        DataFile("preferences", PREFERENCES_FILE, PREFERENCE_KEYS),
        DataFile("annotations", ANNOTATION_FILES, RATER_KEYS, many=True),
    ),
    read=radpref_rows,
    expert_scale=(float(RATING_SCALE[0]), float(RATING_SCALE[1])),
    obtain="it is in the CRIMSON authors' GitHub repository (rajpurkarlab/CRIMSON, folder RadPref): clone it yourself",
)
