"""Report generation as a family: one task that writes the reports every judge task can then replay.

Its logs are not submitted to the leaderboard themselves (it does not implement `Submittable`): they are the
candidates of the judged runs that are (`-T candidates=LOG.eval`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import Family, ReportMetrics

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore


class ReportGeneration(Family):
    """The report_generation family."""

    name = "report_generation"
    tasks_module = "radiology_tasks.report_generation.tasks"
    tasks = ("report_generation",)
    generation_tasks = ("report_generation",)
    version = "1.3.0"
    scorer_modules = ("radiology_tasks.report_generation.scorer",)

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics (the same for every run)."""
        from radiology_tasks.report_generation.scorer import report_metrics

        return report_metrics()


FAMILY = ReportGeneration()
