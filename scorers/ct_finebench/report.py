"""One report's graded questions: the report score, the counts, and the table shown in the log viewer.

Three outcomes per question, kept apart on purpose:

- graded: a grade of 0, 0.5 or 1 (by code for numeric answers, by the judge otherwise);
- unanswered: the candidate report does not state it (the judge answered null). This is a real 0, graded by
  code without a judge call, and counted in the unanswered share;
- unscored: no usable answer could be had from the judge (unreadable after re-asking, context exceeded...).
  Not a 0: it has a reason and is left out of the report's mean.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

GradedBy = Literal["code", "judge"]


@dataclass(frozen=True)
class GradedQuestion:
    """What became of one question of a report.

    Attributes:
        id: The question id (``q1``, ...).
        question: The question text.
        finding: The finding it asks about.
        attribute: The attribute it asks about (size, location, ...).
        answer_type: ``existence``, ``categorical``, ``location``, ``numeric`` or ``other``.
        reference_answer: The benchmark's answer.
        extracted_answer: The answer taken from the candidate report; None when it does not state it or when
            the extraction judge gave no usable answer.
        answered: Whether the candidate states an answer; None when the extraction is unscored.
        grade: 0.0, 0.5 or 1.0; None when unscored.
        graded_by: ``code`` (numeric answers, unanswered questions) or ``judge``; None when unscored.
        unscored_reason: Reason code when unscored (`radiology_tasks.core.unscored`).
        unscored_detail: What went wrong, for people.
    """

    id: str
    question: str
    finding: str | None
    attribute: str | None
    answer_type: str
    reference_answer: str
    extracted_answer: str | None
    answered: bool | None
    grade: float | None
    graded_by: GradedBy | None
    unscored_reason: str | None = None
    unscored_detail: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form for `Score.metadata`."""
        return asdict(self)


@dataclass(frozen=True)
class ReportOutcome:
    """A report's score over its graded questions and its counts.

    Attributes:
        score: Mean grade over the graded questions; None when none is graded.
        total: Questions of the report.
        graded: Questions with a grade (unanswered ones included: they are graded 0).
        unanswered: Questions the candidate does not state.
        unscored: Questions without a grade.
        unscored_reason: When no question is graded: the most frequent reason code, and a detail line.
    """

    score: float | None
    total: int
    graded: int
    unanswered: int
    unscored: int
    unscored_reason: tuple[str, str] | None

    def counts(self) -> dict[str, int]:
        """The counts under their `Score.metadata` keys."""
        return {
            "questions_total": self.total,
            "questions_graded": self.graded,
            "questions_unanswered": self.unanswered,
            "questions_unscored": self.unscored,
        }


def report_outcome(questions: Sequence[GradedQuestion]) -> ReportOutcome:
    """The report score (mean over graded questions) and counts; unscored questions do not count as 0."""
    grades = [q.grade for q in questions if q.grade is not None]
    reasons = Counter(q.unscored_reason for q in questions if q.grade is None)
    reason = None
    if not grades:
        if reasons:
            code, count = reasons.most_common(1)[0]
            listed = ", ".join(f"{name} x{n}" for name, n in reasons.most_common())
            reason = (str(code), f"no question of {len(questions)} could be graded ({listed})")
        else:
            reason = ("no_questions", "the report has no questions")
    return ReportOutcome(
        score=sum(grades) / len(grades) if grades else None,
        total=len(questions),
        graded=len(grades),
        unanswered=sum(1 for q in questions if q.answered is False),
        unscored=len(questions) - len(grades),
        unscored_reason=reason,
    )


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def _grade_cell(question: GradedQuestion) -> tuple[str, str]:
    if question.grade is None:
        return f"unscored: {question.unscored_reason}", "-"
    how = "code (unanswered)" if question.answered is False else str(question.graded_by)
    return f"{question.grade:g}", how


def explanation_table(questions: Sequence[GradedQuestion]) -> str:
    """A Markdown table, one row per question: reference and extracted answers, grade and how it was graded."""
    lines = [
        "| id | type | attribute | question | reference answer | extracted answer | grade | graded by |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for question in questions:
        if question.answered is False:
            extracted = "(not stated)"
        elif question.answered is None:
            extracted = "(no answer from the judge)"
        else:
            extracted = _cell(question.extracted_answer)
        grade, how = _grade_cell(question)
        lines.append(
            f"| {question.id} | {question.answer_type} | {_cell(question.attribute)} | {_cell(question.question)} "
            f"| {_cell(question.reference_answer)} | {extracted} | {grade} | {how} |"
        )
    return "\n".join(lines)
