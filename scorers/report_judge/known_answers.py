"""Judge answers written from what is known about a report pair, in the judge's own answer contract.

A synthesized pair comes with its answer: an error variant of a reference carries the errors that were put into
it, a paraphrase carries none. `KnownAnswer` holds those counts and the matched-findings count, and the writers
here turn it into the text a perfect judge would give, exactly in the form the output contract admits (the
GBNF grammar and regex of `scorers.report_judge.grammar`), so the task's reader reads it back to the same numbers:

    [Explanation]:
    <one line of our own wording, within the detail level's bound>
    [Clinically Significant Errors]:
    (a) False report of a finding in the candidate: 2.
    ... (b)-(f), each with its count and nothing after it
    [Clinically Insignificant Errors]:
    ... (a)-(f)
    [Matched Findings]:
    5.
    [Overall Accuracy Score]:       (only for prompts with a score)
    0.60

The answer holds no text of either report: its free text is a fixed sentence filled with counts and category
letters, so nothing in a candidate can reach a training target. The one score a known answer implies is
`known_score`: the formula M / (M + 2S + 0.5I) that the project's curated few-shot answers use, rounded *down* to
a tenth (the matched count behind it is coarse, so a second decimal would be invented, and rounding down keeps
any significant error below a clean paraphrase's 1.0).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES, ErrorCategory, ErrorCounts
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS, Detail
from radiology_tasks.scorers.report_judge.parse import (
    SECTION_EXPLANATION,
    SECTION_INSIGNIFICANT,
    SECTION_MATCHED,
    SECTION_SCORE,
    SECTION_SIGNIFICANT,
)
from radiology_tasks.scorers.report_judge.scores import FORMULA_WEIGHTS

MAX_COUNT = 99
"""The largest count the contract admits (two digits) for a category or for the matched findings."""


@dataclass(frozen=True)
class KnownAnswer:
    """The numbers a perfect judge would give for one report pair.

    Attributes:
        significant: Clinically significant errors per category.
        matched: Matched findings.
        insignificant: Clinically insignificant errors per category (none for synthesized variants).
    """

    significant: ErrorCounts
    matched: int
    insignificant: ErrorCounts = field(default_factory=ErrorCounts)

    def __post_init__(self) -> None:
        counts = [*self.significant.as_dict().values(), *self.insignificant.as_dict().values(), self.matched]
        if not all(0 <= count <= MAX_COUNT for count in counts):
            raise ValueError(f"every count must lie in 0..{MAX_COUNT} to fit the answer format, got {self}")

    @property
    def score(self) -> Decimal:
        """`known_score` of these counts."""
        return known_score(self.matched, int(self.significant.total), int(self.insignificant.total))


def known_score(matched: int, significant: int, insignificant: int) -> Decimal:
    """M / (M + 2S + 0.5I), rounded down to one decimal; 1.0 with no errors and 0.0 with errors but M = 0.

    Computed exactly (no floating point), so a ratio that is a whole tenth stays that tenth.
    """
    w_matched, w_significant, w_insignificant = (Fraction(w) for w in FORMULA_WEIGHTS)
    errors = w_significant * significant + w_insignificant * insignificant
    if matched == 0:
        ratio = Fraction(1) if errors == 0 else Fraction(0)
    else:
        ratio = w_matched * matched / (w_matched * matched + errors)
    return Decimal(math.floor(ratio * 10)).scaleb(-1)


def score_only_answer(known: KnownAnswer) -> str:
    """The answer of the score-only prompt: the known score with one decimal ("0.6", "1.0")."""
    return f"{known.score:.1f}"


def _category_list(counts: ErrorCounts) -> list[tuple[ErrorCategory, int]]:
    found = counts.as_dict()
    return [(letter, int(found[letter])) for letter in ERROR_CATEGORIES if found[letter]]


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _full_explanations(known: KnownAnswer) -> list[str]:
    """Explanations for ``detail=full``, the most telling first (the first that fits its bound is used)."""
    significant, insignificant = _category_list(known.significant), _category_list(known.insignificant)
    if not significant and not insignificant:
        return [
            "The candidate states the findings of the reference in its own words; it conveys every finding "
            "and adds none, so there are no errors."
        ]
    parts: list[str] = []
    short: list[str] = []
    for counts, kind in ((significant, "clinically significant"), (insignificant, "clinically insignificant")):
        if not counts:
            continue
        total = sum(count for _, count in counts)
        if len(counts) == 1:
            letter = counts[0][0]
            name = CATEGORY_NAMES[letter].lower()
            parts.append(f"{_plural(total, kind + ' error')} of type ({letter}), {name}")
        else:
            listed = ", ".join(f"{count} of type ({letter})" for letter, count in counts)
            parts.append(f"{_plural(total, kind + ' error')}: {listed}")
        short.append(_plural(total, kind + " error"))
    ending = "; every other finding of the reference is conveyed." if known.matched else "."
    return [
        f"The candidate has {' and '.join(parts)}{ending}",
        f"The candidate has {' and '.join(short)}{ending}",
    ]


def _brief_explanations(known: KnownAnswer) -> list[str]:
    """Explanations for ``detail=brief``, the most telling first."""
    significant, insignificant = _category_list(known.significant), _category_list(known.insignificant)
    if not significant and not insignificant:
        return ["Same findings in other words; no errors."]
    listed = "; ".join(
        f"{kind}: " + ", ".join(f"({letter}) {count}" for letter, count in counts)
        for counts, kind in ((significant, "Significant"), (insignificant, "Insignificant"))
        if counts
    )
    totals = ", ".join(
        f"{sum(count for _, count in counts)} {kind}"
        for counts, kind in ((significant, "significant"), (insignificant, "insignificant"))
        if counts
    )
    return [f"{listed}.", f"Errors: {totals}."]


def _fitting(texts: Sequence[str], bound: int) -> str:
    fitting = next((text for text in texts if len(text) <= bound), None)
    if fitting is None:
        raise ValueError(f"no explanation fits {bound} characters: {texts[-1]!r}")
    return fitting


def explanation(known: KnownAnswer, detail: Detail = "full") -> str:
    """The one-line explanation of a known answer: counts and category letters in our own wording."""
    texts = _full_explanations(known) if detail == "full" else _brief_explanations(known)
    return _fitting(texts, DETAIL_BOUNDS[detail].explanation)


def assessment_answer(known: KnownAnswer, *, with_score: bool, detail: Detail = "full") -> str:
    """The sectioned answer of the GREEN (``with_score=False``) or VERT prompt for a known answer.

    The text is exactly what the contract's grammar admits: every category line ends at its count and the
    matched-findings line at the count, since what the errors are in words is not part of what is known.
    """
    lines = [f"[{SECTION_EXPLANATION}]:", explanation(known, detail)]
    for section, counts in ((SECTION_SIGNIFICANT, known.significant), (SECTION_INSIGNIFICANT, known.insignificant)):
        lines.append(f"[{section}]:")
        lines += [f"({letter}) {CATEGORY_NAMES[letter]}: {getattr(counts, letter)}." for letter in ERROR_CATEGORIES]
    lines += [f"[{SECTION_MATCHED}]:", f"{known.matched}."]
    if with_score:
        lines += [f"[{SECTION_SCORE}]:", f"{known.score:.2f}"]
    return "\n".join(lines)
