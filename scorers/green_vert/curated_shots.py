"""Team-written few-shot material for the GREEN/VERT judge prompts.

Everything here is synthetic and written for this project: no report comes from a dataset.

- `ERROR_TYPE_SHOTS`: the ``error-types`` set, one short example per error category (a)-(f),
  each candidate carrying exactly one clinically significant error of that category.

What each category means is `radiology_tasks.core.records.ERROR_TYPE_DESCRIPTIONS`, beside the categories'
names: the `templates` package hands it to every template as the ``error_type_descriptions`` global.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from importlib.resources import files
from typing import Any, cast

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES, ErrorCategory
from radiology_tasks.scorers.report_judge.parse import (
    SECTION_EXPLANATION,
    SECTION_INSIGNIFICANT,
    SECTION_MATCHED,
    SECTION_SCORE,
    SECTION_SIGNIFICANT,
)
from radiology_tasks.scorers.report_judge.scores import formula_score


@dataclass(frozen=True)
class CuratedShot:
    """One synthetic example whose candidate has exactly one clinically significant error.

    Attributes:
        category: The category of that error.
        modality: Imaging modality of the synthetic report (for documentation only).
        reference: The reference report.
        candidate: The candidate report.
        explanation: One-line explanation, as the judge should write it.
        error: The error, as listed after its count.
        matched: The findings both reports share.
    """

    category: ErrorCategory
    modality: str
    reference: str
    candidate: str
    explanation: str
    error: str
    matched: tuple[str, ...]


SHOTS_FILE = "error_type_shots.json"
"""The ``error-types`` set's file, in this package: a JSON list of `CuratedShot` fields."""


def _shot(row: dict[str, object], index: int) -> CuratedShot:
    """One shot of `SHOTS_FILE`, checked: every field given, nothing else, texts as texts."""
    fields = [f.name for f in dataclasses.fields(CuratedShot)]
    where = f"{SHOTS_FILE}, item {index}"
    if sorted(row) != sorted(fields):
        raise ValueError(f"{where}: expected the fields {', '.join(fields)}; got {', '.join(row)}")
    if row["category"] not in ERROR_CATEGORIES:
        raise ValueError(f"{where}, field 'category': expected one of {', '.join(ERROR_CATEGORIES)}")
    matched = row["matched"]
    texts = [row[name] for name in fields if name != "matched"]
    if not isinstance(matched, list) or not all(isinstance(text, str) for text in [*texts, *matched]):
        raise ValueError(f"{where}: every field must be text, and 'matched' a list of texts")
    return CuratedShot(**cast("dict[str, Any]", {**row, "matched": tuple(matched)}))


def _load_shots() -> tuple[CuratedShot, ...]:
    rows = json.loads(files(__package__).joinpath(SHOTS_FILE).read_text(encoding="utf-8"))
    return tuple(_shot(row, index) for index, row in enumerate(rows, 1))


ERROR_TYPE_SHOTS: tuple[CuratedShot, ...] = _load_shots()
"""The ``error-types`` set: one shot per category (a)-(f), in that order (written in `SHOTS_FILE`)."""


def _answer_text(shot: CuratedShot, *, with_score: bool) -> str:
    """The full judge answer for `shot`, in the exact format of `assessment_gbnf`."""

    def category_line(letter: ErrorCategory, significant: bool) -> str:
        if significant and letter == shot.category:
            return f"({letter}) {CATEGORY_NAMES[letter]}: 1. {shot.error}"
        return f"({letter}) {CATEGORY_NAMES[letter]}: 0."

    lines = [f"[{SECTION_EXPLANATION}]:", shot.explanation, f"[{SECTION_SIGNIFICANT}]:"]
    lines += [category_line(letter, True) for letter in ERROR_CATEGORIES]
    lines.append(f"[{SECTION_INSIGNIFICANT}]:")
    lines += [category_line(letter, False) for letter in ERROR_CATEGORIES]
    lines += [f"[{SECTION_MATCHED}]:", f"{len(shot.matched)}. {'; '.join(shot.matched)}."]
    if with_score:
        score = formula_score(len(shot.matched), 1, 0)
        lines += [f"[{SECTION_SCORE}]:", f"{score:.2f}"]
    return "\n".join(lines)


def error_type_examples(*, with_score: bool = True) -> list[dict[str, str]]:
    """The ``error-types`` few-shot set, as the ``examples`` variable of the judge templates.

    Args:
        with_score: Whether each answer ends with an overall accuracy score (VERT, formula and
            rubric prompts; pass False for the GREEN prompt). The score is the formula score
            M / (M + 2S + 0.5I) rounded to two decimals, which also falls in the rubric band for
            one clinically significant error (0.50 to 0.74).

    Returns:
        One dict per category (a)-(f), in that order, with ``reference``, ``candidate`` and
        ``answer``.
    """
    return [
        {
            "reference": shot.reference,
            "candidate": shot.candidate,
            "answer": _answer_text(shot, with_score=with_score),
        }
        for shot in ERROR_TYPE_SHOTS
    ]
