"""Intervals and paired tests of a statistic of the whole sample set, resampling units (reports)."""

from __future__ import annotations

import numpy as np
import pytest

from radiology_tasks.scorers.leaderboard.corpus import paired_statistic_test, statistic_interval


def _mean(units: list[float]) -> float:
    return sum(units) / len(units)


def test_the_interval_is_the_percentiles_of_the_statistic_over_seeded_resamples():
    units = [0.0, 0.2, 0.5, 0.9, 1.0, 0.4, 0.3]
    interval = statistic_interval(units, _mean, confidence=0.9, resamples=300, seed=4)
    picks = np.random.default_rng(4).integers(0, len(units), size=(300, len(units)))
    means = np.asarray(units)[picks].mean(axis=1)
    assert interval.value == pytest.approx(_mean(units))
    assert (interval.low, interval.high) == pytest.approx((np.quantile(means, 0.05), np.quantile(means, 0.95)))
    assert interval.low < interval.value < interval.high
    assert (interval.n, interval.confidence, interval.resamples) == (7, 0.9, 300)


def test_a_statistic_that_is_not_a_mean_is_recomputed_on_each_resample():
    units = [1.0, 2.0, 3.0, 10.0]
    interval = statistic_interval(units, max, resamples=200, seed=0)
    assert interval.value == 10.0 and interval.high == 10.0 and interval.low < 10.0
    with pytest.raises(ValueError, match="no units"):
        statistic_interval([], max)


def test_a_system_better_on_every_unit_is_significant_and_identical_systems_are_not():
    a = [0.9, 0.8, 0.95, 0.7, 0.85, 0.9, 0.75, 0.8]
    b = [x - 0.3 for x in a]
    test = paired_statistic_test(a, b, _mean, resamples=200, seed=0)
    assert test.difference == pytest.approx(0.3)
    assert test.bootstrap_p == pytest.approx(1 / 201), "no resample reverses a difference present on every unit"
    assert test.randomization_p < 0.05 and test.n == 8
    same = paired_statistic_test(a, list(a), _mean, resamples=200, seed=0)
    assert (same.difference, same.bootstrap_p, same.randomization_p) == (0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="same, non-empty samples"):
        paired_statistic_test(a, b[:3], _mean)
