"""The `qa_comparison` scorer: grade the extracted answers against the benchmark's, numeric ones in code."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import expert_metadata, parse_failure_rate
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.unscored import UnscoredPolicy, judged_score
from radiology_tasks.ct_finebench.asking import IdOutcome, QAJudge
from radiology_tasks.ct_finebench.extraction import QAExtraction, step_metadata
from radiology_tasks.ct_finebench.records import QARecord
from radiology_tasks.scorers.ct_finebench.answers import read_grades
from radiology_tasks.scorers.ct_finebench.contracts import comparison_contract
from radiology_tasks.scorers.ct_finebench.questions import Question, numbered_questions
from radiology_tasks.scorers.ct_finebench.report import GradedQuestion, ReportOutcome, explanation_table, report_outcome
from radiology_tasks.scorers.numeric import grade_numeric
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

SCORE_KEY = "ct_finebench"
"""The key of `Score.value`: the report's mean grade over its graded questions."""


def _prompt(items: dict[str, dict[str, str]], ids: Sequence[str]) -> str:
    return render("ct_finebench/compare", items=[items[key] for key in ids])


async def compare_answers(items: dict[str, dict[str, str]], judge: QAJudge) -> IdOutcome[float]:
    """Ask the grader to grade candidate answers against reference answers: all at once, or one call each.

    Args:
        items: ``id -> {id, question, reference, candidate}``, every text already neutralised.
        judge: The question mode (``batch``: one call; ``per_question``: one call per item) and judge options.
    """
    return await judge.ask(partial(_prompt, items), comparison_contract, read_grades, list(items))


def graded_question(question: Question, extracted: str | None, **outcome: Any) -> GradedQuestion:
    """One question's outcome, with the question's own fields filled in (`outcome`: grade, answered, ...)."""
    qa = question.qa
    return GradedQuestion(
        id=question.id,
        question=qa.question,
        finding=qa.finding,
        attribute=qa.attribute,
        answer_type=question.answer_type,
        reference_answer=qa.answer,
        extracted_answer=extracted,
        **outcome,
    )


def unscored_question(question: Question, extracted: str | None, reason: str, detail: str) -> GradedQuestion:
    """A question left without a grade, with the reason code and what went wrong."""
    return graded_question(
        question,
        extracted,
        answered=None if extracted is None else True,
        grade=None,
        graded_by=None,
        unscored_reason=reason,
        unscored_detail=detail,
    )


def graded_without_judge(
    question: Question, answers: Mapping[str, str | None], unscored: Mapping[str, Sequence[str]]
) -> GradedQuestion | None:
    """The outcome of a question that needs no comparison call, or None when the judge must grade it.

    Unscored extractions stay unscored, unanswered questions are 0 and numeric answers are graded in code.

    Args:
        question: The question.
        answers: ``id -> extracted answer`` (None: the candidate does not state it) for every extracted id.
        unscored: ``id -> (reason code, detail)`` for every id the extraction judge gave no usable answer to.
    """
    if question.id in unscored:
        reason, detail = unscored[question.id]
        return unscored_question(question, None, reason, f"answer extraction: {detail}")
    extracted = answers[question.id]
    if extracted is None:
        return graded_question(question, None, answered=False, grade=0.0, graded_by="code")
    numeric = grade_numeric(question.qa.answer, extracted) if question.graded_in_code else None
    if numeric is None:
        return None
    return graded_question(question, extracted, answered=True, grade=numeric, graded_by="code")


def report_missing(report: ReportOutcome) -> dict[str, tuple[str, str]]:
    """The reason the report score is missing (`judged_score`'s ``missing``): none when a question is graded."""
    return {} if report.score is not None else {SCORE_KEY: report.unscored_reason or ("no_questions", "")}


NO_RESPONSE: dict[str, tuple[str, str]] = {SCORE_KEY: ("no_response", "the candidate report is empty")}
"""`judged_score`'s ``missing`` for an empty candidate report, which no judge is asked about."""


def _item(question: Question, extracted: str) -> dict[str, str]:
    """One comparison item; every text is neutralised, the extracted answer above all (the candidate wrote it)."""
    return {
        "id": question.id,
        "question": neutralize_candidate(question.qa.question),
        "reference": neutralize_candidate(question.qa.answer),
        "candidate": neutralize_candidate(extracted),
    }


def _judge_totals(steps: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The judge's cost over both steps under the keys `radiology_tasks.core.metrics.judge_calls` reads."""
    return {
        "judge_calls": sum(step.get("calls", 0) for step in steps.values()),
        "judge_input_tokens": sum(step.get("input_tokens", 0) for step in steps.values()),
        "judge_output_tokens": sum(step.get("output_tokens", 0) for step in steps.values()),
        "judge_retried": any(step.get("retried") for step in steps.values()),
        "judge_truncated": any(step.get("truncated") for step in steps.values()),
    }


async def grade_questions(
    questions: list[Question], extraction: QAExtraction, judge: QAJudge
) -> tuple[list[GradedQuestion], dict[str, dict[str, Any]]]:
    """Every question's outcome, in order (the judge grades what code cannot), and each judge step's metadata."""
    graded: dict[str, GradedQuestion] = {}
    to_judge: dict[str, Question] = {}
    for question in questions:
        outcome = graded_without_judge(question, extraction.answers, extraction.unscored)
        if outcome is None:
            to_judge[question.id] = question
        else:
            graded[question.id] = outcome
    steps = {"extraction": extraction.judge}
    if to_judge:
        answers = {key: extraction.answers[key] or "" for key in to_judge}
        comparison = await compare_answers({key: _item(q, answers[key]) for key, q in to_judge.items()}, judge)
        steps["comparison"] = step_metadata(comparison)
        for key, question in to_judge.items():
            if key in comparison.values:
                grade = comparison.values[key]
                graded[key] = graded_question(question, answers[key], answered=True, grade=grade, graded_by="judge")
            else:
                reason, detail = comparison.missing[key]
                graded[key] = unscored_question(question, answers[key], reason, f"answer comparison: {detail}")
    return [graded[question.id] for question in questions], steps


def _recorded(
    value: float | None,
    missing: dict[str, tuple[str, str]],
    policy: UnscoredPolicy,
    metadata: Mapping[str, object],
    **shown: str,
) -> Score:
    """The report's score (`judged_score`), its metadata written as a `QARecord` (a key the record does not declare
    is refused); `shown` holds the answer and explanation."""
    score = judged_score(
        {SCORE_KEY: value}, missing, policy=policy, bounded={SCORE_KEY}, metadata=dict(metadata), **shown
    )
    score.metadata = QARecord.written(score.metadata or {})
    return score


@scorer(metrics=[parse_failure_rate(SCORE_KEY)])
def qa_comparison(judge: QAJudge | None = None) -> Scorer:
    """Grade each answer of the `qa_extraction` solver against the reference answer with 0, 0.5 or 1.

    Numeric answers are graded in code (`scorers.ct_finebench.grade_numeric`); a question the candidate does
    not answer is 0 without a judge call; the other answers of a report are graded by one `grader` call
    (``per_question``: one call each). The report score is the mean over graded questions; a question the
    judge gave no usable answer for is unscored with its reason, not 0.

    Args:
        judge: The question mode (see `QAMode`) and the task's judge options, whole (constraint, answer budget,
            re-asks; a report without any graded question counts as 0 under ``worst`` or is left out of the means
            under ``exclude``); None: batch mode and the default options.
    """
    judge = judge or QAJudge("batch", JudgeOptions())
    options = judge.judge

    async def score(state: TaskState, target: Target) -> Score:
        pair = state.metadata_as(ReportPair)
        extraction = state.store_as(QAExtraction)
        if not extraction.done:
            raise RuntimeError("the qa_comparison scorer needs the qa_extraction solver to run first")
        metadata: dict[str, Any] = {"qa_mode": judge.qa_mode, **expert_metadata(pair)}
        if extraction.no_response:
            return _recorded(None, NO_RESPONSE, options.unscored, metadata)
        ordered, steps = await grade_questions(numbered_questions(pair.qa), extraction, judge)
        report = report_outcome(ordered)
        metadata |= {
            **report.counts(),
            "questions": [question.as_dict() for question in ordered],
            **_judge_totals(steps),
            "extraction_judge": steps["extraction"],
            "comparison_judge": steps.get("comparison"),
        }
        answer = state.output.completion if state.output else ""
        shown = {"answer": answer, "explanation": explanation_table(ordered)}
        return _recorded(report.score, report_missing(report), options.unscored, metadata, **shown)

    return score
