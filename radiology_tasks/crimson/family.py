"""CRIMSON as a family: one judge call per report pair lists and weighs the abnormal findings; the score is code's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import Family, SuiteMetric

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.core.family import ReportMetrics
    from radiology_tasks.leaderboard.rules import Rescoring


class Crimson(Family):
    """The crimson family."""

    name = "crimson"
    tasks_module = "radiology_tasks.crimson.tasks"
    tasks = ("crimson",)
    version = "1.1.0"
    templates = ("crimson",)
    layouts = ("radiology_tasks.crimson.layouts.radpref",)

    def register(self) -> None:
        """Register the family's scorer with Inspect by name."""
        import radiology_tasks.crimson.scorer  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's task."""
        from radiology_tasks.crimson.rescoring import RESCORING

        return RESCORING

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, as the task chooses them (experts: from what the samples record)."""
        from radiology_tasks.core.metrics import ExpertPresence
        from radiology_tasks.crimson.run_metrics import crimson_metrics

        return crimson_metrics(ExpertPresence.of_samples(samples), generate=bool(task_args.get("generate")))

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """CRIMSON's judge for `metric_suite` and the other tasks that score with the families' suite judges."""
        from radiology_tasks.crimson.suite import SUITE

        return SUITE


FAMILY = Crimson()
