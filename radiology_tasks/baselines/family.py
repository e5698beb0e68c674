"""The baselines as a family: lexical metrics against the reference, offline, no judge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import Family, ReportMetrics

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.leaderboard.rules import Rescoring


class Baselines(Family):
    """The baselines family."""

    name = "baselines"
    tasks_module = "radiology_tasks.baselines.tasks"
    tasks = ("baselines",)
    version = "1.5.0"
    side_args = ("baselines",)

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's task."""
        from radiology_tasks.baselines.rescoring import RESCORING

        return RESCORING

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, for the score keys its samples hold (in the order scored)."""
        from radiology_tasks.suite.run_metrics import sample_metrics

        return sample_metrics(samples, sensitivity=None)


FAMILY = Baselines()
