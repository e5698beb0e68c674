"""Tests for scorers.report_judge.scores: exact values of GREEN, F1, EC and the weighted formula."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from radiology_tasks.core.records import ErrorCounts
from radiology_tasks.scorers.report_judge.parse import Assessment
from radiology_tasks.scorers.report_judge.scores import (
    F1_WEIGHTS,
    FORMULA_WEIGHTS,
    GREEN_WEIGHTS,
    assessment_scores,
    formula_score,
    green,
    green_ec,
    green_f1,
    weighted_score,
)


@pytest.mark.parametrize(
    ("matched", "significant", "expected"),
    [(3, 1, 0.75), (2, 2, 0.5), (1, 3, 0.25), (5, 0, 1.0), (1, 0, 1.0)],
)
def test_green(matched: int, significant: int, expected: float) -> None:
    assert green(matched, significant) == expected


@pytest.mark.parametrize(
    ("matched", "significant", "expected"),
    [(3, 1, 6 / 7), (2, 2, 2 / 3), (1, 3, 0.4), (5, 0, 1.0)],
)
def test_green_f1(matched: int, significant: int, expected: float) -> None:
    assert green_f1(matched, significant) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("score", [green, green_f1])
def test_zero_matched_policies(score: Callable[..., float]) -> None:
    assert score(0, 0) == 1.0
    assert score(0, 0, zero_matched="perfect_if_no_errors") == 1.0
    assert score(0, 2, zero_matched="perfect_if_no_errors") == 0.0
    assert score(0, 0, zero_matched="original") == 0.0
    assert score(0, 2, zero_matched="original") == 0.0


def test_zero_matched_policy_does_not_change_nonzero_matched() -> None:
    assert green(3, 1, zero_matched="original") == 0.75
    assert green_f1(1, 3, zero_matched="original") == 0.4


def test_green_ignores_insignificant_errors_but_formula_does_not() -> None:
    assert green(0, 0) == 1.0
    assert formula_score(0, 0, 2) == 0.0
    assert formula_score(0, 0, 0) == 1.0
    assert formula_score(0, 0, 0, zero_matched="original") == 0.0


@pytest.mark.parametrize(
    ("matched", "significant", "insignificant", "expected"),
    [(3, 1, 0, 0.6), (4, 1, 2, 4 / 7), (2, 0, 1, 0.8), (1, 1, 1, 1 / 3.5), (6, 0, 0, 1.0)],
)
def test_formula_score(matched: int, significant: int, insignificant: int, expected: float) -> None:
    assert formula_score(matched, significant, insignificant) == pytest.approx(expected, abs=1e-12)


def test_unified_form_reproduces_each_metric() -> None:
    w_m, w_s, w_i = GREEN_WEIGHTS
    assert weighted_score(3, 1, 7, w_matched=w_m, w_significant=w_s, w_insignificant=w_i) == 0.75
    w_m, w_s, w_i = F1_WEIGHTS
    assert weighted_score(3, 1, 7, w_matched=w_m, w_significant=w_s, w_insignificant=w_i) == pytest.approx(
        6 / 7, abs=1e-12
    )
    w_m, w_s, w_i = FORMULA_WEIGHTS
    assert weighted_score(4, 1, 2, w_matched=w_m, w_significant=w_s, w_insignificant=w_i) == pytest.approx(
        4 / 7, abs=1e-12
    )
    assert (GREEN_WEIGHTS, F1_WEIGHTS, FORMULA_WEIGHTS) == (
        (1.0, 1.0, 0.0),
        (2.0, 1.0, 0.0),
        (1.0, 2.0, 0.5),
    )


def test_weighted_score_custom_weights() -> None:
    assert weighted_score(2, 1, 2, w_matched=3, w_significant=1, w_insignificant=1.5) == 0.6


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((-1, 0, 0), "matched must be >= 0, got -1"),
        ((1, -2, 0), "significant must be >= 0, got -2"),
        ((1, 0, -3), "insignificant must be >= 0, got -3"),
    ],
)
def test_negative_counts_are_refused(args: tuple[int, int, int], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        formula_score(*args)


def test_non_integer_counts_are_refused() -> None:
    with pytest.raises(TypeError, match="matched must be an int, got float"):
        green(1.5, 0)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="significant must be an int, got bool"):
        green(1, True)


@pytest.mark.parametrize("weights", [(0, 1, 0), (1, -1, 0), (1, 1, -0.5)])
def test_bad_weights_are_refused(weights: tuple[float, float, float]) -> None:
    w_m, w_s, w_i = weights
    with pytest.raises(ValueError) as caught:
        weighted_score(1, 1, 1, w_matched=w_m, w_significant=w_s, w_insignificant=w_i)
    assert str(caught.value) == (
        f"weights must be w_matched > 0 and w_significant, w_insignificant >= 0; got ({w_m}, {w_s}, {w_i})"
    )


def test_zero_error_weights_are_allowed_and_ignore_those_errors() -> None:
    # A fractional significant weight below 1 is allowed too: 2 / (2 + 0.5 * 2) = 2 / 3.
    assert weighted_score(2, 2, 0, w_matched=1, w_significant=0.5, w_insignificant=0) == pytest.approx(2 / 3)
    assert weighted_score(2, 5, 0, w_matched=1, w_significant=0, w_insignificant=0) == 1.0
    assert weighted_score(2, 0, 5, w_matched=1, w_significant=1, w_insignificant=0) == 1.0


def test_weighted_score_defaults_to_perfect_if_no_errors_when_nothing_matched() -> None:
    assert weighted_score(0, 0, 0, w_matched=1, w_significant=1, w_insignificant=1) == 1.0
    assert weighted_score(0, 0, 1, w_matched=1, w_significant=1, w_insignificant=1) == 0.0


def test_unknown_policy_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown zero_matched policy 'ignore'"):
        green(0, 0, zero_matched="ignore")  # type: ignore[arg-type]


def test_green_ec() -> None:
    assert green_ec(3) == 3
    assert green_ec(ErrorCounts(a=1, b=2, f=4)) == 7
    with pytest.raises(ValueError, match="significant must be >= 0"):
        green_ec(-1)


def _assessment(matched: int, significant: ErrorCounts, insignificant: ErrorCounts) -> Assessment:
    return Assessment(
        significant=significant,
        insignificant=insignificant,
        matched=matched,
        score=None,
        explanation=None,
    )


def test_assessment_scores() -> None:
    scores = assessment_scores(_assessment(4, ErrorCounts(b=1), ErrorCounts(a=1, d=1)))
    assert scores == {
        "green": 0.8,
        "green_ec": 1.0,
        "green_f1": pytest.approx(8 / 9, abs=1e-12),
        "formula_check": pytest.approx(4 / 7, abs=1e-12),
    }


def test_assessment_scores_zero_matched() -> None:
    empty = _assessment(0, ErrorCounts(), ErrorCounts())
    assert assessment_scores(empty) == {
        "green": 1.0,
        "green_ec": 0.0,
        "green_f1": 1.0,
        "formula_check": 1.0,
    }
    assert assessment_scores(empty, zero_matched="original") == {
        "green": 0.0,
        "green_ec": 0.0,
        "green_f1": 0.0,
        "formula_check": 0.0,
    }
    only_minor = _assessment(0, ErrorCounts(), ErrorCounts(c=1))
    assert assessment_scores(only_minor) == {
        "green": 1.0,
        "green_ec": 0.0,
        "green_f1": 1.0,
        "formula_check": 0.0,
    }
