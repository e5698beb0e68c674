"""What GREEN and VERT add to `metric_suite`: each prompt's judge, with the suite's judge settings."""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.scorer import Scorer

from radiology_tasks.core.family import SuiteJudge, SuiteMetric
from radiology_tasks.report_judge.scorer import report_judge
from radiology_tasks.scorers.report_judge.reading import JudgePrompt


def _judge(prompt: JudgePrompt) -> Callable[[SuiteJudge], Scorer]:
    """A scorer factory for one prompt, under the judge settings `metric_suite` gives every judge."""

    def build(suite: SuiteJudge) -> Scorer:
        return report_judge(prompt, judge=suite.judge)

    return build


SUITE: dict[str, SuiteMetric] = {
    # VERT's prompt also gives error counts; the suite keeps its direct score only, so they do not clash with GREEN's.
    "green": SuiteMetric(("green", "green_ec", "green_f1"), _judge("green")),
    "vert": SuiteMetric(("vert",), _judge("vert")),
}
"""The suite's GREEN and VERT metrics by name (both need ``--model-role grader=...``)."""
