"""What CRIMSON adds to `metric_suite` and to every task that scores with the families' suite judges: its judge
under the suite's judge settings."""

from __future__ import annotations

from inspect_ai.scorer import Scorer

from radiology_tasks.core.family import SuiteJudge, SuiteMetric
from radiology_tasks.crimson.scorer import crimson_judge
from radiology_tasks.scorers.crimson.reading import MAIN_KEY


def judge_scorer(suite: SuiteJudge) -> Scorer:
    """The `crimson_judge` scorer under the suite's judge settings, given whole."""
    return crimson_judge(judge=suite.judge)


SUITE: dict[str, SuiteMetric] = {"crimson": SuiteMetric((MAIN_KEY,), judge_scorer)}
"""The suite's CRIMSON metric (needs ``--model-role grader=...``)."""
