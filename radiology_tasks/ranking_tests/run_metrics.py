"""What a ranking run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import judge_calls, parse_failure_rate, unscored_share
from radiology_tasks.ranking_tests.metrics import category_accuracy, ranking_accuracy, unscored_reasons
from radiology_tasks.ranking_tests.scorer import ACCURACY
from radiology_tasks.scorers.lexical import LEXICAL_KEYS


def explain(metric: str, key: str, samples: Sequence[SampleScore]) -> str | None:
    """Why a category has no accuracy: every one of its cases is unscored."""
    if metric.split("/")[-1] == "category_accuracy":
        return f"every case of this category is unscored ({key.removesuffix('_accuracy')})"
    return None


def ranking_metrics(*, judged: bool) -> ReportMetrics:
    """The summary (accuracy with its interval, the tie and unscored shares, the judge's cost) and the report's
    metrics (accuracy per category, unscored cases per reason, the judge's parse failures, retries and tokens)."""
    headline: list[Metric] = [ranking_accuracy(), unscored_share(ACCURACY)]
    secondary: list[Metric] = [category_accuracy(), unscored_reasons()]
    if judged:
        headline.append(judge_calls(brief=True))
        secondary += [parse_failure_rate(ACCURACY), judge_calls()]
    return ReportMetrics(headline=headline, secondary=secondary, explain=explain)


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): a judge's cost only when the tested metric has a
    judge."""
    return ranking_metrics(judged=str(task_args.get("metric") or "rouge_l") not in LEXICAL_KEYS)
