"""Pairwise preference accuracy over candidates of one study (RadPref's protocol), ties on both sides."""

from __future__ import annotations

import math

import pytest

from radiology_tasks.core.agreement import Preferences, preference_outcome


def test_pairs_are_formed_within_a_study_only():
    rows = [("s1", 5.0, 0.9), ("s1", 3.0, 0.4), ("s2", 1.0, 0.95), ("s2", 4.0, 0.1)]
    # s1: ordered as the experts; s2: reversed. Across studies (s1's 3.0 against s2's 4.0) no pair is formed.
    assert preference_outcome(rows) == Preferences(pairs=2, right=1, wrong=1, ties=0, accuracy=0.5)


def test_hand_computed_example_with_ties_on_both_sides():
    rows = [
        # Study a: expert means 4, 4, 2 (two equal means: no preference between them).
        ("a", 4.0, 0.8),
        ("a", 4.0, 0.3),
        ("a", 2.0, 0.3),
        # Study b: the metric ties the two (within the tolerance), the experts do not.
        ("b", 5.0, 0.5),
        ("b", 1.0, 0.5 + 1e-12),
        # Study c: reversed.
        ("c", 3.0, 0.1),
        ("c", 2.0, 0.7),
    ]
    # a: (4, 4) left out; (4: 0.8, 2: 0.3) right; (4: 0.3, 2: 0.3) tie. b: tie. c: wrong.
    outcome = preference_outcome(rows, tie_tolerance=1e-9)
    assert outcome == Preferences(pairs=4, right=1, wrong=1, ties=2, accuracy=0.5)


def test_the_tie_tolerance_is_inclusive_and_nothing_beyond_it_ties():
    rows = [("s", 2.0, 0.5), ("s", 1.0, 0.25)]
    assert preference_outcome(rows, tie_tolerance=0.25).ties == 1
    assert preference_outcome(rows, tie_tolerance=0.2499).right == 1
    # Without a tolerance only equal scores tie.
    assert preference_outcome([("s", 2.0, 0.5), ("s", 1.0, 0.5)]).ties == 1
    assert preference_outcome([("s", 2.0, 0.5 + 1e-12), ("s", 1.0, 0.5)]).right == 1


def test_ties_are_neither_right_nor_wrong():
    outcome = preference_outcome([("s", 5.0, 0.5), ("s", 2.0, 0.5), ("s", 1.0, 0.1)])
    # (5, 2) tied; (5, 1) and (2, 1) right: 2 / (2 + 0), not 2 / 3.
    assert outcome == Preferences(pairs=3, right=2, wrong=0, ties=1, accuracy=1.0)


def test_no_decided_pair_has_no_accuracy():
    assert math.isnan(preference_outcome([("s", 3.0, 0.9), ("s", 3.0, 0.1)]).accuracy)
    assert preference_outcome([("s", 3.0, 0.9), ("s", 3.0, 0.1)]).pairs == 0
    assert math.isnan(preference_outcome([]).accuracy)
    every_pair_tied = preference_outcome([("s", 3.0, 0.5), ("s", 2.0, 0.5), ("s", 1.0, 0.5)])
    assert (every_pair_tied.pairs, every_pair_tied.ties) == (3, 3) and math.isnan(every_pair_tied.accuracy)


def test_an_equally_rated_pair_is_skipped_and_the_study_s_other_pairs_still_count():
    outcome = preference_outcome([("s", 3.0, 0.9), ("s", 3.0, 0.1), ("s", 1.0, 0.5)])
    assert outcome == Preferences(pairs=2, right=1, wrong=1, ties=0, accuracy=0.5)


def test_a_missing_score_must_be_left_out_first():
    with pytest.raises(ValueError, match="study s: NaN"):
        preference_outcome([("s", 3.0, float("nan")), ("s", 1.0, 0.2)])
    with pytest.raises(ValueError, match="study t: NaN"):
        preference_outcome([("t", float("nan"), 0.3)])
    with pytest.raises(ValueError, match="tie_tolerance must be >= 0, got -0.1"):
        preference_outcome([], tie_tolerance=-0.1)


def test_every_reversed_pair_counts_as_wrong():
    # Three candidates the score orders exactly against the experts: all three pairs are wrong.
    outcome = preference_outcome([("s", 1.0, 0.9), ("s", 2.0, 0.5), ("s", 3.0, 0.1)])
    assert outcome == Preferences(pairs=3, right=0, wrong=3, ties=0, accuracy=0.0)
