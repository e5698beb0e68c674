"""Read a GREEN/VERT-style judge answer into error counts, matched findings and a score.

The parser is tolerant of the cosmetic habits of real judge models (markdown around headers,
blank lines, CRLF, categories out of order, counts on the next line, ...) and strict about
anything that would force it to guess a number: such an answer raises `AssessmentFormatError`
with a stable machine-readable reason, so the caller can count it as unscored instead of
scoring it 0.
"""

from __future__ import annotations

import re
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES, ErrorCounts

FormatErrorReason = Literal[
    "empty_answer",
    "missing_section",
    "duplicate_section",
    "unreadable_section",
    "missing_category",
    "duplicate_category",
    "mismatched_category",
    "unreadable_count",
    "missing_matched_count",
    "ambiguous_matched_count",
    "missing_score",
    "unreadable_score",
    "score_out_of_range",
]
"""Every reason `AssessmentFormatError` can carry:

- ``empty_answer``: the answer is empty or whitespace.
- ``missing_section``: a required section header is absent (detail: the section).
- ``duplicate_section``: a section header appears more than once (detail: the section).
- ``unreadable_section``: an error section has neither category lines nor a "no errors" phrase.
- ``missing_category``: an error section with category lines lacks one of (a)-(f).
- ``duplicate_category``: a category letter appears twice in one section.
- ``mismatched_category``: a category letter carries the name of another category.
- ``unreadable_count``: a listed category has no readable integer count.
- ``missing_matched_count``: the matched-findings body does not start with a count.
- ``ambiguous_matched_count``: the matched-findings body is a numbered list, not a count.
- ``missing_score``: a score is required but its section is absent or empty.
- ``unreadable_score``: the score section does not hold exactly one readable number.
- ``score_out_of_range``: the score lies outside [0, 1].
"""

FORMAT_ERROR_REASONS: tuple[FormatErrorReason, ...] = get_args(FormatErrorReason)

SECTION_EXPLANATION = "Explanation"
SECTION_SIGNIFICANT = "Clinically Significant Errors"
SECTION_INSIGNIFICANT = "Clinically Insignificant Errors"
SECTION_MATCHED = "Matched Findings"
SECTION_SCORE = "Overall Accuracy Score"
SECTIONS: tuple[str, ...] = (
    SECTION_EXPLANATION,
    SECTION_SIGNIFICANT,
    SECTION_INSIGNIFICANT,
    SECTION_MATCHED,
    SECTION_SCORE,
)


class AssessmentFormatError(ValueError):
    """A judge answer that cannot be read without guessing.

    Attributes:
        reason: One of `FORMAT_ERROR_REASONS`.
        detail: Which section, category or value was at fault.
    """

    def __init__(self, reason: FormatErrorReason, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason: FormatErrorReason = reason
        self.detail = detail


class Assessment(BaseModel):
    """What a judge said about one candidate report.

    Attributes:
        significant: Clinically significant error counts per category.
        insignificant: Clinically insignificant error counts per category.
        matched: Number of matched findings.
        score: The judge's overall accuracy score in [0, 1], None when the answer has none.
        explanation: The explanation text, None when the answer has no explanation section.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    significant: ErrorCounts
    insignificant: ErrorCounts
    matched: int
    score: float | None
    explanation: str | None


def _words(name: str) -> str:
    return r"[ \t]+".join(re.escape(word) for word in name.split())


# A header is a line holding `[Name]`, optionally wrapped in markdown (#, **, _) and followed
# by a colon; whatever follows on the same line is the start of the section body.
_HEADER = re.compile(
    r"^[ \t]*(?:#{1,6}[ \t]*)?[*_]*[ \t]*\[[ \t]*(?P<name>"
    + "|".join(_words(name) for name in SECTIONS)
    + r")[ \t]*\][*_]*[ \t]*:?[*_]*[ \t]*(?P<rest>.*)$",
    re.IGNORECASE,
)
_CATEGORY = re.compile(
    r"^[ \t]*(?:[-*•][ \t]+)?[*_]*"
    r"(?:\((?P<paren>[a-f])\)[*_]*[ \t]*|(?P<bare>[a-f])[).][*_]*[ \t]+)(?P<rest>.*)$",
    re.IGNORECASE,
)
# An integer that is not the start of a decimal number ("1.5", "1,5").
_LEADING_INT = re.compile(r"^[ \t*_`]*(?P<value>\d+)(?!\d|[.,]\d)")
_NUMBERED_LINE = re.compile(r"^[ \t*_`]*\d+\.(?!\d)")
_SCORE = re.compile(r"^[ \t*_`]*(?P<value>[-+]?(?:\d+(?:\.\d+)?|\.\d+))(?:[ \t]*/[ \t]*1(?:\.0+)?)?(?![\d%/]|[.,]\d)")
_BARE_NUMBER = re.compile(r"^[ \t*_`]*[-+]?(?:\d+(?:\.\d+)?|\.\d+)[ \t*_`.]*$")
_NO_ERRORS = re.compile(
    r"(?:none|no|nil|no errors?|no clinically (?:in)?significant errors?)"
    r"(?:[ \t]+(?:were[ \t]+)?(?:found|identified|detected))?",
)
_NO_MATCHES = re.compile(r"none|no matched findings?|no findings? matched|no matching findings?")
_EMPHASIS = str.maketrans("", "", "*_`")


def _canonical_section(name: str) -> str:
    spaced = " ".join(name.split()).lower()
    return next(section for section in SECTIONS if section.lower() == spaced)


def _plain(text: str) -> str:
    """Lower-case `text` without markdown emphasis, outer whitespace or a final full stop."""
    return " ".join(text.translate(_EMPHASIS).split()).rstrip(".").strip().lower()


def _normalized_name(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


_NAME_TO_LETTER = {_normalized_name(name): letter for letter, name in CATEGORY_NAMES.items()}


def _split_sections(text: str) -> dict[str, list[str]]:
    """Map each section present to its body lines; text before the first header is ignored."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        header = _HEADER.match(line)
        if header is None:
            if current is not None:
                current.append(line)
            continue
        name = _canonical_section(header.group("name"))
        if name in sections:
            raise AssessmentFormatError("duplicate_section", name)
        current = [header.group("rest")]
        sections[name] = current
    return sections


def _leading_int(line: str) -> int | None:
    match = _LEADING_INT.match(line)
    return int(match.group("value")) if match else None


def _check_label(section: str, letter: str, label: str) -> None:
    """Refuse a category line whose letter and name disagree, e.g. "(a) Missing a finding ..."."""
    named = _NAME_TO_LETTER.get(_normalized_name(label))
    if named is not None and named != letter:
        raise AssessmentFormatError("mismatched_category", f"{section} ({letter}) is labelled as category ({named})")


def _parse_error_section(section: str, body: list[str]) -> ErrorCounts:
    counts: dict[str, int] = {}
    pending: str | None = None  # category whose count is expected on the next line
    counted_on_next_line: str | None = None
    other_lines: list[str] = []
    for line in body:
        if not line.strip():
            continue
        category = _CATEGORY.match(line)
        if category is not None:
            if pending is not None:
                raise AssessmentFormatError("unreadable_count", f"{section} ({pending}): no count")
            letter = (category.group("paren") or category.group("bare")).lower()
            if letter in counts:
                raise AssessmentFormatError("duplicate_category", f"{section} ({letter})")
            counted_on_next_line = None
            label, colon, after = category.group("rest").partition(":")
            _check_label(section, letter, label)
            value = _leading_int(after) if colon else None
            if value is not None:
                counts[letter] = value
            elif not after.translate(_EMPHASIS).strip() and not re.search(r"\d", label):
                pending = letter
            else:
                raise AssessmentFormatError("unreadable_count", f"{section} ({letter}): {line.strip()!r}")
        elif pending is not None:
            value = _leading_int(line)
            if value is None:
                raise AssessmentFormatError("unreadable_count", f"{section} ({pending}): {line.strip()!r}")
            counts[pending] = value
            counted_on_next_line, pending = pending, None
        elif counted_on_next_line is not None and _NUMBERED_LINE.match(line):
            # "(b) Missing ...:\n1. x\n2. y" is a numbered list, not a count of 1.
            raise AssessmentFormatError(
                "unreadable_count",
                f"{section} ({counted_on_next_line}): numbered list, not a count",
            )
        else:
            other_lines.append(line)
    if pending is not None:
        raise AssessmentFormatError("unreadable_count", f"{section} ({pending}): no count")
    if not counts:
        if other_lines and _NO_ERRORS.fullmatch(_plain(" ".join(other_lines))):
            return ErrorCounts()
        raise AssessmentFormatError("unreadable_section", f"{section}: no category lines and no 'no errors' statement")
    missing = [letter for letter in ERROR_CATEGORIES if letter not in counts]
    if missing:
        raise AssessmentFormatError("missing_category", f"{section}: " + ", ".join(f"({letter})" for letter in missing))
    return ErrorCounts(**counts)


def _parse_matched(body: list[str]) -> int:
    lines = [line for line in body if line.strip()]
    if not lines:
        raise AssessmentFormatError("missing_matched_count", f"{SECTION_MATCHED}: empty")
    value = _leading_int(lines[0])
    if value is None:
        if _NO_MATCHES.fullmatch(_plain(lines[0])):
            return 0
        raise AssessmentFormatError("missing_matched_count", f"{SECTION_MATCHED}: {lines[0].strip()!r}")
    if any(_NUMBERED_LINE.match(line) for line in lines[1:]):
        raise AssessmentFormatError("ambiguous_matched_count", f"{SECTION_MATCHED}: numbered list instead of a count")
    return value


def _parse_score(body: list[str]) -> float:
    lines = [line for line in body if line.strip()]
    if not lines:
        raise AssessmentFormatError("missing_score", f"{SECTION_SCORE}: empty")
    match = _SCORE.match(lines[0])
    if match is None:
        raise AssessmentFormatError("unreadable_score", f"{SECTION_SCORE}: {lines[0].strip()!r}")
    if any(_BARE_NUMBER.match(line) for line in lines[1:]):
        raise AssessmentFormatError("unreadable_score", f"{SECTION_SCORE}: more than one number")
    value = float(match.group("value"))
    if not 0.0 <= value <= 1.0:
        raise AssessmentFormatError("score_out_of_range", f"{SECTION_SCORE}: {value}")
    return value


def parse_score_answer(text: str) -> float:
    """Read an answer that is only an overall accuracy score (a fine-tuned score-only judge).

    Raises:
        AssessmentFormatError: `empty_answer`, `unreadable_score` or `score_out_of_range`.
    """
    if not text or not text.strip():
        raise AssessmentFormatError("empty_answer", "the answer is empty")
    return _parse_score(text.replace("\r\n", "\n").split("\n"))


def parse_assessment(text: str, *, require_score: bool) -> Assessment:
    """Read a judge answer written in the GREEN/VERT output format.

    Args:
        text: The judge's answer, and nothing else (no prompt echo).
        require_score: Whether an `[Overall Accuracy Score]` section must be present (VERT,
            formula and rubric prompts). When False a score section is still read if present.

    Returns:
        The assessment. `explanation` is None when the answer has no explanation section.

    Raises:
        AssessmentFormatError: When any count or the score cannot be read without guessing;
            `reason` is one of `FORMAT_ERROR_REASONS`.
    """
    if not text or not text.strip():
        raise AssessmentFormatError("empty_answer", "the answer is empty")
    sections = _split_sections(text.replace("\r\n", "\n").replace("\r", "\n"))
    for required in (SECTION_SIGNIFICANT, SECTION_INSIGNIFICANT, SECTION_MATCHED):
        if required not in sections:
            raise AssessmentFormatError("missing_section", required)
    if require_score and SECTION_SCORE not in sections:
        raise AssessmentFormatError("missing_score", f"{SECTION_SCORE}: section absent")
    explanation = sections.get(SECTION_EXPLANATION)
    return Assessment(
        significant=_parse_error_section(SECTION_SIGNIFICANT, sections[SECTION_SIGNIFICANT]),
        insignificant=_parse_error_section(SECTION_INSIGNIFICANT, sections[SECTION_INSIGNIFICANT]),
        matched=_parse_matched(sections[SECTION_MATCHED]),
        score=_parse_score(sections[SECTION_SCORE]) if SECTION_SCORE in sections else None,
        explanation="\n".join(explanation).strip() if explanation is not None else None,
    )
