"""The suite's tables on fixed numbers: correlation matrix against scipy, expert tau, pos/neg pairing and table."""

from __future__ import annotations

import math

import pytest
from scipy import stats

from radiology_tasks.core.agreement import correlate
from radiology_tasks.scorers.suite.suite_tables import (
    correlation_matrix,
    expert_table,
    pos_neg_table,
    sensitivity_pairs,
)

VALUES = {
    "bleu_2": [0.1, 0.4, None, 0.35, 0.8, 0.2],
    "rouge_l": [0.3, 0.5, 0.6, 0.2, 0.9, float("nan")],
    "vert": [1.0, 0.5, 0.5, 0.0, 1.0, 0.5],
}


def test_correlation_matrix_is_scipy_over_the_samples_both_metrics_have():
    cells = {(c.first, c.second): c for c in correlation_matrix(VALUES)}
    assert len(cells) == 9
    for (first, second), cell in cells.items():
        both = [
            (a, b)
            for a, b in zip(VALUES[first], VALUES[second])
            if a is not None and b is not None and not math.isnan(a) and not math.isnan(b)
        ]
        xs, ys = zip(*both)
        assert cell.n == len(both)
        assert cell.kendall == pytest.approx(stats.kendalltau(xs, ys).statistic)
        assert cell.pearson == pytest.approx(stats.pearsonr(xs, ys).statistic)
        assert cell.kendall == pytest.approx(cells[second, first].kendall)
    assert cells["bleu_2", "rouge_l"].n == 4
    assert cells["vert", "vert"].kendall == pytest.approx(1.0)


def test_a_constant_or_too_short_column_gives_nan():
    cells = correlation_matrix({"a": [0.5, 0.5, 0.5], "b": [0.1, 0.2, 0.3], "c": [0.2, None, None]})
    by = {(c.first, c.second): c for c in cells}
    assert math.isnan(by["a", "b"].kendall) and math.isnan(by["a", "b"].pearson)
    assert math.isnan(by["b", "c"].kendall) and by["b", "c"].n == 1
    with pytest.raises(ValueError, match="one value per sample"):
        correlation_matrix({"a": [0.1, 0.2], "b": [0.1]})


def test_expert_table_is_correlate_with_error_scores_negated():
    expert = [0.9, 0.5, 0.6, 0.1, 1.0, 0.4]
    values = {"rouge_l": VALUES["rouge_l"], "radcliq_v1": [0.5, 1.5, 1.0, 2.5, 0.2, 1.8]}
    rows = {row.metric: row for row in expert_table(values, expert, n_resamples=200, seed=3)}
    reference = correlate(values["rouge_l"], expert, n_resamples=200, seed=3)
    assert rows["rouge_l"].kendall_tau == pytest.approx(reference.kendall_tau)
    assert (rows["rouge_l"].ci_low, rows["rouge_l"].ci_high) == pytest.approx(reference.kendall_tau_ci)
    assert rows["rouge_l"].n == 5
    # RadCliQ is an error estimate: lower is better, so it agrees with the experts when tau is positive.
    assert rows["radcliq_v1"].sign == -1
    assert rows["radcliq_v1"].kendall_tau == pytest.approx(-stats.kendalltau(values["radcliq_v1"], expert).statistic)
    assert rows["radcliq_v1"].kendall_tau > 0.8


def test_pos_and_neg_rows_pair_by_source_not_by_position():
    ids = ["b-neg", "a-pos", "x", "a-neg", "b-pos", "c-pos"]
    kinds = ["neg", "pos", None, "neg", "pos", "pos"]
    sources = ["b", "a", None, "a", "b", "c"]
    matched = sensitivity_pairs(ids, kinds, sources)
    assert matched.pairs == [(1, 3), (4, 0)]
    assert matched.unmatched == ["c-pos"]
    with pytest.raises(ValueError, match="two pos rows for source 'a'"):
        sensitivity_pairs(["a1", "a2"], ["pos", "pos"], ["a", "a"])


def test_pairing_by_id_suffix_only_when_asked():
    ids = ["ctc-01-para", "ctc-01-err", "ctc-01-multi", "ctc-02-err", "ctc-02-para"]
    none = [None] * len(ids)
    assert sensitivity_pairs(ids, none, none).pairs == []
    matched = sensitivity_pairs(ids, none, none, by_id_suffix=True)
    assert matched.pairs == [(0, 1), (4, 3)]
    assert matched.unmatched == []


def test_pos_neg_table_on_a_fixed_set():
    values = {
        "bleu_2": [0.2, 0.9, 0.4, 0.8, 0.5, 0.5],
        "vert": [1.0, 0.4, 0.9, None, 0.7, 0.3],
        "radcliq_v1": [0.5, 1.5, 2.0, 1.0, 1.0, 1.0],
    }
    pairs = [(0, 1), (2, 3), (4, 5)]
    rows = {row.metric: row for row in pos_neg_table(values, pairs)}
    bleu = rows["bleu_2"]
    assert (bleu.pos_mean, bleu.neg_mean) == pytest.approx((1.1 / 3, 2.2 / 3))
    assert bleu.gap == pytest.approx(-1.1 / 3)
    assert bleu.pos_better == pytest.approx(0.0) and bleu.ties == pytest.approx(1 / 3) and bleu.n == 3
    vert = rows["vert"]  # the pair with a missing neg score is left out
    assert vert.n == 2 and vert.pos_mean == pytest.approx(0.85) and vert.neg_mean == pytest.approx(0.35)
    assert vert.pos_better == pytest.approx(1.0)
    radcliq = rows["radcliq_v1"]  # lower is better: pos is better where its error estimate is lower
    assert radcliq.pos_better == pytest.approx(1 / 3) and radcliq.ties == pytest.approx(1 / 3)
    assert radcliq.gap == pytest.approx((3.5 - 3.5) / 3)
    empty = pos_neg_table({"a": [None, 0.1]}, [(0, 1)])[0]
    assert empty.n == 0 and math.isnan(empty.gap)
