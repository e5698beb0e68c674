"""What a CRIMSON run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.scorer import Metric, SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import (
    expert_agreement,
    judge_calls,
    mean_interval,
    mean_of,
    parse_failure_rate,
    report_truncated,
    unscored_share,
)
from radiology_tasks.crimson.metrics import preference_agreement, preference_rows
from radiology_tasks.scorers.crimson.reading import MAIN_KEY


def crimson_metrics(*, with_expert: bool, generate: bool) -> ReportMetrics:
    """The run's summary (the mean CRIMSON score and its interval; where experts rated the candidates judged,
    Kendall's tau and the pairwise preference accuracy; the unscored share; the judge's cost) and the report's
    metrics (every agreement statistic, the preference counts, parse failures, retries and truncations)."""
    headline: list[Metric] = [mean_of(MAIN_KEY), mean_interval(MAIN_KEY)]
    secondary: list[Metric] = []
    if with_expert:
        headline += [expert_agreement(MAIN_KEY, brief=True), preference_agreement(brief=True)]
        secondary += [expert_agreement(MAIN_KEY), preference_agreement()]
    headline += [unscored_share(MAIN_KEY), judge_calls(brief=True)]
    secondary += [parse_failure_rate(MAIN_KEY), judge_calls()]
    if generate:
        secondary.append(report_truncated())
    return ReportMetrics(headline=headline, secondary=secondary, explain=explain_undefined)


def explain_undefined(metric: str, key: str, samples: Sequence[SampleScore]) -> str | None:
    """Why the preference accuracy is undefined on these samples (None for another metric's figure)."""
    if not metric.endswith("/preference_agreement"):
        return None
    rows = preference_rows(samples)
    return (
        f"no two of the {len(rows)} samples the judge scored and the experts rated share a reference with "
        "different expert scores, so there is no preference to agree with"
    )
