"""The leaderboard's statistics against independent computations: each interval and p-value is recomputed here
from the same seeded draws with numpy and scipy, so a changed bound, count, correction, default or name shows.

(`test_significance`, `test_agreement` and `test_corpus` check the same functions on hand-worked cases.)
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import bootstrap, kendalltau, permutation_test

from radiology_tasks.scorers.leaderboard.agreement import TauInterval, kendall_tau, tau_difference_test, tau_interval
from radiology_tasks.scorers.leaderboard.corpus import paired_statistic_test, statistic_interval
from radiology_tasks.scorers.leaderboard.significance import (
    Interval,
    PairedTest,
    mean_interval,
    paired_bootstrap_p,
    paired_test,
    randomization_p,
)

RNG = np.random.default_rng(11)
VALUES = [float(v) for v in RNG.uniform(0, 1, 30)]
OTHER = [float(v + d) for v, d in zip(VALUES, RNG.normal(0.03, 0.1, 30), strict=True)]
EXPERT = [float(v) for v in RNG.uniform(0, 1, 12)]
JUDGE_A = [(e, float(e + n)) for e, n in zip(EXPERT, RNG.normal(0, 0.15, 12), strict=True)]
JUDGE_B = [(e, float(e + n)) for e, n in zip(EXPERT, RNG.normal(0, 0.3, 12), strict=True)]


# Kendall's tau and the judges' statistics.
def test_tau_on_two_samples_is_defined():
    assert kendall_tau([(1.0, 1.0), (2.0, 3.0)]) == 1.0
    assert kendall_tau([(1.0, 1.0), (2.0, 0.0)]) == -1.0
    assert math.isnan(kendall_tau([(1.0, 1.0)]))


def test_tau_errors_name_the_function():
    with pytest.raises(ValueError, match="^kendall_tau: no samples$"):
        kendall_tau([])
    with pytest.raises(ValueError, match="^kendall_tau: NaN among the scores; leave unscored samples out first$"):
        kendall_tau([(1.0, math.nan)])
    with pytest.raises(ValueError, match="^b: NaN among the scores"):
        tau_difference_test(JUDGE_A[:3], [(1.0, 1.0), (2.0, math.nan), (3.0, 2.0)])
    with pytest.raises(
        ValueError, match="^tau_interval: Kendall's tau is undefined \\(fewer than 2 samples, or constant scores\\)$"
    ):
        tau_interval([(1.0, 0.5), (2.0, 0.5)])
    with pytest.raises(
        ValueError, match="^tau_difference_test: Kendall's tau is undefined for a judge on these samples$"
    ):
        tau_difference_test(JUDGE_A[:3], [(e, 0.5) for e, _ in JUDGE_A[:3]])


def _taus(pairs: list[tuple[float, float]], picks: np.ndarray) -> list[float]:
    data = np.asarray(pairs)
    return [float(kendalltau(data[p, 0], data[p, 1]).statistic) for p in picks]


def test_the_tau_interval_is_the_percentiles_of_scipys_resampled_taus():
    picks = np.random.default_rng(5).integers(0, 12, size=(300, 12))
    kept = [t for t in _taus(JUDGE_A, picks) if not math.isnan(t)]
    interval = tau_interval(JUDGE_A, confidence=0.8, resamples=300, seed=5)
    low, high = np.percentile(kept, [10, 90])
    assert interval == TauInterval(
        pytest.approx(kendalltau(*zip(*JUDGE_A, strict=True)).statistic),
        pytest.approx(low),
        pytest.approx(high),
        12,
        0.8,
        300,
        len(kept),
    )


def test_a_tau_interval_is_shown_as_every_interval_is():
    interval = tau_interval(JUDGE_A, resamples=50)
    assert isinstance(interval, Interval)
    assert interval.figure() == {"value": interval.value, "ci_low": interval.low, "ci_high": interval.high, "n": 12}
    mean = mean_interval([0.2, 0.6, 0.7])
    assert mean.figure() == {"value": mean.value, "ci_low": mean.low, "ci_high": mean.high, "n": 3}
    assert mean.low < mean.value < mean.high


def test_the_tau_interval_defaults():
    assert tau_interval(JUDGE_A) == tau_interval(JUDGE_A, confidence=0.95, resamples=1000, seed=0)
    assert tau_interval(JUDGE_A).resamples == 1000 and tau_interval(JUDGE_A).confidence == 0.95
    assert tau_interval(JUDGE_A, seed=1) != tau_interval(JUDGE_A, seed=0), "the seed is used"


def test_an_interval_without_a_defined_resample_spans_every_value():
    # Two samples resampled once: the seed is chosen so both picks are the same sample, a tau that is undefined. It
    # could have been anything: the interval is [-1, 1], not the point (which would claim certainty it lacks).
    seed = next(s for s in range(100) if len(set(np.random.default_rng(s).integers(0, 2, size=(1, 2))[0])) == 1)
    pairs = [(1.0, 1.0), (2.0, 3.0)]
    assert tau_interval(pairs, resamples=1, seed=seed) == TauInterval(1.0, -1.0, 1.0, 2, 0.95, 1, 0)


def test_the_tau_difference_p_value_is_recounted_from_the_same_draws():
    picks = np.random.default_rng(3).integers(0, 12, size=(200, 12))
    observed = kendall_tau(JUDGE_A) - kendall_tau(JUDGE_B)
    differences = [
        a - b
        for a, b in zip(_taus(JUDGE_A, picks), _taus(JUDGE_B, picks), strict=True)
        if not (np.isnan(a) or np.isnan(b))
    ]
    extreme = sum(1 for d in differences if abs(d - observed) >= abs(observed) - 1e-12)
    test = tau_difference_test(JUDGE_A, JUDGE_B, resamples=200, seed=3)
    assert test.difference == pytest.approx(observed)
    assert test.bootstrap_p == pytest.approx((extreme + 1) / (len(differences) + 1))
    assert 0.02 < test.bootstrap_p < 0.98, "a case where the count matters"
    assert (test.n, test.resamples, test.valid) == (12, 200, len(differences))


def test_the_tau_difference_defaults():
    default = tau_difference_test(JUDGE_A, JUDGE_B)
    assert default == tau_difference_test(JUDGE_A, JUDGE_B, resamples=1000, seed=0)
    assert default.resamples == 1000
    assert tau_difference_test(JUDGE_A, JUDGE_B, resamples=1000, seed=1) != default, "the seed is used"


# Means, paired tests.
def test_mean_interval_defaults_and_small_samples():
    assert mean_interval(VALUES) == mean_interval(VALUES, confidence=0.95, resamples=1000, seed=0)
    assert mean_interval(VALUES, seed=1) != mean_interval(VALUES), "the seed is used"
    assert mean_interval([0.4]) == Interval(0.4, 0.4, 0.4, 1, 0.95, 1000)
    assert mean_interval([0.3, 0.3], confidence=0.9, resamples=50) == Interval(0.3, 0.3, 0.3, 2, 0.9, 50)
    two = mean_interval([0.2, 0.8], resamples=200, seed=2)
    expected = bootstrap(
        (np.asarray([0.2, 0.8]),), np.mean, n_resamples=200, method="percentile", rng=np.random.default_rng(2)
    ).confidence_interval
    assert (two.low, two.high) == (pytest.approx(expected.low), pytest.approx(expected.high))
    assert two.low < two.value < two.high


def test_paired_tests_name_the_values_at_fault():
    with pytest.raises(ValueError, match="^b: NaN"):
        paired_bootstrap_p([0.0, 1.0], [0.0, math.nan])
    with pytest.raises(ValueError, match="^a: NaN"):
        randomization_p([math.nan, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="^a: NaN"):
        paired_test([math.nan, 1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match="^b: NaN"):
        paired_test([0.0, 1.0], [0.0, math.nan])


def test_the_paired_bootstrap_p_is_recounted_from_the_same_draws():
    differences = np.asarray(VALUES) - np.asarray(OTHER)
    picks = np.random.default_rng(4).integers(0, 30, size=(400, 30))
    means = differences[picks].mean(axis=1)
    observed = differences.mean()
    extreme = int(np.sum(np.abs(means - observed) >= abs(observed) - 1e-12))
    p = paired_bootstrap_p(VALUES, OTHER, resamples=400, seed=4)
    assert p == pytest.approx((extreme + 1) / 401) and 0.005 < p < 0.98


def test_the_randomization_p_is_scipys_paired_permutation_test():
    expected = permutation_test(
        (np.asarray(VALUES), np.asarray(OTHER)),
        lambda x, y, axis: np.mean(x, axis=axis) - np.mean(y, axis=axis),
        permutation_type="samples",
        n_resamples=300,
        rng=np.random.default_rng(6),
    ).pvalue
    assert randomization_p(VALUES, OTHER, resamples=300, seed=6) == pytest.approx(expected)


def test_paired_test_passes_its_resamples_and_seed_to_both_tests():
    near = [float(v + d) for v, d in zip(VALUES, np.random.default_rng(2).normal(0.0, 0.1, 30), strict=True)]
    test = paired_test(VALUES, near, resamples=99, seed=5)
    assert test == PairedTest(
        pytest.approx(float(np.mean(VALUES) - np.mean(near))),
        paired_bootstrap_p(VALUES, near, resamples=99, seed=5),
        randomization_p(VALUES, near, resamples=99, seed=5),
        30,
        99,
    )
    assert 0.05 < test.bootstrap_p < 0.95 and 0.05 < test.randomization_p < 0.95, "p-values the seed can move"
    assert test.bootstrap_p != paired_bootstrap_p(VALUES, near, resamples=99, seed=0)
    assert test.randomization_p != randomization_p(VALUES, near, resamples=99, seed=0)


# A statistic of the whole sample set.
def _share_above(units: list[float]) -> float:
    """Not a mean of per-unit values' differences: the share of units above 0.5."""
    return sum(1 for u in units if u > 0.5) / len(units)


def test_the_statistic_interval_defaults_and_message():
    default = statistic_interval(VALUES, _share_above)
    assert default == statistic_interval(VALUES, _share_above, confidence=0.95, resamples=1000, seed=0)
    assert default.resamples == 1000 and default.confidence == 0.95
    mean = np.mean
    assert statistic_interval(VALUES, mean, seed=1) != statistic_interval(VALUES, mean), "the seed is used"
    with pytest.raises(ValueError, match="^statistic_interval: no units$"):
        statistic_interval([], max)


def _paired_by_hand(a: list[float], b: list[float], resamples: int, seed: int) -> tuple[float, float, float]:
    """The paired bootstrap and randomization p-values of share_above(a) - share_above(b), drawn as documented:
    the bootstrap's picks first, then the swaps, from one generator."""
    rng = np.random.default_rng(seed)
    n = len(a)
    observed = _share_above(a) - _share_above(b)
    picks = rng.integers(0, n, size=(resamples, n))
    boot = [_share_above([a[i] for i in row]) - _share_above([b[i] for i in row]) for row in picks]
    extreme = sum(1 for d in boot if abs(d - observed) >= abs(observed) - 1e-12)
    swaps = rng.integers(0, 2, size=(resamples, n)).astype(bool)
    swapped = 0
    for row in swaps:
        x = [b[i] if row[i] else a[i] for i in range(n)]
        y = [a[i] if row[i] else b[i] for i in range(n)]
        swapped += abs(_share_above(x) - _share_above(y)) >= abs(observed) - 1e-12
    return observed, (extreme + 1) / (resamples + 1), (swapped + 1) / (resamples + 1)


def test_the_paired_statistic_test_is_recounted_from_the_same_draws():
    a = VALUES[:16]
    b = [v - 0.25 for v in a]
    observed, boot_p, random_p = _paired_by_hand(a, b, 300, 8)
    test = paired_statistic_test(a, b, _share_above, resamples=300, seed=8)
    assert test == PairedTest(pytest.approx(observed), pytest.approx(boot_p), pytest.approx(random_p), 16, 300)
    assert 0.0 < observed and boot_p < random_p < 1.0, "a case where both counts matter"


def test_a_swap_moves_a_units_results_between_the_systems():
    # Two units, both above 0.5 for one system only: swapping both (or neither) keeps the difference at 1,
    # swapping one makes it 0, so half the random swaps are as extreme.
    a, b = [0.9, 0.9], [0.1, 0.1]
    _, _, random_p = _paired_by_hand(a, b, 500, 1)
    assert paired_statistic_test(a, b, _share_above, resamples=500, seed=1).randomization_p == pytest.approx(random_p)
    assert 0.4 < random_p < 0.6


def test_the_paired_statistic_test_defaults():
    a, b = VALUES[:10], OTHER[:10]
    default = paired_statistic_test(a, b, _share_above)
    assert default == paired_statistic_test(a, b, _share_above, resamples=1000, seed=0)
    assert default.resamples == 1000
    assert paired_statistic_test(a, b, _share_above, seed=1) != default, "the seed is used"


def test_a_resample_where_only_one_judges_tau_is_undefined_counts_as_extreme():
    # Four samples; judge b gives three of them the same score, so many resamples leave b's tau undefined
    # while a's is defined: those resamples could have shown any difference, so they count against the claim of
    # a difference (as extreme as the one observed), as undefined resamples count at the bounds of an interval.
    a = [(0.1, 0.1), (0.4, 0.5), (0.7, 0.6), (0.9, 0.95)]
    b = [(0.1, 0.0), (0.4, 0.0), (0.7, 0.0), (0.9, 1.0)]
    picks = np.random.default_rng(0).integers(0, 4, size=(200, 4))
    pairs = [(x, y) for x, y in zip(_taus(a, picks), _taus(b, picks), strict=True)]
    kept = [x - y for x, y in pairs if not (np.isnan(x) or np.isnan(y))]
    assert any(np.isnan(y) and not np.isnan(x) for x, y in pairs)
    test = tau_difference_test(a, b, resamples=200, seed=0)
    assert test.valid == len(kept) < 200
    observed = kendall_tau(a) - kendall_tau(b)
    extreme = sum(1 for d in kept if abs(d - observed) >= abs(observed) - 1e-12) + (200 - len(kept))
    assert test.bootstrap_p == pytest.approx((extreme + 1) / (200 + 1))


def test_the_randomization_test_defaults():
    near = [float(v + d) for v, d in zip(VALUES, np.random.default_rng(2).normal(0.0, 0.1, 30), strict=True)]
    default = randomization_p(VALUES, near)
    assert default == randomization_p(VALUES, near, resamples=1000, seed=0)
    assert default != randomization_p(VALUES, near, resamples=1000, seed=1), "the seed is used"
