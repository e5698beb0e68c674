"""Kendall's tau-b of a judge against experts, its bootstrap interval and the paired test between two judges."""

from __future__ import annotations

import numpy as np
import pytest

from radiology_tasks.scorers.leaderboard.agreement import kendall_tau, tau_difference_test, tau_interval

# Four samples, one discordant pair out of six: tau = (5 - 1) / 6.
ONE_SWAP = [(1.0, 1.0), (2.0, 2.0), (3.0, 4.0), (4.0, 3.0)]
EXPERT = [float(i) for i in range(8)]
AGREES = [(e, e) for e in EXPERT]
REVERSED = [(e, -e) for e in EXPERT]


def test_tau_b_by_hand():
    assert kendall_tau(ONE_SWAP) == pytest.approx(2 / 3)
    assert (kendall_tau(AGREES), kendall_tau(REVERSED)) == (pytest.approx(1.0), pytest.approx(-1.0))
    # Ties: expert (1, 1, 2), judge (1, 2, 3): one concordant pair, one tied in x; tau-b = 2 / sqrt(2 * 3).
    assert kendall_tau([(1, 1), (1, 2), (2, 3)]) == pytest.approx(2 / np.sqrt(6))
    assert np.isnan(kendall_tau([(1, 1), (2, 1), (3, 1)])), "a constant judge has no tau"


def test_the_interval_is_the_percentile_of_the_resampled_taus():
    from scipy.stats import kendalltau

    pairs = [(0.1, 0.2), (0.4, 0.3), (0.35, 0.5), (0.8, 0.7), (0.9, 0.95), (0.5, 0.4), (0.2, 0.6), (0.7, 0.65)]
    interval = tau_interval(pairs, confidence=0.9, resamples=500, seed=4)
    picks = np.random.default_rng(4).integers(0, len(pairs), size=(500, len(pairs)))
    data = np.asarray(pairs)
    taus = [kendalltau(data[p, 0], data[p, 1]).statistic for p in picks]
    kept = [t for t in taus if not np.isnan(t)]
    assert (interval.low, interval.high) == (
        pytest.approx(np.percentile(kept, 5)),
        pytest.approx(np.percentile(kept, 95)),
    )
    assert interval.value == pytest.approx(kendalltau(data[:, 0], data[:, 1]).statistic)
    assert (interval.n, interval.confidence, interval.resamples, interval.valid) == (8, 0.9, 500, len(kept))
    assert interval.low < interval.value < interval.high
    assert tau_interval(pairs, seed=1) == tau_interval(pairs, seed=1), "seeded"


def test_a_perfect_judge_has_a_zero_width_interval():
    interval = tau_interval(AGREES, resamples=200)
    assert (interval.value, interval.low, interval.high) == pytest.approx((1.0, 1.0, 1.0))


def test_a_judge_against_its_mirror_image_differs_in_every_resample():
    # Every resample with two distinct samples gives tau 1 for one judge and -1 for the other: difference 2,
    # never as far from 2 as 2 is from 0, so p = 1 / (valid + 1).
    test = tau_difference_test(AGREES, REVERSED, resamples=999, seed=3)
    assert test.difference == pytest.approx(2.0) and test.n == 8
    assert test.bootstrap_p == pytest.approx(1 / (test.valid + 1))
    assert test.valid == 999


def test_the_same_judge_twice_is_no_difference():
    test = tau_difference_test(ONE_SWAP, ONE_SWAP, resamples=200)
    assert (test.difference, test.bootstrap_p) == (0.0, 1.0)


def test_a_clear_difference_is_detected_and_a_small_one_is_not():
    rng = np.random.default_rng(0)
    expert = rng.uniform(0, 1, 40)
    close = [(e, e + rng.normal(0, 0.05)) for e in expert]
    noise = [(e, float(v)) for e, v in zip(expert, rng.uniform(0, 1, 40), strict=True)]
    clear = tau_difference_test(close, noise, resamples=999, seed=0)
    assert clear.difference > 0.5 and clear.bootstrap_p < 0.01
    nearly = [(e, e + rng.normal(0, 0.06)) for e in expert]
    assert tau_difference_test(close, nearly, resamples=999, seed=0).bootstrap_p > 0.05


def test_errors_name_what_is_wrong():
    with pytest.raises(ValueError, match="the same samples: 4 against 3"):
        tau_difference_test(ONE_SWAP, ONE_SWAP[:3])
    with pytest.raises(ValueError, match="^a: NaN"):
        tau_difference_test([(float("nan"), 1.0)], [(1.0, 1.0)])
    with pytest.raises(ValueError, match="^tau_interval: no samples"):
        tau_interval([])
    with pytest.raises(ValueError, match="undefined"):
        tau_interval([(1.0, 0.5), (2.0, 0.5)])


# A judge that varies on one sample of twelve: most resamples hold no information about agreement.
NEARLY_CONSTANT = [(float(i % 4), 1.0 if i == 5 else 0.0) for i in range(12)]


def test_the_board_and_the_run_summary_give_one_judge_the_same_interval():
    from radiology_tasks.core.agreement import correlate

    expert, judge = zip(*NEARLY_CONSTANT, strict=True)
    summary = correlate(list(judge), list(expert), n_resamples=400, confidence=0.9, seed=2)
    board = tau_interval(NEARLY_CONSTANT, confidence=0.9, resamples=400, seed=2)
    assert (board.value, board.low, board.high) == pytest.approx(
        (summary.kendall_tau, *summary.kendall_tau_ci), abs=1e-12
    )
    # Undefined resamples count at the bounds, not left out: the interval reaches -1 and +1 here.
    assert board.valid < 400 * 0.75 and (board.low, board.high) == (-1.0, 1.0)


def test_undefined_resamples_count_at_the_bounds_of_the_board_interval():
    from scipy.stats import kendalltau

    pairs = [(0.0, 0.0), (1.0, 0.0), (2.0, 1.0), (3.0, 1.0), (1.0, 2.0)]
    interval = tau_interval(pairs, confidence=0.8, resamples=300, seed=5)
    picks = np.random.default_rng(5).integers(0, len(pairs), size=(300, len(pairs)))
    data = np.asarray(pairs)
    with np.errstate(invalid="ignore"):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            taus = np.array([kendalltau(data[p, 0], data[p, 1]).statistic for p in picks])
    undefined = np.isnan(taus)
    assert 0 < undefined.sum() < 300, "the example must hold both kinds of resample"
    assert interval.valid == 300 - undefined.sum()
    assert interval.low == pytest.approx(np.percentile(np.where(undefined, -1.0, taus), 10))
    assert interval.high == pytest.approx(np.percentile(np.where(undefined, 1.0, taus), 90))


def test_a_resample_where_a_tau_is_undefined_counts_as_extreme_in_the_test():
    from scipy.stats import kendalltau

    a = [(0.0, 0.0), (1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 4.0), (5.0, 5.0)]
    b = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (3.0, 0.0), (4.0, 0.0), (5.0, 1.0)]
    test = tau_difference_test(a, b, resamples=500, seed=1)
    picks = np.random.default_rng(1).integers(0, 6, size=(500, 6))
    da, db = np.asarray(a), np.asarray(b)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        diffs = np.array(
            [kendalltau(da[p, 0], da[p, 1]).statistic - kendalltau(db[p, 0], db[p, 1]).statistic for p in picks]
        )
    undefined = np.isnan(diffs)
    assert 0 < undefined.sum() < 500
    extreme = undefined.sum() + (np.abs(diffs[~undefined] - test.difference) >= abs(test.difference) - 1e-12).sum()
    assert test.bootstrap_p == pytest.approx((extreme + 1) / 501)
    assert test.valid == 500 - undefined.sum()
