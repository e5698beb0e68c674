"""Bootstrap intervals and paired tests, checked against values worked out by hand and against scipy itself."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap

from radiology_tasks.scorers.leaderboard.significance import (
    mean_interval,
    paired_bootstrap_p,
    paired_test,
    randomization_p,
)

# Two systems on four samples: A beats B on two, ties on two. Differences d = (1, 1, 0, 0), mean 0.5.
A = [1.0, 1.0, 1.0, 0.0]
B = [0.0, 0.0, 1.0, 0.0]


def test_randomization_is_exact_on_a_small_pair():
    # All 16 sign patterns of d: |mean| >= 0.5 only when both non-zero differences keep one sign: 8 of 16.
    assert randomization_p(A, B, resamples=10_000) == pytest.approx(0.5)
    # Three equal differences: only the all-plus and all-minus patterns are as extreme, 2 of 8.
    assert randomization_p([1, 2, 3], [0, 1, 2], resamples=10_000) == pytest.approx(0.25)


def test_paired_bootstrap_matches_its_hand_worked_distribution():
    # A resampled mean of d is Binomial(4, 1/2) / 4; |mean* - 0.5| >= 0.5 only for 0 or 4 ones: 2/16 = 0.125.
    assert paired_bootstrap_p(A, B, resamples=40_000, seed=1) == pytest.approx(0.125, abs=0.006)


def test_constant_differences_and_identical_systems():
    resamples = 999
    assert paired_bootstrap_p([0.9, 0.8, 0.7], [0.4, 0.3, 0.2], resamples=resamples) == pytest.approx(1 / 1000)
    assert paired_bootstrap_p([0.9, 0.8], [0.8, 0.9], resamples=resamples) == 1.0
    assert randomization_p([0.5, 0.2], [0.5, 0.2]) == 1.0


def test_paired_test_reports_both_tests_and_the_difference():
    test = paired_test(A, B, resamples=20_000, seed=3)
    assert (test.difference, test.n, test.resamples) == (0.5, 4, 20_000)
    assert test.randomization_p == pytest.approx(0.5)
    assert test.bootstrap_p == pytest.approx(0.125, abs=0.01)
    assert paired_test(A, B, seed=5) == paired_test(A, B, seed=5), "seeded: the same inputs give the same p-values"


def test_paired_tests_need_the_same_samples_and_no_nan():
    with pytest.raises(ValueError, match="the same samples: 4 values against 3"):
        paired_test(A, B[:3])
    with pytest.raises(ValueError, match="NaN among the values"):
        paired_test([1.0, float("nan")], [0.0, 0.0])
    with pytest.raises(ValueError, match="no values"):
        mean_interval([])


def test_mean_interval_is_scipys_percentile_bootstrap():
    values = [0.9, 0.4, 0.75, 1.0, 0.2, 0.6, 0.85]
    interval = mean_interval(values, confidence=0.9, resamples=2000, seed=7)
    expected = bootstrap(
        (np.asarray(values),),
        np.mean,
        confidence_level=0.9,
        n_resamples=2000,
        method="percentile",
        rng=np.random.default_rng(7),
    ).confidence_interval
    assert (interval.low, interval.high) == (pytest.approx(expected.low), pytest.approx(expected.high))
    assert interval.value == pytest.approx(np.mean(values))
    assert (interval.n, interval.confidence, interval.resamples) == (7, 0.9, 2000)
    assert interval.low < interval.value < interval.high


def test_a_constant_score_has_a_zero_width_interval():
    interval = mean_interval([0.5, 0.5, 0.5])
    assert (interval.value, interval.low, interval.high) == (0.5, 0.5, 0.5)


def test_defaults_are_95_percent_1000_resamples_seed_0():
    values = [0.9, 0.4, 0.75, 1.0, 0.2]
    assert mean_interval(values) == mean_interval(values, confidence=0.95, resamples=1000, seed=0)
    assert paired_test(A, B) == paired_test(A, B, resamples=1000, seed=0)
    assert paired_bootstrap_p(A, B) == paired_bootstrap_p(A, B, resamples=1000, seed=0)
    assert randomization_p([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [0] * 11) == randomization_p(
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], [0] * 11, resamples=1000, seed=0
    )
    assert mean_interval(values).resamples == 1000 and mean_interval(values).confidence == 0.95


def test_errors_name_the_values_at_fault():
    with pytest.raises(ValueError, match="^a: NaN"):
        paired_bootstrap_p([float("nan")], [0.0])
    with pytest.raises(ValueError, match="^b: NaN"):
        randomization_p([0.0], [float("nan")])
    with pytest.raises(ValueError, match="^mean_interval: no values"):
        mean_interval([])


def test_randomization_is_seeded_and_uses_the_resamples_given():
    first, second = [0.1 * i for i in range(20)], [0.1 * i + (0.05 if i % 3 else -0.1) for i in range(20)]
    assert randomization_p(first, second, seed=1) == randomization_p(first, second, seed=1)
    p = randomization_p(first, second, resamples=99, seed=2)
    assert p * 100 == pytest.approx(round(p * 100)), "p = (extreme + 1) / (99 + 1)"
