"""What a CRIMSON run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import ExpertPresence, preference_agreement, report_truncated
from radiology_tasks.core.run_metrics import judged_score_metrics
from radiology_tasks.scorers.crimson.reading import MAIN_KEY


def crimson_metrics(experts: ExpertPresence, *, generate: bool) -> ReportMetrics:
    """The run's summary (the mean CRIMSON score and its interval; where experts rated the candidates judged,
    Kendall's tau with their score and the pairwise preference accuracy; the unscored share; the judge's cost) and
    the report's metrics (agreement with every truth the experts' data carries, the preference counts, parse
    failures, retries and truncations)."""
    preference = [preference_agreement(MAIN_KEY, brief=True)] if experts.preferences else []
    judged = judged_score_metrics([MAIN_KEY], experts, headline_extra=preference)
    truncated = [report_truncated()] if generate else []
    return ReportMetrics(headline=judged.headline, secondary=[*judged.secondary, *truncated])


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): as the task chooses them, with the experts' data
    its samples record."""
    return crimson_metrics(ExpertPresence.of_samples(samples), generate=bool(task_args.get("generate")))
