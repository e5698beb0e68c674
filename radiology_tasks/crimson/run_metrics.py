"""What a CRIMSON run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import (
    ExpertPresence,
    agreement_metrics,
    judge_calls,
    mean_interval,
    mean_of,
    parse_failure_rate,
    preference_agreement,
    report_truncated,
    unscored_share,
)
from radiology_tasks.scorers.crimson.reading import MAIN_KEY


def crimson_metrics(experts: ExpertPresence, *, generate: bool) -> ReportMetrics:
    """The run's summary (the mean CRIMSON score and its interval; where experts rated the candidates judged,
    Kendall's tau with their score and the pairwise preference accuracy; the unscored share; the judge's cost) and
    the report's metrics (agreement with every truth the experts' data carries, the preference counts, parse
    failures, retries and truncations)."""
    headline: list[Metric] = [mean_of(MAIN_KEY), mean_interval(MAIN_KEY)]
    headline += agreement_metrics(MAIN_KEY, experts, brief=True)
    if experts.preferences:
        headline.append(preference_agreement(MAIN_KEY, brief=True))
    headline += [unscored_share(MAIN_KEY), judge_calls(brief=True)]
    secondary: list[Metric] = [*agreement_metrics(MAIN_KEY, experts), parse_failure_rate(MAIN_KEY), judge_calls()]
    if generate:
        secondary.append(report_truncated())
    return ReportMetrics(headline=headline, secondary=secondary)


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): as the task chooses them, with the experts' data
    its samples record."""
    return crimson_metrics(ExpertPresence.of_samples(samples), generate=bool(task_args.get("generate")))
