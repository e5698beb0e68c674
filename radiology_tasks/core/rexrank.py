"""ReXrank prediction files: the JSON that the ReXrank chest X-ray leaderboard's inference scripts write.

One JSON object keyed by study id; each value holds the study's report sections (`section_findings`,
`section_impression`), its `context`, image paths (`image_path`, `key_image_path`), `frontal_lateral`, `split`,
`subject_id` and the generator's report (`model_prediction`). Read as data (`-T data=FILE.json`), each study
becomes a report pair: the candidate is `model_prediction`; the reference is the findings section
(`-T track=findings`, the default) or the findings and impression joined as ReXrank's evaluation joins them
(`-T track=findings_impression`). Read as candidates (`-T candidates=FILE.json`) only `model_prediction` is
taken, joined by study id. Images are kept only when their files exist under `-T image_root=DIR` (ReXrank's
image root folder). Where the layout and the joining rule were confirmed is in the README's "Real datasets".
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.tables import DataError, json_document

FINDINGS, IMPRESSION, PREDICTION = "section_findings", "section_impression", "model_prediction"
CONTEXT, IMAGES = "context", "image_path"
KEYS = (FINDINGS, IMPRESSION, PREDICTION)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def reference_text(study: Mapping[str, Any], track: str) -> str:
    """The reference of one study on a track, as ReXrank's evaluation builds it."""
    findings = _text(study.get(FINDINGS))
    if track == "findings":
        return findings
    impression = _text(study.get(IMPRESSION))
    return " ".join(part for part in (findings, impression) if part)


def _images(value: Any, root: Path | None) -> list[str]:
    """The study's images that exist under the image root (none without one)."""
    if root is None:
        return []
    names = value if isinstance(value, list) else [value] if isinstance(value, str) else []
    return [str(root / name) for name in names if isinstance(name, str) and (root / name).is_file()]


def rexrank_rows(source: LayoutInput) -> Iterator[Row]:
    """One flat row per study, numbered in file order; the study id is the sample id."""
    path = source.one("predictions")
    document = json_document(path)
    if not isinstance(document, Mapping):
        raise DataError(str(path), None, None, "a ReXrank prediction file is one JSON object keyed by study id")
    for number, (study_id, study) in enumerate(document.items(), start=1):
        if not isinstance(study, Mapping):
            raise DataError(str(path), number, str(study_id), "expected an object with the study's sections")
        prediction = study.get(PREDICTION)
        extra = {k: v for k, v in study.items() if k not in (*KEYS, CONTEXT, IMAGES)}
        yield (
            number,
            {
                **extra,
                "id": str(study_id),
                "reference": reference_text(study, source.options.track),
                "candidate": prediction if isinstance(prediction, str) else None,
                "indication": _text(study.get(CONTEXT)) or None,
                "images": _images(study.get(IMAGES), source.options.image_root),
                "image_path": study.get(IMAGES),
                "track": source.options.track,
            },
        )


LAYOUT = Layout(
    name="rexrank",
    description="ReXrank prediction file (JSON keyed by study id, with model_prediction)",
    files=(DataFile("predictions", "*.json", KEYS, named=False),),
    read=rexrank_rows,
    uses_track=True,
)
