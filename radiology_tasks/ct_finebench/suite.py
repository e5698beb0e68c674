"""What CT-FineBench adds to `metric_suite`: the answer-extraction solver, the comparison scorer, and the check
that every row has questions to ask."""

from __future__ import annotations

from inspect_ai.scorer import Scorer
from inspect_ai.solver import Solver

from radiology_tasks.core.family import SuiteJudge, SuiteMetric
from radiology_tasks.core.records import ReportPair
from radiology_tasks.ct_finebench.asking import QAJudge
from radiology_tasks.ct_finebench.extraction import qa_extraction
from radiology_tasks.ct_finebench.options import qa_mode_param
from radiology_tasks.ct_finebench.scorer import SCORE_KEY, qa_comparison


def _asking(suite: SuiteJudge) -> QAJudge:
    """The suite's question mode and judge options, as the CT-FineBench solver and scorer take them."""
    return QAJudge(qa_mode_param(suite.qa_mode), suite.judge)


def comparison_scorer(suite: SuiteJudge) -> Scorer:
    """The `qa_comparison` scorer under the suite's judge settings."""
    return qa_comparison(_asking(suite))


def extraction_solver(suite: SuiteJudge) -> Solver:
    """The `qa_extraction` solver under the suite's judge settings; it must run before the scorer."""
    return qa_extraction(_asking(suite))


def rows_without_questions(pairs: list[ReportPair]) -> str | None:
    """Why the rows cannot be scored: some have no questions (a ``qa`` list); None when every row has some."""
    without = [p.id for p in pairs if not p.qa]
    if not without:
        return None
    return (
        f"ct_finebench needs questions (a 'qa' list) on every row; {len(without)} of {len(pairs)} rows have "
        f"none, the first '{without[0]}' (give -T data with questions, e.g. -T data=ct-finebench "
        "-T reports=FILE)"
    )


SUITE: dict[str, SuiteMetric] = {
    "ct_finebench": SuiteMetric((SCORE_KEY,), comparison_scorer, extraction_solver, rows_without_questions),
}
"""The suite's CT-FineBench metric (needs ``--model-role grader=...`` and questions on every row)."""
