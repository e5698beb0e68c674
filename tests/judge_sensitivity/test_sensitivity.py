"""The metric arithmetic on the hand-worked set (`tests.judge_sensitivity.hand_worked`) and on edge cases."""

from __future__ import annotations

import math

import pytest

from radiology_tasks.scorers.judge_sensitivity.sensitivity import (
    JudgedVariant,
    balance,
    count_recovery,
    detection_f1,
    discrimination,
    exclusions,
    monotonicity,
    robustness,
    score_trend,
)
from tests.judge_sensitivity.hand_worked import EXCLUDED, EXPECTED, JUDGED, UNREADABLE


def hand_worked() -> list[JudgedVariant]:
    variants = []
    for source, judged in JUDGED.items():
        for name, verdict in judged.items():
            kind = "paraphrase" if name == "paraphrase" else "error"
            category, n = (None, 0) if kind == "paraphrase" else (name[0], int(name[1]))
            if verdict == EXCLUDED:
                variants.append(JudgedVariant(source, kind, category, n, excluded="failed_check"))
            elif verdict == UNREADABLE:
                variants.append(JudgedVariant(source, kind, category, n))
            else:
                counts, score = verdict
                predicted = {c: counts.get(c, 0) for c in "abcdef"}
                variants.append(JudgedVariant(source, kind, category, n, None, sum(counts.values()), score, predicted))
    return variants


def test_discrimination_robustness_and_balance() -> None:
    variants = hand_worked()
    assert discrimination(variants, compare_scores=True) == (pytest.approx(EXPECTED["discrimination"]), 10)
    assert robustness(variants) == (EXPECTED["robustness"], 2)
    assert balance(0.8, 0.5) == pytest.approx(EXPECTED["balance"])


def test_without_a_stated_score_only_significant_errors_count_as_penalties() -> None:
    # GREEN states no score: R1 a2 (no error, score below the paraphrase) is no longer penalised: 7 / 10.
    assert discrimination(hand_worked(), compare_scores=False) == (pytest.approx(0.7), 10)


def test_monotonicity_and_trend() -> None:
    variants = hand_worked()
    assert monotonicity(variants, 3) == (EXPECTED["monotonicity"], 2)
    assert score_trend(variants) == pytest.approx(EXPECTED["monotonicity_kendall_tau"])


def test_count_recovery_by_number_of_injected_errors() -> None:
    recovered = count_recovery(hand_worked(), 3)
    assert {n: (pytest.approx(mean), count) for n, (mean, count) in recovered.items()} == {
        1: (pytest.approx(1 / 3), 3),
        2: (pytest.approx(0.75), 4),
        3: (pytest.approx(7 / 3), 3),
    }


def test_detection_f1_per_injected_type() -> None:
    result = detection_f1(hand_worked(), ("a", "b"))
    assert result["a"] == (pytest.approx(10 / 18), 12)
    assert result["b"] == (pytest.approx(6 / 11), 8)


def test_exclusions_by_reason() -> None:
    counts = exclusions(hand_worked())
    assert counts["excluded"] == 1 and counts["failed_check"] == 1
    assert sum(counts.values()) == 2


def test_empty_input_gives_nan_shares_and_zero_counts() -> None:
    d, d_n = discrimination([], compare_scores=True)
    r, r_n = robustness([])
    m, m_n = monotonicity([], 3)
    assert math.isnan(d) and math.isnan(r) and math.isnan(m) and (d_n, r_n, m_n) == (0, 0, 0)
    assert math.isnan(balance(d, r)) and math.isnan(score_trend([]))
    assert all(math.isnan(mean) and count == 0 for mean, count in count_recovery([], 2).values())
    assert math.isnan(detection_f1([], ("a",))["a"][0])
    assert exclusions([])["excluded"] == 0


def test_balance_of_two_zero_shares_is_zero() -> None:
    assert balance(0.0, 0.0) == 0.0
    assert balance(1.0, 0.0) == 0.0


def test_a_single_error_count_or_constant_scores_have_no_trend() -> None:
    one = [JudgedVariant("r", "error", "a", 1, score=0.5)]
    flat = [JudgedVariant("r", "error", "a", n, score=0.5) for n in (1, 2, 3)]
    assert math.isnan(score_trend(one)) and math.isnan(score_trend(flat))
    assert monotonicity(flat, 1) == (pytest.approx(float("nan"), nan_ok=True), 0)
    assert monotonicity(flat, 3) == (1.0, 1)  # equal scores never rise


def test_unscored_paraphrase_leaves_the_error_variant_to_its_count() -> None:
    variants = [
        JudgedVariant("r", "paraphrase", None, 0),  # unreadable: no baseline score
        JudgedVariant("r", "error", "a", 1, significant=0, score=0.2, predicted={}),
    ]
    assert discrimination(variants, compare_scores=True) == (0.0, 1)
    assert math.isnan(robustness(variants)[0])
