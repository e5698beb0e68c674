"""The order arithmetic: relations against scores, direction, tolerance, and a case's outcome from its relations."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.metrics import unscored_share
from radiology_tasks.ranking_tests.cases import Relation
from radiology_tasks.ranking_tests.metrics import (
    category_accuracy,
    category_key,
    ranking_accuracy,
    unscored_reasons,
    wilson_interval,
)
from radiology_tasks.ranking_tests.outcome import case_outcome, relation_outcome, tolerance_param

ORDER = Relation(better="C1", worse="C2")
SAME = Relation(better="C1", worse="C2", tie=True)


@pytest.mark.parametrize(
    ("relation", "c1", "c2", "higher", "expected"),
    [
        (ORDER, 0.8, 0.5, True, "right"),
        (ORDER, 0.5, 0.8, True, "wrong"),
        (ORDER, 0.5, 0.505, True, "tie"),  # within 0.01
        (ORDER, 0.5, 0.51, True, "tie"),  # exactly at the tolerance
        (ORDER, 0.5, 0.52, True, "wrong"),
        # Lower is better (an error count): fewer errors for C1 is the expected order.
        (ORDER, 1.0, 3.0, False, "right"),
        (ORDER, 3.0, 1.0, False, "wrong"),
        (ORDER, 2.0, 2.0, False, "tie"),
        (SAME, 0.5, 0.505, True, "right"),
        (SAME, 0.5, 0.51, True, "right"),
        (SAME, 0.5, 0.52, True, "wrong"),
        (SAME, 0.52, 0.5, False, "wrong"),
    ],
)
def test_relation_outcome(relation, c1, c2, higher, expected):
    scores = {"C1": c1, "C2": c2}
    assert relation_outcome(relation, scores, higher_is_better=higher, tolerance=0.01) == expected


def test_zero_tolerance_keeps_only_exact_ties():
    assert relation_outcome(ORDER, {"C1": 0.5001, "C2": 0.5}, higher_is_better=True, tolerance=0.0) == "right"
    assert relation_outcome(ORDER, {"C1": 0.5, "C2": 0.5}, higher_is_better=True, tolerance=0.0) == "tie"
    assert relation_outcome(SAME, {"C1": 0.5001, "C2": 0.5}, higher_is_better=True, tolerance=0.0) == "wrong"


def test_an_unscored_candidate_has_no_outcome():
    with pytest.raises(ValueError, match="no score"):
        relation_outcome(ORDER, {"C1": math.nan, "C2": 0.5}, higher_is_better=True, tolerance=0.01)


@pytest.mark.parametrize(
    ("outcomes", "expected"),
    [
        (["right", "right"], "right"),
        (["right", "tie"], "tie"),
        (["tie", "wrong"], "wrong"),
        (["wrong", "right"], "wrong"),
    ],
)
def test_case_outcome_wrong_beats_tie_beats_right(outcomes, expected):
    assert case_outcome(outcomes) == expected


def _sample(outcome: str | None, category: str = "location") -> SampleScore:
    value = {
        "right": {"accuracy": 1.0, "tie": 0.0},
        "wrong": {"accuracy": 0.0, "tie": 0.0},
        "tie": {"accuracy": 0.0, "tie": 1.0},
        None: {"accuracy": math.nan, "tie": math.nan},
    }[outcome]
    return SampleScore(score=Score(value=value, metadata={"category": category}), sample_id=f"{category}-{outcome}")


def test_accuracy_ties_and_unscored_are_counted_apart():
    scores = [_sample("right"), _sample("right"), _sample("wrong"), _sample("tie"), _sample(None)]
    low, high = wilson_interval(2, 4, 0.95)
    assert ranking_accuracy()(scores) == {
        "accuracy_mean": 0.5,
        "accuracy_ci_low": low,
        "accuracy_ci_high": high,
        "tie_share": 0.25,
    }
    assert unscored_share("accuracy")(scores) == {"unscored_share": 0.2}


def test_unscored_cases_are_counted_per_reason():
    def unscored(code: str) -> SampleScore:
        sample = _sample(None)
        sample.score.metadata = {"unscored": {"accuracy": code, "tie": code}}
        return sample

    scores = [unscored("invalid_response_format"), unscored("judge_refused"), unscored("judge_refused"), _sample("tie")]
    assert unscored_reasons()(scores) == {"unscored_invalid_response_format": 1.0, "unscored_judge_refused": 2.0}
    assert unscored_reasons()([_sample("right")]) == {}


def test_wilson_interval_matches_the_formula():
    # 2 of 4 at 95%: centre (p + z^2/2n) / (1 + z^2/n), half-width z sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n).
    z, n, p = 1.959963984540054, 4, 0.5
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    assert wilson_interval(2, 4, 0.95) == pytest.approx((centre - half, centre + half))
    assert all(math.isnan(v) for v in wilson_interval(0, 0, 0.95))


def test_nothing_scored_gives_no_accuracy_rather_than_zero():
    assert ranking_accuracy()([_sample(None)]) == {}
    assert ranking_accuracy()([]) == {}


def test_category_accuracy_per_category_over_scored_cases():
    scores = [_sample("right", "Location"), _sample("tie", "Location"), _sample(None, "Location")]
    scores += [_sample("wrong", "patient context"), _sample(None, "Severity")]
    result = category_accuracy()(scores)
    assert result["location_accuracy"] == 0.5  # type: ignore[index]
    assert result["patient_context_accuracy"] == 0.0  # type: ignore[index]
    assert math.isnan(result["severity_accuracy"])  # type: ignore[index]
    assert category_key("False Finding Penalization") == "false_finding_penalization_accuracy"


def test_tie_tolerance_takes_zero_and_finite_numbers_only():
    assert tolerance_param(0) == 0.0 and tolerance_param(0.05) == 0.05
    for bad in (-0.01, float("inf"), float("nan"), True, "0.01", None):
        with pytest.raises(InputError, match="tie_tolerance must be a number >= 0"):
            tolerance_param(bad)


def test_a_case_without_relations_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="a case needs at least one expected relation"):
        case_outcome([])


def test_the_interval_follows_its_confidence_and_a_value_that_is_no_dict_is_unscored():
    assert (
        ranking_accuracy(confidence=0.5)([_sample("right"), _sample("wrong")])["accuracy_ci_low"]
        == (  # type: ignore[index]
            wilson_interval(1, 2, 0.5)[0]
        )
    )
    assert wilson_interval(1, 2, 0.5) != wilson_interval(1, 2, 0.95)
    odd = SampleScore(score=Score(value=1.0, metadata={"category": "x"}), sample_id="odd")
    assert ranking_accuracy()([odd]) == {}
    assert category_key("?!") == "uncategorised_accuracy"
