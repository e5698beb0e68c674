"""The metrics every judge task's run shares: which score each is of, and where a family's own additions go."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai._util.registry import registry_info
from inspect_ai.scorer import Metric, SampleScore, Score

from radiology_tasks.core.metrics import ExpertPresence, report_truncated
from radiology_tasks.core.run_metrics import judged_score_metrics

EXPERTS = ExpertPresence(score=True, counts=False, single_rater_counts=False)
NO_EXPERTS = ExpertPresence(score=False, counts=False, single_rater_counts=False)
# The main score "a" is missing from one report of two; "b" is scored on both, so a figure says whose it is.
SAMPLES = [
    SampleScore(score=Score(value={"a": 1.0, "b": 0.25}), sample_id="1"),
    SampleScore(score=Score(value={"a": math.nan, "b": 0.75}), sample_id="2"),
]


def _names(metrics: Sequence[Metric]) -> list[str]:
    return [registry_info(metric).name.split("/")[-1] for metric in metrics]


def test_the_summary_is_of_the_main_score_with_the_familys_additions_before_the_unscored_share():
    extra = report_truncated()
    metrics = judged_score_metrics(["a", "b"], EXPERTS, headline_extra=[extra])
    assert _names(metrics.headline) == [
        "mean_of",
        "mean_interval",
        "expert_agreement",
        "report_truncated",
        "unscored_share",
        "judge_calls",
    ]
    assert metrics.headline[3] is extra
    assert metrics.headline[0](SAMPLES) == {"a_mean": 1.0}
    assert metrics.headline[4](SAMPLES) == {"unscored_share": 0.5}


def test_the_report_compares_every_score_and_puts_the_familys_additions_before_the_judge_figures():
    extra = report_truncated()
    metrics = judged_score_metrics(["a", "b"], EXPERTS, secondary_extra=[extra])
    assert _names(metrics.secondary) == [
        "expert_agreement",
        "expert_agreement",
        "report_truncated",
        "parse_failure_rate",
        "judge_calls",
    ]
    assert metrics.secondary[2] is extra
    assert metrics.secondary[3](SAMPLES)["parse_failure_rate"] == 0.5
    assert metrics.explain is None


def test_without_experts_no_agreement_is_asked_for():
    metrics = judged_score_metrics(["a"], NO_EXPERTS)
    assert _names(metrics.headline) == ["mean_of", "mean_interval", "unscored_share", "judge_calls"]
    assert _names(metrics.secondary) == ["parse_failure_rate", "judge_calls"]
