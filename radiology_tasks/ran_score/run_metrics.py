"""What a Ran Score run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import judge_calls, mean_of, parse_failure_rate, report_truncated, unscored_share
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy
from radiology_tasks.lexical import baseline_metrics
from radiology_tasks.ran_score.metrics import GOLD_LABELS, extractor_f1, ran_f1, ran_per_label
from radiology_tasks.ran_score.scorer import MAIN_KEY
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from radiology_tasks.scorers.taxonomy import Taxonomy


def ran_metrics(
    taxonomy: Taxonomy,
    unscored: UnscoredPolicy,
    *,
    with_gold: bool,
    generate: bool,
    baselines: str | list[str] | None,
) -> ReportMetrics:
    """The run's summary (the Ran Score with its bootstrap interval, the unscored share, the judge's cost) and the
    report's metrics (precision, recall and micro F1, each label's F1, the mean label agreement, parse failures,
    retries, the extractor's F1 against gold labels, truncated reports, the baselines)."""
    columns, keys = taxonomy.columns, taxonomy.keys
    headline: list[Metric] = [
        ran_f1(columns, keys, unscored, brief=True),
        unscored_share(MAIN_KEY),
        judge_calls(brief=True),
    ]
    secondary: list[Metric] = [
        ran_f1(columns, keys, unscored),
        ran_per_label(columns, keys, unscored),
        mean_of(MAIN_KEY),
        parse_failure_rate(MAIN_KEY),
        judge_calls(),
    ]
    if with_gold:
        secondary.append(extractor_f1(columns, keys))
    if generate:
        secondary.append(report_truncated())
    secondary += baseline_metrics(baselines, experts=None)
    return ReportMetrics(headline=headline, secondary=secondary, explain=explain_undefined)


def explain_undefined(metric: str, key: str, samples: Sequence[SampleScore]) -> str | None:
    """Why a Ran Score figure is undefined on these samples (None for another metric's)."""
    name = metric.split("/")[-1]
    if name == "ran_per_label":
        label = key.split("_", 1)[1]
        return f"no report could be compared on {label}: its label was unknown on one side in each of them"
    if name == "ran_f1":
        return (
            "some label could be compared on no report (its label was unknown on one side in each), and the "
            "average over labels needs every label"
        )
    if name == "extractor_f1":
        return "no report has both gold labels and the judge's reference labels for this"
    return None


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): as the task chooses them, under the run's taxonomy
    and unscored policy."""
    return ran_metrics(
        load_taxonomy(task_args.get("taxonomy")),
        check_policy(task_args.get("unscored") or "worst"),
        with_gold=any((s.score.metadata or {}).get(GOLD_LABELS) is not None for s in samples),
        generate=bool(task_args.get("generate")),
        baselines=task_args.get("baselines"),
    )
