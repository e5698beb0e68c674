"""What a judge-sensitivity run logs (its summary) and what `radiology-tasks report` adds, declared once for both."""

from __future__ import annotations

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import judge_calls, mean_interval, mean_of, parse_failure_rate, unscored_share
from radiology_tasks.judge_sensitivity.metrics import (
    count_recovered,
    detection_by_type,
    discrimination_robustness,
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
    )
