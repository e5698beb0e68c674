"""Hooks of the CT-FineBench lm-eval task: the model under test answers a report's questions from the candidate.

The prompt is the Inspect task's answer-extraction prompt (all questions at once, as ``qa_mode=batch``), and
the answer is read by the same `read_extraction`. Grading differs from the Inspect task only where that task
asks a judge: numeric answers are graded by the same `grade_numeric`, a question the candidate does not answer
is 0, and every other answer is graded by `scorers.text_match` (normalised exact or synonym
match, 1 or 0) instead of the judge's comparison. The report score is the same mean over graded questions
(`report_outcome`); a report with no readable answer counts as 0 (``unscored=worst``) and as a parse failure.
Its documents are the pairs with a candidate and questions (`pairs_with_questions`).
"""

from __future__ import annotations

import math
from typing import Any, cast

from radiology_tasks.core.unscored import ANSWER_FORMAT_REASONS, is_filled_in, judged_score, unscored_reason
from radiology_tasks.ct_finebench.asking import INVALID_RESPONSE_FORMAT
from radiology_tasks.ct_finebench.extraction import extraction_prompt
from radiology_tasks.ct_finebench.scorer import SCORE_KEY, graded_question
from radiology_tasks.lm_eval_tasks.documents import documents_where, report_pair
from radiology_tasks.scorers.ct_finebench.answers import read_extraction
from radiology_tasks.scorers.ct_finebench.questions import Question, numbered_questions
from radiology_tasks.scorers.ct_finebench.report import GradedQuestion, report_outcome
from radiology_tasks.scorers.numeric import grade_numeric
from radiology_tasks.scorers.text_match import grade_text


def pairs_with_questions(**metadata: Any) -> dict[str, Any]:
    """Pairs with a candidate report and CT-FineBench questions (reports without questions are left out)."""
    return documents_where(
        metadata,
        lambda pair: bool(pair.qa),
        having="questions (a 'qa' list)",
        left_out="no questions",
        require_candidate=True,
    )


def document_prompt(doc: dict[str, Any]) -> str:
    """The Inspect task's answer-extraction prompt for every question of the document's report."""
    pair = report_pair(doc)
    return extraction_prompt(numbered_questions(pair.qa), pair.candidate or "")


def grade_questions(questions: list[Question], answer: str) -> list[GradedQuestion]:
    """Each question's outcome from one extraction answer, graded without a judge."""
    reading = read_extraction(answer, [question.id for question in questions])
    graded = []
    for question in questions:
        problem = reading.format_problem or reading.id_problems.get(question.id)
        if question.id not in reading.values:
            unscored = {"unscored_reason": INVALID_RESPONSE_FORMAT, "unscored_detail": f"answer extraction: {problem}"}
            graded.append(graded_question(question, None, grade=None, answered=None, graded_by=None, **unscored))
            continue
        extracted = reading.values[question.id]
        if extracted is None:
            graded.append(graded_question(question, None, grade=0.0, answered=False, graded_by="code"))
            continue
        numeric = grade_numeric(question.qa.answer, extracted) if question.graded_in_code else None
        grade = numeric if numeric is not None else grade_text(question.qa.answer, extracted)
        graded.append(graded_question(question, extracted, grade=grade, answered=True, graded_by="code"))
    return graded


def qa_results(doc: dict[str, Any], results: list[str]) -> dict[str, Any]:
    """Per-document values: the report score, whether no answer could be read, the question grades by kind.

    Returns:
        ``ct_finebench`` (0 when no question could be graded), ``parse_failure``, ``numeric_grade`` and
        ``text_grade`` (lists of the grades of answered and unanswered questions of each kind, pooled over
        the corpus), and ``ct_finebench_kendall_tau``/``_spearman`` (judge score or None, expert score or None).
    """
    pair = report_pair(doc)
    questions = numbered_questions(pair.qa)
    graded = grade_questions(questions, results[0])
    report = report_outcome(graded)
    missing = {} if report.score is not None else {SCORE_KEY: report.unscored_reason or ("no_questions", "")}
    score = judged_score({SCORE_KEY: report.score}, missing, policy="worst", bounded={SCORE_KEY})
    # `judged_score` gives a dict of scores; Inspect's Score.value admits other shapes.
    value = cast(dict[str, float], score.value)[SCORE_KEY]
    judged = None if is_filled_in(score.metadata, SCORE_KEY) or math.isnan(value) else value
    expert = pair.expert.normalized_score if pair.expert else None
    by_kind: dict[str, list[float]] = {"numeric_grade": [], "text_grade": []}
    for question, outcome in zip(questions, graded, strict=True):
        if outcome.grade is not None:
            by_kind["numeric_grade" if question.graded_in_code else "text_grade"].append(outcome.grade)
    return {
        SCORE_KEY: value,
        "parse_failure": 1.0 if unscored_reason(score.metadata, SCORE_KEY) in ANSWER_FORMAT_REASONS else 0.0,
        **by_kind,
        f"{SCORE_KEY}_kendall_tau": (judged, expert),
        f"{SCORE_KEY}_spearman": (judged, expert),
    }
