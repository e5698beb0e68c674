"""What CRIMSON adds to `metric_suite` and to every task that scores with the families' suite judges: its judge
under the suite's judge settings."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Scorer

from radiology_tasks.core.family import SuiteMetric
from radiology_tasks.crimson.scorer import crimson_judge
from radiology_tasks.scorers.crimson.reading import MAIN_KEY


def judge_scorer(settings: Mapping[str, Any]) -> Scorer:
    """The `crimson_judge` scorer under the suite's judge settings."""
    return crimson_judge(
        constrain=settings["constrain"],
        judge_retries=settings["judge_retries"],
        unscored=settings["unscored"],
        max_tokens=settings["judge_max_tokens"],
    )


SUITE: dict[str, SuiteMetric] = {"crimson": SuiteMetric((MAIN_KEY,), judge_scorer)}
"""The suite's CRIMSON metric (needs ``--model-role grader=...``)."""
