"""What a CT-FineBench run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import ExpertPresence
from radiology_tasks.core.run_metrics import judged_score_metrics
from radiology_tasks.ct_finebench.metrics import question_breakdown
from radiology_tasks.ct_finebench.scorer import SCORE_KEY
from radiology_tasks.lexical import baseline_metrics


def ct_metrics(experts: ExpertPresence, baselines: str | list[str] | None) -> ReportMetrics:
    """The run's summary (the mean grade and its interval, Kendall's tau with the experts, the unscored share, the
    judge's cost) and the report's metrics (the question breakdown, every agreement statistic, parse failures,
    retries, the baselines)."""
    judged = judged_score_metrics([SCORE_KEY], experts)
    secondary = [question_breakdown(), *judged.secondary, *baseline_metrics(baselines, experts=experts)]
    return ReportMetrics(headline=judged.headline, secondary=secondary, explain=explain_undefined)


def explain_undefined(metric: str, key: str, samples: Sequence[SampleScore]) -> str | None:
    """Why a figure of the question breakdown is undefined on these samples (None for another metric's)."""
    if not metric.endswith("/question_breakdown"):
        return None
    if key.startswith("type_") and key.endswith("_mean"):
        kind = key.removeprefix("type_").removesuffix("_mean")
        return f"no graded question has answer type {kind} in these {len(samples)} reports"
    if key == "unanswered_share":
        return "the judge extracted an answer for no question, so no share of unanswered ones can be taken"
    return None


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): as the task chooses them, from the samples' expert
    scores."""
    return ct_metrics(ExpertPresence.of_samples(samples), task_args.get("baselines"))
