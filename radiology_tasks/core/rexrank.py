"""ReXrank prediction files: the JSON that the ReXrank chest X-ray leaderboard's inference scripts write.

One JSON object keyed by study id. Each value is the study's entry of ReXrank's test-set file (`image_path`, a
list of image paths; `section_findings`, `section_impression`; `context`; `key_image_path`; `frontal_lateral`;
`split`; `subject_id` for MIMIC-CXR; `report`; CheXpert Plus adds `ap_pa`, `age`, `sex` and a few more) with the
generator's report added as `model_prediction`. A missing section is written as the bare JSON token `NaN`, which
Python reads.

Read as data (`-T data=FILE.json`), each study becomes a report pair whose candidate is `model_prediction`:

* `-T track=findings` (the default): the reference is the findings section as written. A study without one
  has no reference on this track: it is left out and counted (`data.left_out` in the task metadata).
* `-T track=findings_impression`: the reference is ReXrank's `Findings: <findings> Impression: <impression>`,
  with `None` written for a missing section, as ReXrank's evaluation script (`split_json`) builds it; no study
  is left out.

What a generator is given (`report_generation`, `-T generate=true`): the section(s) of the track; the study as a
chest X-ray (`XR` of the `chest`); the `context` string read into age, sex, indication and comparison
(`read_context`); the images of `image_path` in the file's order, each with its view from `frontal_lateral`
(with CheXpert Plus's `ap_pa` beside it), and `key_image_path` as the key image. Image paths are relative to
`-T image_root=DIR` (ReXrank's `--img_root_dir`; the MIMIC paths' leading `/` is dropped), by default the data
file's folder. Read as candidates (`-T candidates=FILE.json`), only `model_prediction` is taken, joined by study
id. What was confirmed, and where, is in docs/data.md ("Real datasets").
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Mapping
from typing import Any

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.rows import KNOWN_COLUMNS
from radiology_tasks.core.tables import DataError, json_document

FINDINGS, IMPRESSION, PREDICTION = "section_findings", "section_impression", "model_prediction"
CONTEXT, IMAGES, KEY_IMAGE, VIEWS, AP_PA = "context", "image_path", "key_image_path", "frontal_lateral", "ap_pa"
KEYS = (FINDINGS, IMPRESSION, PREDICTION)

MODALITY, ANATOMY = "XR", "chest"
"""Every ReXrank test set (MIMIC-CXR, IU X-ray, CheXpert Plus) is of chest radiographs."""

CONTEXT_LABELS = {"Age": "age", "Gender": "sex", "Indication": "indication", "Comparison": "comparison"}
"""The labelled parts of a `context` string, in the order ReXrank writes them, and the field each fills."""

ABSENT = frozenset({"", "nan"})
"""Values that say a part of the context is not known (CheXpert Plus writes a missing indication as `nan`)."""

UNKNOWN_SEX = frozenset({"U", "Unknown"})
"""CheXpert Plus's mark for a patient whose sex is not recorded: left out like a missing value."""

_CONTEXT_TAGS = re.compile(r"^\s*<context>(.*)</context>\s*$", re.DOTALL)


def _section(value: Any) -> str | None:
    """A section's text as written, or None for a missing one (`NaN`, null or absent)."""
    return value if isinstance(value, str) else None


def reference_text(study: Mapping[str, Any], track: str) -> str | None:
    """The reference of one study on a track, as ReXrank's evaluation builds it (None: not on this track)."""
    findings = _section(study.get(FINDINGS))
    if track == "findings":
        return findings if findings and findings.strip() else None
    return f"Findings: {findings} Impression: {_section(study.get(IMPRESSION))}"


def _label_starts(text: str) -> list[tuple[int, int, str]]:
    """Where each label of `CONTEXT_LABELS` starts and its value begins, each label found once, in their order.

    Age and gender open the string where they are given, so they are looked for only before the indication or
    comparison: an `Age:` inside a comparison (`Comparison: Age: 3 years ago.`) stays part of it.
    """
    opening = re.search(r"(?:Indication|Comparison)\s*:", text)
    limit = opening.start() if opening else len(text)
    found = []
    position = 0
    for label, field in CONTEXT_LABELS.items():
        end = limit if field in ("age", "sex") else len(text)
        match = re.compile(rf"{label}\s*:").search(text, position, end)
        if match is not None:
            found.append((match.start(), match.end(), field))
            position = match.end()
    return found


def _context_value(field: str, value: str) -> str | None:
    value = value.strip()
    if field in ("age", "sex"):
        value = value.removesuffix(".").strip()  # `Age:50-60.Gender:M.`: the dot only separates the parts
        if field == "age" and re.fullmatch(r"[0-9]+\.0", value):
            value = value.removesuffix(".0")  # CheXpert Plus writes whole ages as floats (`77.0`)
        if field == "sex" and value in UNKNOWN_SEX:
            return None
    return None if value.lower() in ABSENT else value


def read_context(context: Any) -> dict[str, str | None]:
    """ReXrank's `context` string read into `age`, `sex`, `indication` and `comparison`, as written.

    The real files write `Age:50-60.Gender:M.Indication: ...Comparison: ...` (MIMIC-CXR, any part may be
    missing), `Age:77.0.Gender:F.Indication:nanComparison: None.` (CheXpert Plus) and `Indication: ...
    Comparison: ...` (IU X-ray); ReXrank's example prediction file wraps it in `<context>...</context>`. A part
    that is absent, `nan`, or an unknown sex is None; text before the first label is taken as (the start of) the
    indication.
    """
    text = context if isinstance(context, str) else ""
    tagged = _CONTEXT_TAGS.match(text)
    text = tagged[1] if tagged else text
    fields: dict[str, str | None] = dict.fromkeys(CONTEXT_LABELS.values())
    starts = _label_starts(text)
    for n, (_, value_start, field) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(text)
        fields[field] = _context_value(field, text[value_start:end])
    before = _context_value("indication", text[: starts[0][0]] if starts else text)
    if before is not None:
        fields["indication"] = f"{before} {fields['indication']}" if fields["indication"] else before
    return fields


def _paths(value: Any) -> list[str]:
    """Image paths as ReXrank writes them, relative to the image root (MIMIC's leading `/` dropped)."""
    names = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return [name.strip().lstrip("/") for name in names if isinstance(name, str) and name.strip()]


def _view(position: int, views: list[Any], ap_pa: Any) -> str | None:
    view = views[position] if isinstance(views[position], str) and views[position].strip() else None
    projections = ap_pa if isinstance(ap_pa, list) and len(ap_pa) == len(views) else []
    projection = projections[position] if projections and isinstance(projections[position], str) else None
    return ", ".join(part for part in (view, projection) if part) or None


def study_images(study: Mapping[str, Any]) -> tuple[list[str], list[str | None] | None]:
    """The study's image paths and their views (`frontal_lateral`, with `ap_pa` where CheXpert Plus gives it).

    Returns:
        The paths, and one view per image (None for an image whose view is missing); None instead of the views
        when the data gives none, or a count that does not match the images (some IU X-ray studies list three
        views for two images), since no view can then be told to belong to an image.
    """
    images = _paths(study.get(IMAGES))
    views = study.get(VIEWS)
    if not isinstance(views, list) or len(views) != len(images):
        return images, None
    return images, [_view(position, views, study.get(AP_PA)) for position in range(len(views))]


def _study_row(study_id: str, study: Mapping[str, Any], reference: str, track: str) -> dict[str, Any]:
    """The flat row of one study (see `radiology_tasks.core.rows`); ReXrank's own keys that share a flat column's
    name (CheXpert Plus's `age`, `sex`) are kept as `rexrank_<key>`."""
    images, views = study_images(study)
    key = _paths(study.get(KEY_IMAGE))
    prediction = study.get(PREDICTION)
    extra = {
        (f"rexrank_{k}" if k in KNOWN_COLUMNS else k): v for k, v in study.items() if k not in KEYS and not _is_nan(v)
    }
    return {
        **extra,
        "id": study_id,
        "reference": reference,
        "candidate": prediction if isinstance(prediction, str) else None,
        "modality": MODALITY,
        "anatomy": ANATOMY,
        "section": track,
        **read_context(study.get(CONTEXT)),
        "images": images,
        "views": views,
        "key_image": key[0] if key else None,
    }


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
        row = _study_row(str(study_id), study, reference, track)
        if row["views"] is None and isinstance(study.get(VIEWS), list):
            count = (len(study[VIEWS]), len(row["images"]))
            reason = f"{count[0]} views for {count[1]} images: no view is shown"
            source.unused.append({"row": number, "id": str(study_id), "field": VIEWS, "reason": reason})
        yield number, row


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
