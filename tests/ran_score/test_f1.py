"""Per-label, macro and micro scores on a small labelled set, each worked out by hand."""

from __future__ import annotations

import math

import pytest

from radiology_tasks.scorers.ran_score.f1 import collect_decisions, f1_table

KEYS = ["effusion", "cardiomegaly", "pneumothorax", "fracture"]


def labels(effusion, cardiomegaly, pneumothorax, fracture=0):
    return dict(zip(KEYS, (effusion, cardiomegaly, pneumothorax, fracture)))


# (reference, candidate) per report; nobody has a fracture.
REPORTS = [
    (labels(1, 1, 0), labels(1, 0, 0)),
    (labels(0, 1, 0), labels(1, 1, 0)),
    (labels(1, 0, 1), labels(1, 0, 0)),
]


def test_per_label_macro_and_micro_by_hand():
    table = f1_table(collect_decisions(REPORTS, KEYS, count_unknown_as_wrong=True))
    effusion, cardiomegaly, pneumothorax, fracture = (table.per_label[k] for k in KEYS)
    # effusion: truth 1,0,1 vs 1,1,1 -> tp 2, fp 1, fn 0.
    assert (effusion.precision, effusion.recall, effusion.f1, effusion.support) == (pytest.approx(2 / 3), 1.0, 0.8, 2)
    # cardiomegaly: truth 1,1,0 vs 0,1,0 -> tp 1, fp 0, fn 1.
    assert (cardiomegaly.precision, cardiomegaly.recall, cardiomegaly.f1) == (1.0, 0.5, pytest.approx(2 / 3))
    # pneumothorax: truth 0,0,1, never predicted -> precision 0/0 and F1 count 0 (zero_division=0).
    assert (pneumothorax.precision, pneumothorax.recall, pneumothorax.f1, pneumothorax.support) == (0.0, 0.0, 0.0, 1)
    # fracture: no positive on either side -> every score 0, and it still counts in the macro mean.
    assert (fracture.precision, fracture.recall, fracture.f1, fracture.support) == (0.0, 0.0, 0.0, 0)
    assert table.absent == ["fracture"]
    assert table.macro_f1 == pytest.approx((0.8 + 2 / 3 + 0 + 0) / 4)  # 11/30
    assert table.macro_precision == pytest.approx((2 / 3 + 1 + 0 + 0) / 4)
    assert table.macro_recall == pytest.approx((1 + 0.5 + 0 + 0) / 4)
    # Pooled over the 12 decisions: tp 3, fp 1, fn 2.
    assert table.micro_precision == pytest.approx(3 / 4)
    assert table.micro_recall == pytest.approx(3 / 5)
    assert table.micro_f1 == pytest.approx(2 / 3)


UNKNOWN_CANDIDATE = (labels(1, 0, 0), {**labels(1, 0, 0), "effusion": None, "pneumothorax": None})


def test_an_unknown_candidate_label_counts_as_wrong_under_worst():
    decisions = collect_decisions([*REPORTS, UNKNOWN_CANDIDATE], KEYS, count_unknown_as_wrong=True)
    assert decisions.filled_in == {"effusion": 1, "cardiomegaly": 0, "pneumothorax": 1, "fracture": 0}
    table = f1_table(decisions)
    # effusion: truth 1,0,1,1 vs 1,1,1,0 -> tp 2, fp 1, fn 1: F1 4/6. pneumothorax: 0,0,1,0 vs 0,0,0,1 -> 0.
    assert table.per_label["effusion"].f1 == pytest.approx(2 / 3)
    assert table.per_label["pneumothorax"].f1 == 0.0
    assert table.macro_f1 == pytest.approx((2 / 3 + 2 / 3 + 0 + 0) / 4)
    # tp 2 + 1; fp 1 + 1; fn 1 + 1 + 1.
    assert table.micro_f1 == pytest.approx(6 / 11)


def test_an_unknown_candidate_label_is_left_out_under_exclude():
    decisions = collect_decisions([*REPORTS, UNKNOWN_CANDIDATE], KEYS, count_unknown_as_wrong=False)
    assert decisions.left_out == {"effusion": 1, "cardiomegaly": 0, "pneumothorax": 1, "fracture": 0}
    table = f1_table(decisions)
    assert table.per_label["effusion"].compared == 3 and table.per_label["cardiomegaly"].compared == 4
    assert table.macro_f1 == pytest.approx((0.8 + 2 / 3) / 4)


def test_an_unknown_reference_label_is_left_out_under_both_policies():
    unknown_reference = ({**labels(0, 0, 0), "cardiomegaly": None}, labels(0, 1, 0))
    for worst in (True, False):
        decisions = collect_decisions([*REPORTS, unknown_reference], KEYS, count_unknown_as_wrong=worst)
        assert decisions.left_out["cardiomegaly"] == 1 and decisions.filled_in["cardiomegaly"] == 0
        assert f1_table(decisions).per_label["cardiomegaly"].f1 == pytest.approx(2 / 3)


def test_no_comparable_report_gives_nan_not_zero():
    table = f1_table(collect_decisions([], KEYS, count_unknown_as_wrong=True))
    assert all(math.isnan(score.f1) for score in table.per_label.values())
    assert math.isnan(table.macro_f1) and math.isnan(table.micro_f1)
    only_unknown = [(labels(1, 0, 0), dict.fromkeys(KEYS))]
    table = f1_table(collect_decisions(only_unknown, KEYS, count_unknown_as_wrong=False))
    assert math.isnan(table.macro_f1) and table.per_label["effusion"].compared == 0


def test_binary_scores_equal_scikit_learns_with_zero_division_0():
    import random

    from sklearn.metrics import precision_recall_fscore_support

    from radiology_tasks.scorers.ran_score.f1 import binary_scores

    rng = random.Random(0)
    cases = [([0, 0, 0], [0, 0, 0]), ([1, 1], [0, 0]), ([0, 0], [1, 1]), ([1], [1])]
    cases += [([rng.randint(0, 1) for _ in range(n)], [rng.randint(0, 1) for _ in range(n)]) for n in range(1, 40)]
    for truth, predicted in cases:
        expected = precision_recall_fscore_support(truth, predicted, labels=[1], average=None, zero_division=0)
        assert binary_scores(truth, predicted) == pytest.approx(tuple(float(v[0]) for v in expected)), truth
