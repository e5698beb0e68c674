"""Pairwise preference accuracy over candidates of one reference, as in preference benchmarks such as RadPref."""

from __future__ import annotations

import math

import pytest

from radiology_tasks.scorers.crimson.preference import preference_accuracy


def test_pairs_are_formed_within_a_reference_only():
    rows = [("r1", 5.0, 0.9), ("r1", 3.0, 0.4), ("r2", 1.0, 0.95), ("r2", 4.0, 0.1)]
    # r1: ordered as the experts; r2: reversed. Across references (r1's 3.0 against r2's 4.0) no pair is formed.
    outcome = preference_accuracy(rows)
    assert (outcome.pairs, outcome.agreeing, outcome.ties, outcome.accuracy) == (2, 1, 0, 0.5)


def test_a_tie_of_the_metric_is_not_agreement_and_is_counted():
    outcome = preference_accuracy([("r", 5.0, 0.5), ("r", 2.0, 0.5), ("r", 1.0, 0.1)])
    # (5, 2) tied by the metric; (5, 1) and (2, 1) ordered as the experts.
    assert (outcome.pairs, outcome.agreeing, outcome.ties) == (3, 2, 1)
    assert outcome.accuracy == pytest.approx(2 / 3)


def test_candidates_the_experts_rated_equally_carry_no_preference():
    outcome = preference_accuracy([("r", 3.0, 0.9), ("r", 3.0, 0.1)])
    assert outcome.pairs == 0 and math.isnan(outcome.accuracy)
    assert math.isnan(preference_accuracy([]).accuracy)
    # An equally rated pair is skipped, and the group's other pairs still count.
    outcome = preference_accuracy([("r", 3.0, 0.9), ("r", 3.0, 0.1), ("r", 1.0, 0.5)])
    assert (outcome.pairs, outcome.agreeing, outcome.ties) == (2, 1, 0)


def test_every_tie_is_counted():
    outcome = preference_accuracy([("r", 3.0, 0.5), ("r", 2.0, 0.5), ("r", 1.0, 0.5)])
    assert (outcome.pairs, outcome.agreeing, outcome.ties, outcome.accuracy) == (3, 0, 3, 0.0)


def test_a_missing_score_must_be_left_out_first():
    with pytest.raises(ValueError, match="group r: NaN"):
        preference_accuracy([("r", 3.0, float("nan")), ("r", 1.0, 0.2)])
