"""Read a GREEN/VERT-style judge answer into error counts, matched findings and a score.

The reader is tolerant of the cosmetic habits of real judge models (markdown around headers, blank
lines, CRLF, categories out of order, counts on the next line, ...) and strict about anything that would
force it to guess a number. Each part of the answer (the two error sections, the matched count, the
score) is read on its own: `read_answer` returns what it could read and, for each other part, an
`AssessmentFormatError` with a stable machine-readable reason, so a scorer leaves unscored only the scores
that need an unreadable part. `parse_assessment` is the all-or-nothing form.

Two reading rules protect the score from the candidate report, which the judge sometimes quotes:

- A section whose text also appears in the candidate (raw, or as neutralised for the prompt; whitespace,
  markdown emphasis and bracket style ignored) is a quotation, not a verdict, and is ignored
  (`AnswerReading.quoted_sections`).
- If a section still appears more than once and the occurrences say different things, that part is
  unreadable (``conflicting_verdicts``): nothing decides which one is the judge's.

``missing_categories`` chooses how terse answers read. ``zero`` follows GREEN's reference parser: a
category line absent from a present error section counts 0 (recorded in `AnswerReading.filled_categories`)
and a section body that starts with "No"/"None" means no errors. ``strict`` refuses both. A missing
*section* is unreadable in both modes.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, TypeVar, cast, get_args

from pydantic import BaseModel, ConfigDict

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES, ErrorCounts
from radiology_tasks.scorers.untrusted import neutralize_candidate

MissingCategories = Literal["zero", "strict"]
"""How an error section that leaves out categories, or says only "No errors.", is read (see module doc)."""

MISSING_CATEGORIES: tuple[MissingCategories, ...] = get_args(MissingCategories)

FormatErrorReason = Literal[
    "empty_answer",
    "missing_section",
    "conflicting_verdicts",
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
- ``missing_section``: a section header is absent, or present only in quotations of the candidate
  (detail: the section).
- ``conflicting_verdicts``: a section appears more than once, outside quotations of the candidate, and
  the occurrences differ (detail: the section).
- ``unreadable_section``: an error section has neither category lines nor a "no errors" phrase.
- ``missing_category``: an error section with category lines lacks one of (a)-(f) (``strict`` only).
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
# GREEN's reference parser reads a section body that starts with "No" as "nothing here".
_STARTS_WITH_NO = re.compile(r"^[ \t*_`]*(?:no|none|nothing|nil)\b", re.IGNORECASE)
_EMPHASIS = str.maketrans("", "", "*_`")
# What a quotation may differ by from the text it quotes: markdown emphasis and quote marks, bracket style.
_QUOTE_NOISE = re.compile(r"[*_`>#\s]+")


def _canonical_section(name: str) -> str:
    spaced = " ".join(name.split()).lower()
    return next(section for section in SECTIONS if section.lower() == spaced)


def _plain(text: str) -> str:
    """Lower-case `text` without markdown emphasis, outer whitespace or a final full stop."""
    return " ".join(text.translate(_EMPHASIS).split()).rstrip(".").strip().lower()


def _normalized_name(label: str) -> str:
    return re.sub(r"[^a-z0-9]", "", label.lower())


_NAME_TO_LETTER = {_normalized_name(name): letter for letter, name in CATEGORY_NAMES.items()}


@dataclass(frozen=True)
class _Occurrence:
    """One appearance of a section header and the body lines up to the next header."""

    name: str
    header_line: str
    body: list[str]

    def text(self) -> str:
        return "\n".join([self.header_line, *self.body])


def _occurrences(text: str) -> dict[str, list[_Occurrence]]:
    """Every appearance of each section, in order; text before the first header is ignored."""
    found: dict[str, list[_Occurrence]] = {}
    current: list[str] | None = None
    for line in text.split("\n"):
        header = _HEADER.match(line)
        if header is None:
            if current is not None:
                current.append(line)
            continue
        current = [header.group("rest")]
        name = _canonical_section(header.group("name"))
        found.setdefault(name, []).append(_Occurrence(name, line, current))
    return found


def _quote_key(text: str) -> str:
    """`text` as compared for quotation: neutralised, without markdown or whitespace."""
    return _QUOTE_NOISE.sub("", neutralize_candidate(text))


def _leading_int(line: str) -> int | None:
    match = _LEADING_INT.match(line)
    return int(match.group("value")) if match else None


def _check_label(section: str, letter: str, label: str) -> None:
    """Refuse a category line whose letter and name disagree, e.g. "(a) Missing a finding ..."."""
    named = _NAME_TO_LETTER.get(_normalized_name(label))
    if named is not None and named != letter:
        raise AssessmentFormatError("mismatched_category", f"{section} ({letter}) is labelled as category ({named})")


def _parse_error_section(
    section: str, body: list[str], mode: MissingCategories, filled: dict[str, list[str]]
) -> ErrorCounts:
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
            counted_on_next_line = None
            pending = _category_count(section, line, category, counts)
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
    return _section_counts(section, counts, other_lines, mode, filled)


def _category_count(section: str, line: str, category: re.Match[str], counts: dict[str, int]) -> str | None:
    """Record the count a category line gives in `counts`; the category's letter when its count is on the next
    line, else None."""
    letter = (category.group("paren") or category.group("bare")).lower()
    if letter in counts:
        raise AssessmentFormatError("duplicate_category", f"{section} ({letter})")
    label, colon, after = category.group("rest").partition(":")
    _check_label(section, letter, label)
    value = _leading_int(after) if colon else None
    if value is not None:
        counts[letter] = value
        return None
    if not after.translate(_EMPHASIS).strip() and not re.search(r"\d", label):
        return letter
    raise AssessmentFormatError("unreadable_count", f"{section} ({letter}): {line.strip()!r}")


def _section_counts(
    section: str, counts: dict[str, int], other_lines: list[str], mode: MissingCategories, filled: dict[str, list[str]]
) -> ErrorCounts:
    """The counts of an error section as read: a section without category lines must say it has no errors; a
    category it leaves out counts 0 (noted in `filled`), or is refused in `strict` mode."""
    if not counts:
        said_none = _NO_ERRORS.fullmatch(_plain(" ".join(other_lines))) or (
            mode == "zero" and _STARTS_WITH_NO.match(other_lines[0] if other_lines else "")
        )
        if said_none:
            return ErrorCounts()
        raise AssessmentFormatError("unreadable_section", f"{section}: no category lines and no 'no errors' statement")
    missing: list[str] = [letter for letter in ERROR_CATEGORIES if letter not in counts]
    if missing and mode == "strict":
        raise AssessmentFormatError("missing_category", f"{section}: " + ", ".join(f"({letter})" for letter in missing))
    if missing:
        filled[section] = missing
    return ErrorCounts(**counts)


def _parse_matched(body: list[str], mode: MissingCategories) -> int:
    lines = [line for line in body if line.strip()]
    if not lines:
        raise AssessmentFormatError("missing_matched_count", f"{SECTION_MATCHED}: empty")
    value = _leading_int(lines[0])
    if value is None:
        if _NO_MATCHES.fullmatch(_plain(lines[0])) or (mode == "zero" and _STARTS_WITH_NO.match(lines[0])):
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


T = TypeVar("T")

Part: TypeAlias = T | AssessmentFormatError
"""One part of an answer: its value, or why it could not be read."""


@dataclass(frozen=True)
class AnswerReading:
    """Each part of a judge answer as far as it could be read.

    Attributes:
        significant: Clinically significant error counts, or why they are unreadable.
        insignificant: Clinically insignificant error counts, or why they are unreadable.
        matched: Matched-findings count, or why it is unreadable.
        score: The overall accuracy score, or why it is unreadable (``missing_score`` when absent).
        explanation: The explanation text, None when there is none.
        filled_categories: For ``missing_categories="zero"``: the categories each section left out and
            that were read as 0.
        quoted_sections: Sections ignored because their text appears in the candidate report.
    """

    significant: Part[ErrorCounts]
    insignificant: Part[ErrorCounts]
    matched: Part[int]
    score: Part[float]
    explanation: str | None
    filled_categories: dict[str, list[str]] = field(default_factory=dict)
    quoted_sections: list[str] = field(default_factory=list)


def _verdict(
    name: str,
    occurrences: list[_Occurrence],
    read: Callable[[list[str]], T],
    missing: AssessmentFormatError,
) -> Part[T]:
    """The one reading of a section's verdicts: absent, unreadable, agreeing or conflicting."""
    if not occurrences:
        return missing
    readings: list[Part[T]] = []
    for occurrence in occurrences:
        try:
            readings.append(read(occurrence.body))
        except AssessmentFormatError as error:
            readings.append(error)
    first = readings[0]
    if all(_same(first, other) for other in readings[1:]):
        return first
    return AssessmentFormatError("conflicting_verdicts", name)


def _same(one: object, other: object) -> bool:
    if isinstance(one, AssessmentFormatError) or isinstance(other, AssessmentFormatError):
        return False
    return one == other


def _drop_quotations(found: dict[str, list[_Occurrence]], candidate: str) -> list[str]:
    """Drop from `found` each section the candidate report holds word for word (a quotation, not a verdict); the
    name of each section dropped, once per occurrence."""
    quotable = _quote_key(candidate)
    quoted: list[str] = []
    for name, occurrences in found.items():
        kept = [o for o in occurrences if _quote_key(o.text()) not in quotable]
        quoted += [name] * (len(occurrences) - len(kept))
        found[name] = kept
    return quoted


def read_answer(
    text: str, *, candidate: str | None = None, missing_categories: MissingCategories = "zero"
) -> AnswerReading:
    """Read every part of a judge answer written in the GREEN/VERT output format.

    Args:
        text: The judge's answer.
        candidate: The candidate report the judge was shown; sections quoting it are ignored.
        missing_categories: ``zero`` (GREEN's reference reading of terse answers) or ``strict``.

    Returns:
        The reading; an empty answer leaves every part ``empty_answer``.
    """
    if missing_categories not in MISSING_CATEGORIES:
        raise ValueError(f"missing_categories must be one of {MISSING_CATEGORIES}, got {missing_categories!r}")
    if not text or not text.strip():
        empty = AssessmentFormatError("empty_answer", "the answer is empty")
        return AnswerReading(empty, empty, empty, empty, None)
    found = _occurrences(text.replace("\r\n", "\n").replace("\r", "\n"))
    quoted = _drop_quotations(found, candidate) if candidate else []
    filled: dict[str, list[str]] = {}

    def error_section(name: str) -> Part[ErrorCounts]:
        return _verdict(
            name,
            found.get(name, []),
            lambda body: _parse_error_section(name, body, missing_categories, filled),
            AssessmentFormatError("missing_section", name),
        )

    significant = error_section(SECTION_SIGNIFICANT)
    insignificant = error_section(SECTION_INSIGNIFICANT)
    matched = _verdict(
        SECTION_MATCHED,
        found.get(SECTION_MATCHED, []),
        lambda body: _parse_matched(body, missing_categories),
        AssessmentFormatError("missing_section", SECTION_MATCHED),
    )
    score = _verdict(
        SECTION_SCORE,
        found.get(SECTION_SCORE, []),
        _parse_score,
        AssessmentFormatError("missing_score", f"{SECTION_SCORE}: section absent"),
    )
    explanations = found.get(SECTION_EXPLANATION, [])
    explanation = "\n".join(explanations[-1].body).strip() if explanations else None
    return AnswerReading(
        significant=significant,
        insignificant=insignificant,
        matched=matched,
        score=score,
        explanation=explanation,
        filled_categories=filled,
        quoted_sections=quoted,
    )


def parse_assessment(
    text: str,
    *,
    require_score: bool,
    candidate: str | None = None,
    missing_categories: MissingCategories = "strict",
) -> Assessment:
    """Read a whole judge answer, or fail on the first part that cannot be read.

    Args:
        text: The judge's answer.
        require_score: Whether an `[Overall Accuracy Score]` section must be present (VERT, formula and
            rubric prompts). When False a score section is still read if present.
        candidate: The candidate report the judge was shown (sections quoting it are ignored).
        missing_categories: ``strict`` (default here: every category of both sections) or ``zero``.

    Returns:
        The assessment. `explanation` is None when the answer has no explanation section.

    Raises:
        AssessmentFormatError: the first unreadable part; `reason` is one of `FORMAT_ERROR_REASONS`.
    """
    reading = read_answer(text, candidate=candidate, missing_categories=missing_categories)
    parts: list[object] = [reading.significant, reading.insignificant, reading.matched]
    absent_score = isinstance(reading.score, AssessmentFormatError) and reading.score.reason == "missing_score"
    if require_score or not absent_score:
        parts.append(reading.score)
    errors = [part for part in parts if isinstance(part, AssessmentFormatError)]
    if errors:
        # A missing section says more about the answer than a count inside a section that is present.
        raise next((e for e in errors if e.reason in ("empty_answer", "missing_section")), errors[0])
    # No part read is an AssessmentFormatError past this point.
    return Assessment(
        significant=cast(ErrorCounts, reading.significant),
        insignificant=cast(ErrorCounts, reading.insignificant),
        matched=cast(int, reading.matched),
        score=None if absent_score else cast(float, reading.score),
        explanation=reading.explanation,
    )
