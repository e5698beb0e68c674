"""The baselines as a family: lexical metrics against the reference, offline, no judge."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore


class Baselines(RescoredFamily):
    """The baselines family."""

    name = "baselines"
    tasks_module = "radiology_tasks.baselines.tasks"
    tasks = ("baselines",)
    version = "1.5.0"
    side_args = ("baselines",)
    rescoring_module = "radiology_tasks.baselines.rescoring"

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, for the score keys its samples hold (in the order scored)."""
        from radiology_tasks.suite.run_metrics import sample_metrics

        return sample_metrics(samples, sensitivity=None)


FAMILY = Baselines()
