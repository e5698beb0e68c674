"""What GREEN and VERT add to `metric_suite`: each prompt's judge, with the suite's judge settings."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from inspect_ai.scorer import Scorer

from radiology_tasks.core.family import SuiteMetric
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.task_options import logged_options
from radiology_tasks.report_judge.scorer import report_judge
from radiology_tasks.scorers.report_judge.reading import JudgePrompt


def _judge(prompt: JudgePrompt) -> Callable[[Mapping[str, Any]], Scorer]:
    """A scorer factory for one prompt, reading the settings `metric_suite` passes to every judge."""

    def build(settings: Mapping[str, Any]) -> Scorer:
        return report_judge(prompt, judge=logged_options(JudgeOptions, settings))

    return build


SUITE: dict[str, SuiteMetric] = {
    # VERT's prompt also gives error counts; the suite keeps its direct score only, so they do not clash with GREEN's.
    "green": SuiteMetric(("green", "green_ec", "green_f1"), _judge("green")),
    "vert": SuiteMetric(("vert",), _judge("vert")),
}
"""The suite's GREEN and VERT metrics by name (both need ``--model-role grader=...``)."""
