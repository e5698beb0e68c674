"""The GREEN/VERT answer format as a llama.cpp GBNF grammar and as an equivalent regex.

Both are built from the same pieces, so they describe the same language:

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

Free text is bounded in length and may not contain line breaks or square brackets, so nothing a
constrained model writes can look like a section header to `parse_assessment`.
"""

from __future__ import annotations

from typing import NamedTuple

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES
from scorers.green_vert.parse import (
    SECTION_EXPLANATION,
    SECTION_INSIGNIFICANT,
    SECTION_MATCHED,
    SECTION_SCORE,
    SECTION_SIGNIFICANT,
)

# The same character class is valid in GBNF and in Python/xgrammar/outlines regexes.
_FREE_CHAR = r"[^\n\r\[\]]"
_REGEX_SPECIAL = set(r"\.^$*+?{}[]|()")


class _Piece(NamedTuple):
    """One part of the format, written once in GBNF and once as a regex."""

    gbnf: str
    regex: str


def _literal(text: str) -> _Piece:
    gbnf = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    regex = "".join("\\n" if char == "\n" else "\\" + char if char in _REGEX_SPECIAL else char for char in text)
    return _Piece(f'"{gbnf}"', regex)


def _free_text(max_chars: int) -> _Piece:
    bounded = f"{_FREE_CHAR}{{1,{max_chars}}}"
    return _Piece(bounded, bounded)


def _sequence(*pieces: _Piece) -> _Piece:
    return _Piece(" ".join(p.gbnf for p in pieces), "".join(p.regex for p in pieces))


def _optional(piece: _Piece) -> _Piece:
    return _Piece(f"({piece.gbnf})?", f"(?:{piece.regex})?")


_COUNT = _Piece("[0-9]{1,2}", "[0-9]{1,2}")
_SCORE = _Piece('("0." [0-9]{2} | "1.00")', r"(?:0\.[0-9]{2}|1\.00)")


def _header(section: str) -> _Piece:
    return _literal(f"[{section}]:\n")


def _counted_line(prefix: str, max_item_chars: int) -> _Piece:
    """``<prefix><count>.`` with optional free text after it (the line break is not included)."""
    return _sequence(
        *([_literal(prefix)] if prefix else []),
        _COUNT,
        _literal("."),
        _optional(_sequence(_literal(" "), _free_text(max_item_chars))),
    )


def _rules(*, with_score: bool, max_explanation_chars: int, max_item_chars: int) -> list[tuple[str, _Piece]]:
    """The named rules of the format, root first."""
    if max_explanation_chars < 1 or max_item_chars < 1:
        raise ValueError(
            f"max_explanation_chars and max_item_chars must be >= 1, got {max_explanation_chars} and {max_item_chars}"
        )
    newline = _literal("\n")
    categories = _sequence(
        *(
            _sequence(_counted_line(f"({letter}) {CATEGORY_NAMES[letter]}: ", max_item_chars), newline)
            for letter in ERROR_CATEGORIES
        )
    )
    sections = [
        (
            "explanation",
            _sequence(_header(SECTION_EXPLANATION), _free_text(max_explanation_chars), newline),
        ),
        ("significant", _sequence(_header(SECTION_SIGNIFICANT), categories)),
        ("insignificant", _sequence(_header(SECTION_INSIGNIFICANT), categories)),
        ("matched", _sequence(_header(SECTION_MATCHED), _counted_line("", max_item_chars))),
    ]
    if with_score:
        sections.append(("score", _sequence(newline, _header(SECTION_SCORE), _SCORE)))
    root = _Piece(" ".join(name for name, _ in sections), "".join(piece.regex for _, piece in sections))
    return [("root", root), *sections]


def assessment_gbnf(*, with_score: bool, max_explanation_chars: int = 400, max_item_chars: int = 200) -> str:
    """A llama.cpp GBNF grammar that forces the GREEN (or, with a score, VERT) answer format.

    Args:
        with_score: Whether the answer ends with an `[Overall Accuracy Score]` section.
        max_explanation_chars: Longest explanation (one line) a model may write.
        max_item_chars: Longest free text after a count.

    Returns:
        Grammar text for `llama_cpp.LlamaGrammar.from_string`.
    """
    rules = _rules(
        with_score=with_score,
        max_explanation_chars=max_explanation_chars,
        max_item_chars=max_item_chars,
    )
    return "".join(f"{name} ::= {piece.gbnf}\n" for name, piece in rules)


def assessment_regex(*, with_score: bool, max_explanation_chars: int = 400, max_item_chars: int = 200) -> str:
    """The regex equivalent of `assessment_gbnf` (for vLLM ``structured_outputs.regex``).

    Match it against a whole answer (`re.fullmatch`); it has no anchors of its own.
    """
    rules = _rules(
        with_score=with_score,
        max_explanation_chars=max_explanation_chars,
        max_item_chars=max_item_chars,
    )
    return rules[0][1].regex


SCORE_ONLY_GBNF = 'root ::= "0." [0-9] | "1.0"'
"""Grammar of a score-only answer: one number from 0.0 to 1.0 with one decimal."""

SCORE_ONLY_REGEX = r"0\.[0-9]|1\.0"
"""The regex equivalent of `SCORE_ONLY_GBNF`."""
