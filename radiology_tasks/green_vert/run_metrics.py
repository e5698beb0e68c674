"""What a GREEN/VERT run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from inspect_ai.scorer import Metric, SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import ExpertPresence, category_f1, error_count_bias, mean_of, report_truncated
from radiology_tasks.core.run_metrics import judged_score_metrics
from radiology_tasks.lexical import baseline_metrics
from radiology_tasks.report_judge.scorer import JudgePrompt, score_keys


def judge_metrics(
    keys: list[str], experts: ExpertPresence, *, generate: bool, baselines: str | list[str] | None
) -> ReportMetrics:
    """The run's summary (the main score's mean and interval, Kendall's tau with the experts, the unscored share,
    the judge's cost) and the report's metrics (the other scores' means, every agreement statistic, per-category
    F1, count bias, the judge's retries and truncations, the baselines), for a run of the judge with `keys`."""
    # Every score the judge gives is compared with every truth the experts' data carries (each score's orientation
    # is its family's declaration: GREEN-EC counts errors). Per-category matches need whole counts: rater means
    # (ReXVal) take part in that agreement only.
    counts = [category_f1(), error_count_bias()] if "green_ec" in keys and experts.single_rater_counts else []
    judged = judged_score_metrics(keys, experts, secondary_extra=counts)
    secondary: list[Metric] = [mean_of(key) for key in keys[1:]]
    secondary += judged.secondary
    if generate:
        secondary.append(report_truncated())
    secondary += baseline_metrics(baselines, experts=experts)
    return ReportMetrics(headline=judged.headline, secondary=secondary)


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): as `judge_task` chooses them for the run's prompt,
    from the samples' expert data."""
    prompt = "green" if task == "green" else task_args.get("prompt") or "vert"
    return judge_metrics(
        score_keys(cast("JudgePrompt", prompt)),
        ExpertPresence.of_samples(samples),
        generate=bool(task_args.get("generate")),
        baselines=task_args.get("baselines"),
    )
