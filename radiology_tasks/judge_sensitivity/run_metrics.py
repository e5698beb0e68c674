"""What a judge-sensitivity run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, cast

from inspect_ai.scorer import SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import judge_calls, mean_interval, mean_of, parse_failure_rate, unscored_share
from radiology_tasks.judge_sensitivity.metrics import (
    count_recovered,
    detection_by_type,
    discrimination_robustness,
    judged_variants,
    score_monotonicity,
    variant_exclusions,
)
from radiology_tasks.judge_sensitivity.scorer import SensitivityPrompt
from radiology_tasks.report_judge.scorer import score_keys


def sensitivity_metrics(prompt: SensitivityPrompt, categories: tuple[str, ...], max_n: int) -> ReportMetrics:
    """The run's summary (the main score's mean and interval, discrimination, robustness and balance, the unscored
    share, the judge's cost) and the report's metrics (the variant counts, monotonicity, recovered counts, detection
    by error type, exclusions, parse failures, retries)."""
    main = score_keys(prompt)[0]
    compare_scores = prompt != "green"
    return ReportMetrics(
        headline=[
            mean_of(main),
            mean_interval(main),
            discrimination_robustness(main, compare_scores=compare_scores, brief=True),
            unscored_share(main),
            judge_calls(brief=True),
        ],
        secondary=[
            discrimination_robustness(main, compare_scores=compare_scores),
            score_monotonicity(main, max_n),
            count_recovered(main, max_n),
            detection_by_type(main, categories),
            variant_exclusions(),
            parse_failure_rate(main),
            judge_calls(),
        ],
        explain=explain_undefined,
    )


_REASONS = {
    "discrimination": "no error variant has a judge answer that gives what discrimination needs",
    "robustness": "no paraphrase has a readable significant-error count",
    "balance": "discrimination or robustness is undefined (see their lines)",
    "monotonicity": (
        "no (reference, error type) series has a scored variant at every error count from 1 to the largest, with "
        "two counts or more"
    ),
    "monotonicity_kendall_tau": "the scored error variants do not span two error counts with two different scores",
}


def explain_undefined(metric: str, key: str, samples: Sequence[SampleScore]) -> str | None:
    """Why a sensitivity figure is undefined on these samples' variants (None for a figure of a shared metric)."""
    if key in _REASONS:
        return _REASONS[key]
    if key.startswith("judge_count_n"):
        return f"no error variant with {key.removeprefix('judge_count_n')} injected error(s) has a readable count"
    if key.startswith("detection_f1_"):
        return f"no scored error variant has an injected error of type ({key.removeprefix('detection_f1_')})"
    return None


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged run's metrics (the family's `run_metrics_module`): for the error types and counts its variants
    hold."""
    errors = [v for v in judged_variants(samples, None) if v.kind == "error"]
    categories = tuple(dict.fromkeys(str(v.category) for v in errors))
    prompt = cast("SensitivityPrompt", task_args.get("prompt") or "vert")
    return sensitivity_metrics(prompt, categories, max((v.n_errors for v in errors), default=0))
