"""CRIMSON as a family: one judge call per report pair lists and weighs the abnormal findings; the score is code's."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.core.family import ReportMetrics


class Crimson(RescoredFamily):
    """The crimson family."""

    name = "crimson"
    tasks_module = "radiology_tasks.crimson.tasks"
    tasks = ("crimson",)
    version = "1.1.0"
    templates = ("crimson",)
    layouts = ("radiology_tasks.crimson.layouts.radpref",)
    mutation_tested = ("layouts/*.py",)
    scorer_modules = ("radiology_tasks.crimson.scorer",)
    suite_module = "radiology_tasks.crimson.suite"
    rescoring_module = "radiology_tasks.crimson.rescoring"

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, as the task chooses them (experts: from what the samples record)."""
        from radiology_tasks.core.metrics import ExpertPresence
        from radiology_tasks.crimson.run_metrics import crimson_metrics

        return crimson_metrics(ExpertPresence.of_samples(samples), generate=bool(task_args.get("generate")))


FAMILY = Crimson()
