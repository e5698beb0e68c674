"""Correlations with bootstrap intervals, and the error-count bias by human error count."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from radiology_tasks.core.agreement import (
    Agreement,
    KendallResampler,
    correlate,
    count_bias_by_human_errors,
    interval_of_draws,
    paired_p_value,
)

JUDGE = [0.1, 0.4, 0.35, 0.8, 0.6, 0.6, 0.9, 0.2]
EXPERT = [0.0, 0.2, 0.4, 1.0, 0.6, 0.8, 0.8, 0.2]


def _scipy_three(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    if np.ptp(x) == 0 or np.ptp(y) == 0:
        return (math.nan, math.nan, math.nan)
    return (
        stats.kendalltau(x, y, variant="b").statistic,
        stats.spearmanr(x, y).statistic,
        stats.pearsonr(x, y).statistic,
    )


def _scipy_intervals(
    x: list[float], y: list[float], n_resamples: int, seed: int, confidence: float = 0.95
) -> list[tuple[float, float]]:
    """Percentile intervals recomputed with one scipy call per resample.

    The resamples follow the documented convention: row i of
    ``numpy.random.default_rng(seed).integers(0, n, size=(n_resamples, n))`` indexes resample i.
    """
    xa, ya = np.asarray(x), np.asarray(y)
    resamples = np.random.default_rng(seed).integers(0, len(xa), size=(n_resamples, len(xa)))
    draws = np.array([_scipy_three(xa[i], ya[i]) for i in resamples])
    tail = (1 - confidence) / 2
    intervals = []
    for column in draws.T:
        # An undefined resample (a constant side) could have been any correlation: -1 for the low bound, +1 for
        # the high one.
        undefined = np.isnan(column)
        low = _quantile(np.sort(np.where(undefined, -1.0, column)), tail)
        high = _quantile(np.sort(np.where(undefined, 1.0, column)), 1 - tail)
        intervals.append((low, high))
    return intervals


def _quantile(ordered: np.ndarray, q: float) -> float:
    """Quantile `q` of sorted values, interpolating linearly between order statistics (position q * (n - 1))."""
    position = q * (len(ordered) - 1)
    below = int(np.floor(position))
    above = min(below + 1, len(ordered) - 1)
    return float(ordered[below] + (position - below) * (ordered[above] - ordered[below]))


def test_hand_computed_values() -> None:
    # 5 concordant and 1 discordant pair: tau = 4/6; rank differences 0,1,1,0: rho = 1 - 6*2/(4*15).
    result = correlate([1, 2, 3, 4], [1, 3, 2, 4], n_resamples=0)
    assert result.kendall_tau == pytest.approx(2 / 3, abs=1e-12)
    assert result.spearman == pytest.approx(0.8, abs=1e-12)
    assert result.pearson == pytest.approx(0.8, abs=1e-12)
    assert result.n_pairs == 4
    assert result.n_missing == 0
    assert result.sign == 1


def test_point_estimates_equal_scipy() -> None:
    result = correlate(JUDGE, EXPERT, n_resamples=0)
    assert result.kendall_tau == pytest.approx(stats.kendalltau(JUDGE, EXPERT, variant="b").statistic, abs=1e-12)
    assert result.spearman == pytest.approx(stats.spearmanr(JUDGE, EXPERT).statistic, abs=1e-12)
    assert result.pearson == pytest.approx(stats.pearsonr(JUDGE, EXPERT).statistic, abs=1e-12)
    assert math.isnan(result.kendall_tau_ci[0]) and math.isnan(result.kendall_tau_ci[1])


def test_intervals_equal_scipy_on_every_resample() -> None:
    result = correlate(JUDGE, EXPERT, n_resamples=300, seed=7)
    expected = _scipy_intervals(JUDGE, EXPERT, 300, 7)
    got = [result.kendall_tau_ci, result.spearman_ci, result.pearson_ci]
    for (low, high), (want_low, want_high) in zip(got, expected):
        assert low == pytest.approx(want_low, abs=1e-12)
        assert high == pytest.approx(want_high, abs=1e-12)
    assert result.kendall_tau_ci[0] <= result.kendall_tau <= result.kendall_tau_ci[1]


@pytest.mark.parametrize("confidence", [0.5, 0.8, 0.9, 0.99])
def test_intervals_at_other_confidence_levels_equal_scipy(confidence: float) -> None:
    result = correlate(JUDGE, EXPERT, n_resamples=300, seed=5, confidence=confidence)
    expected = _scipy_intervals(JUDGE, EXPERT, 300, 5, confidence)
    got = [result.kendall_tau_ci, result.spearman_ci, result.pearson_ci]
    for (low, high), (want_low, want_high) in zip(got, expected):
        assert low == pytest.approx(want_low, abs=1e-12)
        assert high == pytest.approx(want_high, abs=1e-12)


def test_intervals_nest_and_widen_with_the_confidence_level() -> None:
    levels = [0.5, 0.8, 0.95, 0.99]
    results = [correlate(JUDGE, EXPERT, n_resamples=400, seed=9, confidence=c) for c in levels]
    for name in ("kendall_tau", "spearman", "pearson"):
        intervals = [getattr(r, f"{name}_ci") for r in results]
        widths = [high - low for low, high in intervals]
        assert widths == sorted(widths) and widths[0] < widths[-1], name
        for (low, high), (wider_low, wider_high) in zip(intervals, intervals[1:]):
            assert wider_low <= low <= high <= wider_high, name


def test_interval_percentiles_by_hand() -> None:
    # Ten resamples of four points; the 80% interval takes the 10th and 90th percentiles of the ten
    # Pearson correlations, i.e. positions 0.9 and 8.1 of the sorted values.
    x, y = [0.0, 1.0, 2.0, 4.0], [0.0, 2.0, 1.0, 3.0]
    resamples = np.random.default_rng(4).integers(0, 4, size=(10, 4))
    rs = sorted(
        stats.pearsonr(np.take(x, r), np.take(y, r)).statistic
        for r in resamples
        if len(set(np.take(x, r))) > 1 and len(set(np.take(y, r))) > 1
    )
    assert len(rs) == 10
    low = rs[0] + 0.9 * (rs[1] - rs[0])
    high = rs[8] + 0.1 * (rs[9] - rs[8])
    result = correlate(x, y, n_resamples=10, seed=4, confidence=0.8)
    assert result.pearson_ci == pytest.approx((low, high), abs=1e-12)


def test_expert_agreement_metric_passes_its_confidence_level_on() -> None:
    from inspect_ai.scorer import SampleScore, Score

    from radiology_tasks.core.metrics import expert_agreement

    scores = [
        SampleScore(score=Score(value={"vert": j}, metadata={"expert_score": e}), sample_id=i)
        for i, (j, e) in enumerate(zip(JUDGE, EXPERT))
    ]
    for confidence in (0.5, 0.8):
        value = expert_agreement("vert", n_resamples=200, seed=3, confidence=confidence)(scores)
        expected = _scipy_intervals(JUDGE, EXPERT, 200, 3, confidence)
        assert (value["vert_kendall_tau_ci_low"], value["vert_kendall_tau_ci_high"]) == pytest.approx(
            expected[0], abs=1e-12
        )
        assert (value["vert_pearson_ci_low"], value["vert_pearson_ci_high"]) == pytest.approx(expected[2], abs=1e-12)


def test_intervals_with_ties_and_constant_resamples_equal_scipy() -> None:
    # Three points with ties: many resamples are constant and count as -1 (low bound) and +1 (high bound).
    judge, expert = [0.2, 0.2, 0.9, 0.5], [0.0, 0.4, 1.0, 0.4]
    result = correlate(judge, expert, n_resamples=400, seed=3)
    expected = _scipy_intervals(judge, expert, 400, 3)
    got = [result.kendall_tau_ci, result.spearman_ci, result.pearson_ci]
    for (low, high), (want_low, want_high) in zip(got, expected):
        assert low == pytest.approx(want_low, abs=1e-12)
        assert high == pytest.approx(want_high, abs=1e-12)


def test_kendall_intervals_over_many_tied_points_equal_scipy() -> None:
    # 1100 points, most of them tied in the expert's five grades.
    rng = np.random.default_rng(0)
    expert = rng.integers(0, 5, size=1100).astype(float)
    judge = np.round(expert + rng.normal(0, 1.5, size=1100), 1)
    result = correlate(list(judge), list(expert), n_resamples=30, seed=2)
    resamples = np.random.default_rng(2).integers(0, 1100, size=(30, 1100))
    taus = np.sort([stats.kendalltau(judge[r], expert[r], variant="b").statistic for r in resamples])
    assert result.kendall_tau_ci == pytest.approx((_quantile(taus, 0.025), _quantile(taus, 0.975)), abs=1e-12)
    assert result.kendall_tau == pytest.approx(stats.kendalltau(judge, expert, variant="b").statistic, abs=1e-12)


def test_intervals_are_seeded() -> None:
    first = correlate(JUDGE, EXPERT, n_resamples=200, seed=11)
    again = correlate(JUDGE, EXPERT, n_resamples=200, seed=11)
    other = correlate(JUDGE, EXPERT, n_resamples=200, seed=12)
    assert first == again
    assert (first.kendall_tau_ci, first.pearson_ci) != (other.kendall_tau_ci, other.pearson_ci)


@pytest.mark.parametrize(
    ("judge", "expert"),
    [([], []), ([0.5], [0.4]), ([0.5, None], [0.4, 0.3]), ([0.5, 0.5, 0.5], [0.1, 0.2, 0.3])],
)
def test_fewer_than_two_pairs_or_constant_input_gives_nan(judge: list, expert: list) -> None:
    result = correlate(judge, expert, n_resamples=50)
    flat = result.as_dict()
    for name in ("kendall_tau", "spearman", "pearson"):
        assert math.isnan(flat[name])
        assert math.isnan(flat[f"{name}_ci_low"]) and math.isnan(flat[f"{name}_ci_high"])


def test_missing_pairs_are_counted_and_left_out() -> None:
    judge = [*JUDGE, None, 0.5, math.nan]
    expert = [*EXPERT, 0.3, None, 0.7]
    result = correlate(judge, expert, n_resamples=100, seed=1)
    clean = correlate(JUDGE, EXPERT, n_resamples=100, seed=1)
    assert result.n_missing == 3
    assert result.n_pairs == len(JUDGE)
    assert result.kendall_tau == clean.kendall_tau
    assert result.kendall_tau_ci == clean.kendall_tau_ci


def test_lower_is_better_flips_the_sign() -> None:
    errors = [5, 3, 3, 0, 1, 1, 0, 4]
    raw = correlate(errors, EXPERT, n_resamples=100, seed=2)
    flipped = correlate(errors, EXPERT, higher_is_better=False, n_resamples=100, seed=2)
    assert flipped.sign == -1
    assert raw.kendall_tau < 0
    assert flipped.kendall_tau == pytest.approx(-raw.kendall_tau, abs=1e-12)
    assert flipped.kendall_tau_ci[0] == pytest.approx(-raw.kendall_tau_ci[1], abs=1e-12)
    assert flipped.as_dict()["sign"] == -1.0


def test_as_dict_is_flat() -> None:
    flat = correlate([1, 2, 3, 4], [1, 3, 2, 4], n_resamples=0).as_dict()
    assert list(flat) == [
        "kendall_tau", "kendall_tau_ci_low", "kendall_tau_ci_high",
        "spearman", "spearman_ci_low", "spearman_ci_high",
        "pearson", "pearson_ci_low", "pearson_ci_high",
        "n_pairs", "n_missing", "sign",
    ]  # fmt: skip
    assert all(isinstance(v, float) for v in flat.values())
    assert flat["n_pairs"] == 4.0


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="3 judge scores but 2 expert"):
        correlate([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match="judge score at index 1 is infinite"):
        correlate([1, math.inf], [1, 2])
    with pytest.raises(ValueError, match="confidence"):
        correlate([1, 2], [1, 2], confidence=1.0)


def test_agreement_is_a_dataclass_with_tuples() -> None:
    result = correlate(JUDGE, EXPERT, n_resamples=20)
    assert isinstance(result, Agreement)
    assert isinstance(result.spearman_ci, tuple) and len(result.spearman_ci) == 2


def test_count_bias_by_human_errors() -> None:
    human = [0, 0, 1, 2, 4, 7, 1]
    predicted = [1, 0, 3, 2, 2, 5, 0]
    buckets = count_bias_by_human_errors(human, predicted, top_bucket=4)
    assert [b["bucket"] for b in buckets] == ["0", "1", "2", "3", "4+"]
    assert [b["n"] for b in buckets] == [2, 2, 1, 0, 2]
    assert buckets[0]["mean_bias"] == 0.5 and buckets[0]["median_bias"] == 0.5
    assert buckets[1]["mean_bias"] == 0.5  # +2 and -1
    assert buckets[2]["mean_bias"] == 0.0
    assert math.isnan(buckets[3]["mean_bias"]) and math.isnan(buckets[3]["median_bias"])
    assert buckets[4]["mean_bias"] == -2.0 and buckets[4]["median_bias"] == -2.0


def test_count_bias_refuses_bad_counts() -> None:
    with pytest.raises(ValueError, match="row 1: predicted total"):
        count_bias_by_human_errors([1, 2], [1, -1])
    with pytest.raises(ValueError, match="2 human totals but 1 predicted"):
        count_bias_by_human_errors([1, 2], [1])


def test_count_bias_default_buckets_and_the_smallest_top_bucket() -> None:
    assert [b["bucket"] for b in count_bias_by_human_errors([0, 5], [1, 5])] == ["0", "1", "2", "3", "4+"]
    one = count_bias_by_human_errors([0, 1, 3], [0, 3, 3], top_bucket=1)
    # Bucket "1+" holds the reports with 1 and 3 human errors: biases +2 and 0.
    assert [(b["bucket"], b["n"], b["mean_bias"], b["median_bias"]) for b in one] == [
        ("0", 1, 0.0, 0.0),
        ("1+", 2, 1.0, 1.0),
    ]
    with pytest.raises(ValueError) as error:
        count_bias_by_human_errors([1], [1], top_bucket=0)
    assert str(error.value) == "top_bucket must be >= 1, got 0"


def test_empty_buckets_are_nan_without_numpy_warnings() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        buckets = count_bias_by_human_errors([0], [2], top_bucket=2)
    assert buckets[0]["mean_bias"] == 2.0
    assert all(math.isnan(b["mean_bias"]) and math.isnan(b["median_bias"]) for b in buckets[1:])


@pytest.mark.parametrize(
    ("human", "predicted", "message"),
    [
        ([1, "2"], [1, 2], "row 1: human total must be a non-negative integer, got '2'"),
        ([1, 2], [True, 2], "row 0: predicted total must be a non-negative integer, got True"),
    ],
)
def test_count_bias_names_the_bad_total(human: list, predicted: list, message: str) -> None:
    with pytest.raises(ValueError) as error:
        count_bias_by_human_errors(human, predicted)
    assert str(error.value) == message


def test_constant_resamples_are_undefined_even_when_their_mean_is_rounded() -> None:
    # Three copies of 0.1 average to 0.10000000000000002: centred, such a resample is not exactly zero,
    # and only the explicit constancy check keeps its meaningless correlation out of the percentiles.
    rounded, varied = [0.1, 0.1, 0.7], [0.2, 0.5, 0.9]
    for judge, expert in ((rounded, varied), (varied, rounded)):
        result = correlate(judge, expert, n_resamples=400, seed=6)
        expected = _scipy_intervals(judge, expert, 400, 6)
        got = [result.kendall_tau_ci, result.spearman_ci, result.pearson_ci]
        for (low, high), (want_low, want_high) in zip(got, expected):
            assert low == pytest.approx(want_low, abs=1e-12)
            assert high == pytest.approx(want_high, abs=1e-12)


def test_a_resample_constant_on_one_side_only_is_undefined_though_rounding_centres_it_off_zero() -> None:
    # Seven scores, six of them 0.1: about a third of the resamples draw 0.1 alone, whose mean of seven copies is
    # rounded, so centred they are a tiny constant; the other side still varies in them. Each such resample is
    # undefined (counted at -1 and +1), never the near-zero correlation the rounding would give.
    rounded, varied = [0.1] * 6 + [0.7], [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.9]
    for judge, expert in ((rounded, varied), (varied, rounded)):
        assert correlate(judge, expert, n_resamples=400, seed=1).pearson_ci == (-1.0, 1.0)


def test_correlations_stay_within_minus_one_and_one_despite_rounding() -> None:
    # Exactly linear data: computed resample correlations land a few ulps beyond +-1 before clipping.
    x = [0.64, 0.27, 0.04, 0.02, 0.81, 0.91, 0.61]
    up = correlate(x, [0.7 * v + 0.1 for v in x], n_resamples=200, seed=0, confidence=0.999999)
    down = correlate(x, [-0.7 * v - 0.1 for v in x], n_resamples=200, seed=0, confidence=0.999999)
    for name in ("kendall_tau", "spearman", "pearson"):
        assert getattr(up, f"{name}_ci")[1] <= 1.0
        assert getattr(down, f"{name}_ci")[0] >= -1.0


def test_no_numpy_warnings_on_constant_resamples() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = correlate([0.2, 0.2, 0.9, 0.5], [0.0, 0.4, 1.0, 0.4], n_resamples=200, seed=3)
    assert not math.isnan(result.pearson_ci[0])


def test_settings_are_checked_with_their_values_in_the_message() -> None:
    for confidence in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError) as error:
            correlate([1, 2], [1, 2], confidence=confidence)
        assert str(error.value) == f"confidence must lie in (0, 1), got {confidence}"
    with pytest.raises(ValueError) as error:
        correlate([1, 2], [1, 2], n_resamples=-1)
    assert str(error.value) == "n_resamples must be >= 0, got -1"
    with pytest.raises(ValueError) as error:
        correlate([1, 2], [-math.inf, 2])
    assert str(error.value) == "expert score at index 0 is infinite"


def test_two_pairs_are_enough_for_a_correlation() -> None:
    result = correlate([1.0, 2.0], [3.0, 5.0], n_resamples=0)
    assert (result.kendall_tau, result.spearman, result.pearson) == pytest.approx((1.0, 1.0, 1.0), abs=1e-12)


def test_a_single_constant_resample_gives_the_widest_interval() -> None:
    # Seed 0 draws indices [1, 1]: the one resample is constant, so it could have been anything: the interval
    # spans [-1, 1], as any undefined resample counts at the bounds.
    assert list(np.random.default_rng(0).integers(0, 2, size=(1, 2))[0]) == [1, 1]
    result = correlate([1.0, 2.0], [3.0, 5.0], n_resamples=1, seed=0)
    assert result.kendall_tau == 1.0
    assert result.kendall_tau_ci == result.spearman_ci == result.pearson_ci == (-1.0, 1.0)


def test_defaults_are_a_thousand_resamples_seeded_with_zero() -> None:
    assert correlate(JUDGE, EXPERT) == correlate(JUDGE, EXPERT, n_resamples=1000, seed=0, confidence=0.95)


def test_two_pairs_give_an_interval_that_counts_their_constant_resamples() -> None:
    # A resample holding both points has tau = rho = r = 1; a constant one could have been anything. With
    # one resample, drawn non-constant, the interval is (1, 1); with twenty, about half are constant and the
    # interval is all of [-1, 1]: two points say nothing about agreement.
    single = correlate([1.0, 2.0], [3.0, 5.0], n_resamples=1, seed=1)
    assert single.kendall_tau_ci == (1.0, 1.0)
    assert single.pearson_ci == pytest.approx((1.0, 1.0), abs=1e-12)
    many = correlate([1.0, 2.0], [3.0, 5.0], n_resamples=20, seed=0)
    constant = sum(len(set(r)) == 1 for r in np.random.default_rng(0).integers(0, 2, size=(20, 2)))
    assert 1 < constant < 19
    for interval in (many.kendall_tau_ci, many.spearman_ci, many.pearson_ci):
        assert interval == pytest.approx((-1.0, 1.0), abs=1e-12)


def test_a_judge_that_varies_on_one_report_gets_no_confident_interval() -> None:
    # Eleven identical judge scores and one lower one that happens to sit on the expert's worst report: tau is
    # positive, but a third of the resamples miss that report and carry no information. Leaving them out gave an
    # interval that excluded 0; counted as unknown, the interval reaches down to -1.
    judge = [1.0] * 11 + [0.5]
    expert = [0.9, 0.8, 1.0, 0.7, 0.95, 0.85, 0.9, 0.6, 1.0, 0.75, 0.8, 0.1]
    result = correlate(judge, expert, n_resamples=1000, seed=0)
    assert result.kendall_tau > 0.3
    low, high = result.kendall_tau_ci
    assert low == -1.0 and high > result.kendall_tau


def test_one_constant_side_is_undefined_without_warnings() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = correlate([0.5, 0.5, 0.5], [0.1, 0.2, 0.3], n_resamples=10)
        other = correlate([0.1, 0.2, 0.3], [0.5, 0.5, 0.5], n_resamples=10)
    for agreement in (result, other):
        flat = agreement.as_dict()
        for name in ("kendall_tau", "spearman", "pearson"):
            assert all(math.isnan(flat[f"{name}{part}"]) for part in ("", "_ci_low", "_ci_high"))


def test_the_bootstrap_in_chunks_gives_the_intervals_of_one_draw(monkeypatch):
    import numpy as np

    import radiology_tasks.core.agreement as agreement

    rng = np.random.default_rng(3)
    x, y = rng.normal(size=300), rng.normal(size=300)
    monkeypatch.setattr(agreement, "_CHUNK_ELEMENTS", 10**9)  # every resample in one draw
    whole = agreement._bootstrap_intervals(x, y, n_resamples=500, confidence=0.95, seed=1)
    monkeypatch.setattr(agreement, "_CHUNK_ELEMENTS", 300 * 7)  # chunks of 7 resamples, the last one shorter
    chunked = agreement._bootstrap_intervals(x, y, n_resamples=500, confidence=0.95, seed=1)
    assert chunked == whole


def test_paired_p_value_counts_draws_as_far_from_the_observed_difference_as_it_is_from_zero() -> None:
    # Observed 0.2: 0.5 and -0.1 lie 0.3 from it (extreme), 0.25 lies 0.05 (not), NaN is undefined (extreme).
    differences = np.array([0.5, -0.1, 0.25, math.nan])
    assert paired_p_value(differences, 0.2) == pytest.approx((3 + 1) / (4 + 1))
    # The same distance counts as extreme, and a negative observed difference is measured by its size.
    assert paired_p_value(np.array([0.0, 0.1]), 0.1) == pytest.approx((1 + 1) / (2 + 1))
    assert paired_p_value(np.array([0.0, -0.15]), -0.1) == pytest.approx((1 + 1) / (2 + 1))
    # A draw short of the distance by a rounding error still counts; one short by more does not.
    assert paired_p_value(np.array([0.2 - 1e-15]), 0.1) == 1.0
    assert paired_p_value(np.array([0.2 - 1e-9]), 0.1) == pytest.approx(0.5)
    # No difference observed: every draw is at least as far from it as zero is.
    assert paired_p_value(np.array([0.3, -0.2, 0.0]), 0.0) == 1.0


def test_interval_of_draws_counts_undefined_draws_at_the_bounds() -> None:
    draws = np.array([0.5, math.nan])
    # Coverage 0.5: the low end is the 25th percentile of [0.5, -1], the high end the 75th of [0.5, +1].
    assert interval_of_draws(draws, confidence=0.5) == (pytest.approx(-0.625), pytest.approx(0.875))
    assert interval_of_draws(draws, confidence=0.5, bounds=(0.0, 2.0)) == (pytest.approx(0.125), pytest.approx(1.625))
    # Defined draws alone: the percentiles of the draws (5th and 95th at coverage 0.9).
    defined = np.linspace(0.0, 1.0, 101)
    assert interval_of_draws(defined, confidence=0.9) == (pytest.approx(0.05), pytest.approx(0.95))
    assert interval_of_draws(np.array([math.nan, math.nan]), confidence=0.9) == (-1.0, 1.0)
    assert interval_of_draws(np.array([math.nan]), confidence=0.9, bounds=(0.0, 3.0)) == (0.0, 3.0)
    empty = interval_of_draws(np.array([]), confidence=0.9)
    assert math.isnan(empty[0]) and math.isnan(empty[1])


@pytest.mark.parametrize("limit", [0, 1100])
def test_resampled_taus_equal_scipy_from_kept_signs_and_from_signs_rebuilt_by_block(monkeypatch, limit) -> None:
    # Up to SIGN_MATRIX_LIMIT points the pair signs are kept whole; past it they are rebuilt 512 rows at a time
    # (1100 points: three blocks, the last one partial). Both give scipy's tau-b on every resample.
    import radiology_tasks.core.agreement as agreement

    monkeypatch.setattr(agreement, "SIGN_MATRIX_LIMIT", limit)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 4, size=1100).astype(float)
    y = np.round(x + rng.normal(0, 1.0, size=1100))
    resamples = rng.integers(0, 1100, size=(12, 1100))
    resampler = agreement.KendallResampler(x, y)
    assert (resampler.signs is None) == (limit == 0)
    taus = resampler(resamples)
    expected = [stats.kendalltau(x[r], y[r], variant="b").statistic for r in resamples]
    assert taus == pytest.approx(expected, abs=1e-12)


def test_resampled_taus_are_the_same_to_the_bit_however_the_resamples_are_chunked() -> None:
    rng = np.random.default_rng(6)
    x, y = rng.integers(0, 3, size=200).astype(float), rng.normal(size=200)
    resamples = rng.integers(0, 200, size=(30, 200))
    resampler = KendallResampler(x, y)
    whole = resampler(resamples)
    assert np.array_equal(np.concatenate([resampler(resamples[:7]), resampler(resamples[7:])]), whole)


def test_resampled_taus_leave_a_constant_resample_undefined_without_a_warning() -> None:
    import warnings

    x, y = np.array([1.0, 2.0, 3.0]), np.array([1.0, 3.0, 2.0])
    resamples = np.array([[0, 0, 0], [0, 1, 2], [2, 1, 0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        taus = KendallResampler(x, y)(resamples)
    assert math.isnan(taus[0])
    assert taus[1:] == pytest.approx([stats.kendalltau(x, y).statistic] * 2)
