"""Team-written few-shot material for the GREEN/VERT judge prompts.

Everything here is synthetic and written for this project: no report comes from a dataset.

- `ERROR_TYPE_SHOTS`: the ``error-types`` set, one short example per error category (a)-(f),
  each candidate carrying exactly one clinically significant error of that category.

What each category means is `radiology_tasks.core.records.ERROR_TYPE_DESCRIPTIONS`, beside the categories'
names: the `templates` package hands it to every template as the ``error_type_descriptions`` global.
"""

from __future__ import annotations

from dataclasses import dataclass

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


ERROR_TYPE_SHOTS: tuple[CuratedShot, ...] = (
    CuratedShot(
        category="a",
        modality="chest radiograph",
        reference=(
            "PA and lateral chest radiograph. Heart size is normal. The lungs are clear. "
            "No pleural effusion or pneumothorax."
        ),
        candidate=(
            "PA and lateral chest radiograph. Heart size is normal. The lungs are clear. "
            "Small right pleural effusion. No pneumothorax."
        ),
        explanation=(
            "The candidate reports a small right pleural effusion although the reference "
            "states there is no effusion; the other findings agree."
        ),
        error="Small right pleural effusion, absent in the reference.",
        matched=("Normal heart size", "Clear lungs", "No pneumothorax"),
    ),
    CuratedShot(
        category="b",
        modality="CT",
        reference=(
            "CT chest with contrast. 8 mm solid nodule in the right upper lobe. Mild "
            "centrilobular emphysema. No mediastinal lymphadenopathy. No pleural effusion."
        ),
        candidate=(
            "CT chest with contrast. Mild centrilobular emphysema. No mediastinal lymphadenopathy. No pleural effusion."
        ),
        explanation=(
            "The candidate does not mention the 8 mm right upper lobe nodule, which needs "
            "follow-up; the remaining findings agree."
        ),
        error="8 mm solid nodule in the right upper lobe.",
        matched=(
            "Mild centrilobular emphysema",
            "No mediastinal lymphadenopathy",
            "No pleural effusion",
        ),
    ),
    CuratedShot(
        category="c",
        modality="MRI",
        reference=(
            "MRI brain. Acute infarct in the left middle cerebral artery territory with "
            "restricted diffusion. No intracranial hemorrhage. Ventricles are normal in size."
        ),
        candidate=(
            "MRI brain. Acute infarct in the right middle cerebral artery territory with "
            "restricted diffusion. No intracranial hemorrhage. Ventricles are normal in size."
        ),
        explanation=(
            "The candidate places the acute middle cerebral artery infarct on the right instead "
            "of the left; the other findings agree."
        ),
        error="Acute infarct reported in the right instead of the left MCA territory.",
        matched=("No intracranial hemorrhage", "Normal ventricular size"),
    ),
    CuratedShot(
        category="d",
        modality="chest radiograph",
        reference=(
            "Portable chest radiograph. Large left pleural effusion with adjacent compressive "
            "atelectasis. Heart size is normal. No pneumothorax."
        ),
        candidate=(
            "Portable chest radiograph. Small left pleural effusion with adjacent compressive "
            "atelectasis. Heart size is normal. No pneumothorax."
        ),
        explanation=(
            "The candidate calls the left pleural effusion small although the reference "
            "describes it as large; the other findings agree."
        ),
        error="Large left pleural effusion described as small.",
        matched=(
            "Left pleural effusion",
            "Compressive atelectasis",
            "Normal heart size",
            "No pneumothorax",
        ),
    ),
    CuratedShot(
        category="e",
        modality="MRI",
        reference=(
            "MRI brain. Scattered T2 hyperintense foci in the periventricular white matter, "
            "consistent with chronic small vessel ischemic change. No acute infarct. No mass effect."
        ),
        candidate=(
            "MRI brain. Scattered T2 hyperintense foci in the periventricular white matter, "
            "consistent with chronic small vessel ischemic change, progressed since the previous "
            "MRI. No acute infarct. No mass effect."
        ),
        explanation=(
            "The candidate says the white matter changes progressed since a previous MRI, a "
            "comparison the reference does not make; the findings themselves agree."
        ),
        error="Progression since the previous MRI, not stated in the reference.",
        matched=("Chronic small vessel ischemic change", "No acute infarct", "No mass effect"),
    ),
    CuratedShot(
        category="f",
        modality="CT",
        reference=(
            "CT chest. Right lower lobe consolidation, decreased in extent compared with the "
            "prior CT. No pulmonary nodules. No pleural effusion. Heart size is normal."
        ),
        candidate=(
            "CT chest. Right lower lobe consolidation. No pulmonary nodules. No pleural effusion. Heart size is normal."
        ),
        explanation=(
            "The candidate reports the right lower lobe consolidation but not that it has "
            "decreased since the prior CT; the other findings agree."
        ),
        error="Decrease of the consolidation since the prior CT is not reported.",
        matched=(
            "Right lower lobe consolidation",
            "No pulmonary nodules",
            "No pleural effusion",
            "Normal heart size",
        ),
    ),
)


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
