"""The metrics every judge task's run shares: which score each is of, and where a family's own additions go."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.scorer import Metric, SampleScore, Score

from radiology_tasks.core.metrics import ExpertPresence, report_truncated
from radiology_tasks.core.run_metrics import judged_score_metrics

# The main score "a" is missing from one report of four and follows the expert score; "b" is scored on all four and
# runs against it, so every figure says whose it is.
SAMPLES = [
    SampleScore(score=Score(value={"a": a, "b": b}, metadata={"expert_score": expert}), sample_id=str(n))
    for n, (a, b, expert) in enumerate([(1.0, 0.25, 0.9), (math.nan, 0.75, 0.2), (0.5, 0.5, 0.5), (0.25, 1.0, 0.1)])
]
EXPERTS = ExpertPresence.of_samples(SAMPLES)
TAU = ["a_kendall_tau", "a_kendall_tau_ci_high", "a_kendall_tau_ci_low"]
JUDGE_COST = ["judge_calls_per_sample", "judge_tokens_per_sample"]
JUDGE_CALLS = [
    "judge_calls_per_sample",
    "judge_input_tokens_per_sample",
    "judge_output_tokens_per_sample",
    "retried",
    "truncated",
]


def _figures(metrics: Sequence[Metric]) -> list[list[str]]:
    """The names of the figures each metric gives on the samples."""
    return [sorted(metric(SAMPLES)) for metric in metrics]  # type: ignore[arg-type]


def _agreement(key: str) -> list[str]:
    statistics = [f"{s}{end}" for s in ("kendall_tau", "spearman", "pearson") for end in ("", "_ci_low", "_ci_high")]
    return sorted(f"{key}_{name}" for name in [*statistics, "n_pairs", "n_unscored", "n_no_expert", "sign"])


def test_the_summary_is_of_the_main_score_with_the_familys_additions_before_the_unscored_share():
    extra = report_truncated()
    metrics = judged_score_metrics(["a", "b"], EXPERTS, headline_extra=[extra])
    assert EXPERTS.score and metrics.headline[3] is extra
    assert _figures(metrics.headline) == [
        ["a_mean"],
        ["a_ci_high", "a_ci_low"],
        TAU,
        _figures([extra])[0],
        ["unscored_share"],
        JUDGE_COST,
    ]
    assert metrics.headline[0](SAMPLES) == {"a_mean": 1.75 / 3}
    assert metrics.headline[4](SAMPLES) == {"unscored_share": 0.25}


def test_the_report_compares_every_score_and_puts_the_familys_additions_before_the_judge_figures():
    extra = report_truncated()
    metrics = judged_score_metrics(["a", "b"], EXPERTS, secondary_extra=[extra])
    assert metrics.secondary[2] is extra
    assert _figures(metrics.secondary) == [
        _agreement("a"),
        _agreement("b"),
        _figures([extra])[0],
        ["parse_failure_rate", "unscored"],
        JUDGE_CALLS,
    ]
    assert metrics.secondary[3](SAMPLES) == {"parse_failure_rate": 0.25, "unscored": 1.0}
    assert metrics.explain is None


def test_without_experts_no_agreement_is_asked_for():
    none = ExpertPresence(score=False, counts=False, single_rater_counts=False)
    metrics = judged_score_metrics(["a"], none)
    assert _figures(metrics.headline) == [["a_mean"], ["a_ci_high", "a_ci_low"], ["unscored_share"], JUDGE_COST]
    assert _figures(metrics.secondary) == [["parse_failure_rate", "unscored"], JUDGE_CALLS]
