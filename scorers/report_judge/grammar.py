"""The GREEN/VERT answer format as a llama.cpp GBNF grammar and as an equivalent regex, with its length bound.

Grammar, regex and the longest admitted answer are built from the same pieces, so they describe the same
language:

    [Explanation]:
    <one line of free text>
    [Clinically Significant Errors]:
    (a) False report of a finding in the candidate: <1-2 digits>.[ <free text>]
    ... (b)-(f), in order, with the names of CATEGORY_NAMES
    [Clinically Insignificant Errors]:
    ... (a)-(f) as above
    [Matched Findings]:
    <1-2 digits>.[ <free text>]
    [Overall Accuracy Score]:        (only with_score)
    0.dd or 1.00

Every stretch of free text has a character bound (`AnswerBounds`), stated once per level of detail, so the
longest answer the grammar admits is known exactly and fits the token budget tasks send (`DETAIL_MAX_TOKENS`).
A judge that rambles (a 135M model writing "0.0000..." for a thousand tokens) is stopped by the grammar at
the bound and moves on to the next section, instead of being cut off by the budget before its score.

Free text is printable ASCII without square brackets: nothing a constrained judge writes can look like a
section header to `parse_assessment`, and one character never costs more than one token.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES
from radiology_tasks.scorers.gbnf import Piece, Rule, chars, choice, grammar, literal, optional, sequence
from radiology_tasks.scorers.report_judge.parse import (
    SECTION_EXPLANATION,
    SECTION_INSIGNIFICANT,
    SECTION_MATCHED,
    SECTION_SCORE,
    SECTION_SIGNIFICANT,
)

Detail = Literal["full", "brief"]
"""How much the judge writes besides its counts: ``full`` is the paper's form (an explanation and each error
described), ``brief`` keeps the counts, the matched count and the score and describes each in a few words."""

# Printable ASCII (0x20-0x7E) except "[" (0x5B) and "]" (0x5D).
_FREE_CHAR = r"[ -Z\\^-~]"


@dataclass(frozen=True)
class AnswerBounds:
    """The longest free text, in characters, each part of an answer may hold.

    Attributes:
        explanation: The one-line explanation.
        item: The text after each error category's count (its errors, separated by semicolons).
        matched: The text after the matched-findings count.
    """

    explanation: int
    item: int
    matched: int

    def __post_init__(self) -> None:
        if min(self.explanation, self.item, self.matched) < 1:
            raise ValueError(f"every bound must be >= 1, got {self}")


DETAIL_BOUNDS: dict[Detail, AnswerBounds] = {
    "full": AnswerBounds(explanation=240, item=120, matched=200),
    "brief": AnswerBounds(explanation=60, item=30, matched=60),
}
"""The bounds of each level of detail: the one place they are stated."""

DETAIL_MAX_TOKENS: dict[Detail, int] = {"full": 3072, "brief": 1536}
"""The judge's token budget for each level of detail (``-T judge_max_tokens`` default). A test holds that the
longest admitted answer of every contract fits its budget with margin."""

SCORE_ONLY_MAX_TOKENS = 16
"""Budget of the score-only answer (one number)."""


def _free_text(max_chars: int) -> Piece:
    return chars(_FREE_CHAR, 1, max_chars)


_COUNT = chars("[0-9]", 1, 2)
_SCORE = choice(sequence(literal("0."), chars("[0-9]", 2, 2)), literal("1.00"))


def _header(section: str) -> Piece:
    return literal(f"[{section}]:\n")


def _counted_line(prefix: str, max_item_chars: int) -> Piece:
    """``<prefix><count>.`` with optional free text after it (the line break is not included)."""
    return sequence(
        *([literal(prefix)] if prefix else []),
        _COUNT,
        literal("."),
        optional(sequence(literal(" "), _free_text(max_item_chars))),
    )


def _sections(*, with_score: bool, bounds: AnswerBounds) -> list[Rule]:
    """One named rule per section of the format, in order."""
    newline = literal("\n")
    categories = sequence(
        *(
            sequence(_counted_line(f"({letter}) {CATEGORY_NAMES[letter]}: ", bounds.item), newline)
            for letter in ERROR_CATEGORIES
        )
    )
    sections = [
        Rule("explanation", sequence(_header(SECTION_EXPLANATION), _free_text(bounds.explanation), newline)),
        Rule("significant", sequence(_header(SECTION_SIGNIFICANT), categories)),
        Rule("insignificant", sequence(_header(SECTION_INSIGNIFICANT), categories)),
        Rule("matched", sequence(_header(SECTION_MATCHED), _counted_line("", bounds.matched))),
    ]
    if with_score:
        sections.append(Rule("score", sequence(newline, _header(SECTION_SCORE), _SCORE)))
    return sections


def _root(*, with_score: bool, bounds: AnswerBounds) -> Piece:
    return sequence(*(section.ref for section in _sections(with_score=with_score, bounds=bounds)))


def assessment_gbnf(*, with_score: bool, bounds: AnswerBounds = DETAIL_BOUNDS["full"]) -> str:
    """A llama.cpp GBNF grammar that forces the GREEN (or, with a score, VERT) answer format.

    Args:
        with_score: Whether the answer ends with an `[Overall Accuracy Score]` section.
        bounds: Longest free text of each part.

    Returns:
        Grammar text for `llama_cpp.LlamaGrammar.from_string`.
    """
    return grammar(_root(with_score=with_score, bounds=bounds), _sections(with_score=with_score, bounds=bounds))


def assessment_regex(*, with_score: bool, bounds: AnswerBounds = DETAIL_BOUNDS["full"]) -> str:
    """The regex equivalent of `assessment_gbnf` (for vLLM ``structured_outputs.regex``).

    Match it against a whole answer (`re.fullmatch`); it has no anchors of its own.
    """
    return _root(with_score=with_score, bounds=bounds).regex


def assessment_max_chars(*, with_score: bool, bounds: AnswerBounds = DETAIL_BOUNDS["full"]) -> int:
    """Length in characters of the longest answer `assessment_gbnf` admits."""
    return _root(with_score=with_score, bounds=bounds).max_chars


def assessment_contract(name: str, *, with_score: bool, detail: Detail = "full") -> OutputContract:
    """The sectioned-answer contract of a GREEN-family prompt at a level of detail."""
    return _contract(name, with_score, detail, DETAIL_BOUNDS[detail])


@cache
def _contract(name: str, with_score: bool, detail: Detail, bounds: AnswerBounds) -> OutputContract:
    """The contract, built once per prompt, score section and bounds and shared (it is frozen): its grammar and
    regex take milliseconds to build, which a judge would otherwise pay for every report."""
    return OutputContract(
        name=name if detail == "full" else f"{name}-{detail}",
        max_chars=assessment_max_chars(with_score=with_score, bounds=bounds),
        max_tokens=DETAIL_MAX_TOKENS[detail],
        gbnf=assessment_gbnf(with_score=with_score, bounds=bounds),
        regex=assessment_regex(with_score=with_score, bounds=bounds),
    )


SCORE_ONLY_GBNF = 'root ::= "0." [0-9] | "1.0"'
"""Grammar of a score-only answer: one number from 0.0 to 1.0 with one decimal."""

SCORE_ONLY_REGEX = r"0\.[0-9]|1\.0"
"""The regex equivalent of `SCORE_ONLY_GBNF`."""

SCORE_ONLY_CONTRACT = OutputContract(
    name="score", max_chars=3, max_tokens=SCORE_ONLY_MAX_TOKENS, gbnf=SCORE_ONLY_GBNF, regex=SCORE_ONLY_REGEX
)
"""The contract of the score-only prompt (fine-tuned judges)."""
