"""Question ids and answer types, and one report's score, counts and per-question table."""

from __future__ import annotations

import pytest

from radiology_tasks.core.records import QAPair
from radiology_tasks.scorers.ct_finebench.questions import answer_type, metric_name, numbered_questions
from radiology_tasks.scorers.ct_finebench.report import GradedQuestion, explanation_table, report_outcome


def qa(answer: str, attribute: str | None = None, attribute_type: str | None = None) -> QAPair:
    return QAPair(question="Q?", answer=answer, attribute=attribute, attribute_type=attribute_type)


@pytest.mark.parametrize(
    ("pair", "expected"),
    [
        (qa("small", "size", "categorical"), "categorical"),  # the data's type wins
        (qa("8 mm", "size", "location"), "location"),
        (qa("present", "existence"), "existence"),
        (qa("right", "laterality"), "location"),
        (qa("segment 7", "Location"), "location"),
        (qa("12 x 8 mm", "size"), "numeric"),
        (qa("0.8", "RV/LV ratio"), "numeric"),
        (qa("spiculated", "margin"), "categorical"),
        (qa("spiculated"), "categorical"),
    ],
)
def test_answer_type(pair: QAPair, expected: str) -> None:
    assert answer_type(pair) == expected


def test_ids_follow_data_order_and_numeric_questions_with_a_number_are_graded_in_code() -> None:
    questions = numbered_questions([qa("8 mm", "size", "numeric"), qa("small", "size", "numeric"), qa("solid")])
    assert [q.id for q in questions] == ["q1", "q2", "q3"]
    assert [q.graded_in_code for q in questions] == [True, False, False]


@pytest.mark.parametrize(
    ("text", "name"), [("RV/LV diameter ratio", "rv_lv_diameter_ratio"), ("Size", "size"), (None, "unspecified")]
)
def test_metric_name(text: str | None, name: str) -> None:
    assert metric_name(text) == name


def graded(
    key: str, grade: float | None, *, answered: bool | None = True, by: str | None = "judge", **kw
) -> GradedQuestion:
    return GradedQuestion(
        id=key,
        question=f"Question {key}?",
        finding="lung nodule",
        attribute="size",
        answer_type="numeric",
        reference_answer="8 mm",
        extracted_answer=kw.pop("extracted", "9 mm" if answered else None),
        answered=answered,
        grade=grade,
        graded_by=by,  # type: ignore[arg-type]
        **kw,
    )


def test_unscored_questions_are_left_out_of_the_mean_not_counted_as_zero() -> None:
    questions = [
        graded("q1", 1.0),
        graded("q2", 0.0, answered=False, by="code"),
        graded("q3", 0.5),
        graded("q4", None, answered=None, by=None, unscored_reason="invalid_response_format"),
    ]
    outcome = report_outcome(questions)
    assert outcome.score == pytest.approx(0.5)  # (1 + 0 + 0.5) / 3, not / 4
    assert outcome.counts() == {
        "questions_total": 4,
        "questions_graded": 3,
        "questions_unanswered": 1,
        "questions_unscored": 1,
    }
    assert outcome.unscored_reason is None


def test_no_graded_question_leaves_the_report_unscored_with_the_commonest_reason() -> None:
    questions = [
        graded("q1", None, answered=None, by=None, unscored_reason="judge_context_exceeded"),
        graded("q2", None, answered=True, by=None, unscored_reason="invalid_response_format"),
        graded("q3", None, answered=None, by=None, unscored_reason="judge_context_exceeded"),
    ]
    outcome = report_outcome(questions)
    assert outcome.score is None
    assert outcome.unscored_reason == (
        "judge_context_exceeded",
        "no question of 3 could be graded (judge_context_exceeded x2, invalid_response_format x1)",
    )


def test_table_shows_each_question_and_how_it_was_graded() -> None:
    questions = [
        graded("q1", 1.0, by="code", extracted="8 | 9 mm"),
        graded("q2", 0.0, answered=False, by="code"),
        graded("q3", None, answered=None, by=None, unscored_reason="truncated"),
    ]
    assert explanation_table(questions).splitlines() == [
        "| id | type | attribute | question | reference answer | extracted answer | grade | graded by |",
        "|---|---|---|---|---|---|---|---|",
        "| q1 | numeric | size | Question q1? | 8 mm | 8 \\| 9 mm | 1 | code |",
        "| q2 | numeric | size | Question q2? | 8 mm | (not stated) | 0 | code (unanswered) |",
        "| q3 | numeric | size | Question q3? | 8 mm | (no answer from the judge) | unscored: truncated | - |",
    ]
