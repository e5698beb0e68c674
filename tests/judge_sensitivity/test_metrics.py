"""The Inspect metrics take empty and NaN input, and only the judge's own numbers."""

from __future__ import annotations

import math

from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.judge_sensitivity.metrics import (
    count_recovered,
    detection_by_type,
    discrimination_robustness,
    judged_variants,
    score_monotonicity,
    variant_exclusions,
)

METRICS = [
    discrimination_robustness("vert", compare_scores=True),
    score_monotonicity("vert", 3),
    count_recovered("vert", 3),
    detection_by_type("vert", ("a", "b")),
    variant_exclusions(),
]


def sample(value: dict[str, float], *, filled: list[str] | None = None, excluded: str | None = None) -> SampleScore:
    variant = {"source_id": "r", "kind": "error", "category": "a", "n_errors": 1, "excluded": excluded}
    metadata = {"variant": variant, "filled_in": filled or [], "predicted_significant": None}
    return SampleScore(score=Score(value=value, metadata=metadata), sample_id="r:error-a-1")


def test_every_metric_takes_an_empty_run() -> None:
    for metric in METRICS:
        values = metric([])
        assert values and all(isinstance(v, float) for v in values.values())
    assert math.isnan(METRICS[0]([])["discrimination"]) and METRICS[4]([])["excluded"] == 0.0


def test_nan_values_and_filled_in_values_are_not_the_judges_numbers() -> None:
    nan = float("nan")
    unreadable = sample({"vert": nan, "green": nan, "green_ec": nan, "green_f1": nan})
    filled = sample({"vert": 0.0, "green": 0.0, "green_ec": nan, "green_f1": 0.0}, filled=["vert", "green", "green_f1"])
    excluded = sample({"vert": nan, "green": nan, "green_ec": nan, "green_f1": nan}, excluded="implausible")
    variants = judged_variants([unreadable, filled, excluded], "vert")
    assert [(v.significant, v.score) for v in variants] == [(None, None)] * 3
    assert math.isnan(METRICS[0]([unreadable, filled, excluded])["discrimination"])
    assert METRICS[4]([unreadable, filled, excluded])["excluded_implausible"] == 1.0


def test_a_readable_count_and_score_enter() -> None:
    judged = sample({"vert": 0.4, "green": 0.5, "green_ec": 2.0, "green_f1": 0.6})
    (variant,) = judged_variants([judged], "vert")
    assert (variant.significant, variant.score) == (2, 0.4)
    assert METRICS[0]([judged])["discrimination"] == 1.0
    assert METRICS[2]([judged])["judge_count_n1"] == 2.0
