"""What a report-generation run logs (its summary) and what `radiology-tasks report` adds: the same for every run."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.report_generation.scorer import report_metrics as generation_metrics


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): those its task logs, whatever its arguments."""
    return generation_metrics()
