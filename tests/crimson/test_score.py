"""CRIMSON's score on hand-worked assessments, one per rule of `scorers.crimson.score`."""

from __future__ import annotations

import random

import pytest

from radiology_tasks.scorers.crimson.contract import (
    ATTRIBUTE_SEVERITY_WEIGHTS,
    ERROR_TYPES,
    MAX_ATTRIBUTE_ERRORS,
    MAX_FINDINGS,
    SIGNIFICANCE_WEIGHTS,
)
from radiology_tasks.scorers.crimson.reading import read_crimson
from radiology_tasks.scorers.crimson.score import CrimsonOutcome, at_grammar_bound, crimson_outcome
from tests.crimson.answers import SIMPLE, SIMPLE_SCORE, answer, answer_dict, attribute


def outcome(**parts) -> CrimsonOutcome:
    reading = read_crimson(answer(**parts))
    assert reading.assessment is not None, reading.problem
    return crimson_outcome(reading.assessment)


def test_no_findings_on_either_side_is_a_perfect_score():
    result = outcome()
    assert (result.score, result.branch, result.n_g, result.s) == (1.0, "no_reference_weight", 0.0, 1.0)


def test_every_finding_matched_without_errors_is_a_perfect_score():
    result = outcome(
        refs={"R1": "urgent", "R2": "actionable_not_urgent"},
        preds={"P1": "urgent", "P2": "actionable_not_urgent"},
        matched=[("R1", "P1"), ("R2", "P2")],
    )
    assert (result.score, result.branch, result.n_g, result.correct) == (1.0, "ratio", 1.5, 1.5)


@pytest.mark.parametrize(("label", "expected"), [(label, 1.0 - w) for label, w in SIGNIFICANCE_WEIGHTS.items()])
def test_a_false_finding_costs_its_own_weight(label, expected):
    result = outcome(refs={"R1": "urgent"}, preds={"P1": "urgent", "P2": label}, matched=[("R1", "P1")], false=["P2"])
    assert result.e_false == SIGNIFICANCE_WEIGHTS[label]
    assert result.score == pytest.approx(expected)
    assert result.branch == "ratio"
    assert result.counts["false_findings"] == 1


def test_the_candidates_weight_not_the_references_prices_a_false_finding():
    # P2 is rated urgent by the judge; a reference finding of the same text would not change its price.
    result = outcome(
        refs={"R1": "benign_expected", "R2": "urgent"},
        preds={"P1": "urgent", "P2": "urgent"},
        matched=[("R2", "P1")],
        false=["P2"],
        missing=["R1"],
    )
    assert (result.e_false, result.e_miss, result.score) == (1.0, 0.0, 0.0)


def test_a_missing_finding_earns_nothing_and_has_no_penalty_of_its_own():
    result = outcome(
        refs={"R1": "urgent", "R2": "actionable_not_urgent"},
        preds={"P1": "urgent"},
        matched=[("R1", "P1")],
        missing=["R2"],
    )
    assert (result.e_miss, result.correct, result.n_g) == (0.5, 1.0, 1.5)
    assert result.score == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("reference_label", "severities", "credit"),
    [
        ("urgent", ["significant"], 1 * 1 / 1.5),
        ("urgent", ["significant", "significant"], 1 * 1 / 2.0),
        ("urgent", ["negligible"], 1.0),
        ("urgent", ["negligible", "significant"], 1 * 1 / 1.5),
        ("actionable_not_urgent", ["significant"], 0.5 * 0.5 / 1.0),
        ("not_actionable_not_urgent", ["significant"], 0.25 * 0.25 / 0.75),
        ("not_actionable_not_urgent", ["negligible"], 0.25),
    ],
)
def test_attribute_errors_give_partial_credit_by_severity(reference_label, severities, credit):
    result = outcome(
        refs={"R1": reference_label},
        preds={"P1": "urgent"},
        matched=[("R1", "P1")],
        attributes=[attribute("R1", "P1", severity) for severity in severities],
    )
    weight = SIGNIFICANCE_WEIGHTS[reference_label]
    assert result.correct == pytest.approx(credit)
    assert result.score == pytest.approx(credit / weight)
    assert result.e_attribute == sum(ATTRIBUTE_SEVERITY_WEIGHTS[s] for s in severities)


def test_attribute_errors_of_one_reference_finding_add_up_over_its_candidate_findings():
    # R1 (bilateral effusions) is matched by P1 (left) and P2 (right), each with a significant error: one credit.
    result = outcome(
        refs={"R1": "urgent"},
        preds={"P1": "urgent", "P2": "urgent"},
        matched=[("R1", "P1"), ("R1", "P2")],
        attributes=[attribute("R1", "P1", "significant"), attribute("R1", "P2", "significant", "severity")],
    )
    assert result.correct == pytest.approx(0.5)
    assert result.score == pytest.approx(0.5)
    assert result.counts["attribute_errors"] == 2
    assert (result.counts["location_errors"], result.counts["severity_errors"]) == (1, 1)


def test_a_benign_match_with_errors_earns_nothing_and_costs_nothing():
    result = outcome(
        refs={"R1": "benign_expected"},
        preds={"P1": "benign_expected"},
        matched=[("R1", "P1")],
        attributes=[attribute("R1", "P1", "negligible")],
    )
    assert (result.correct, result.n_g, result.score, result.branch) == (0.0, 0.0, 1.0, "no_reference_weight")


def test_a_normal_template_scores_zero_against_abnormal_findings():
    result = outcome(refs={"R1": "urgent", "R2": "actionable_not_urgent"}, missing=["R1", "R2"])
    assert (result.score, result.branch, result.correct, result.e_false) == (0.0, "ratio", 0.0, 0.0)


def test_more_weighted_errors_than_credit_take_the_negative_branch():
    result = outcome(refs={"R1": "not_actionable_not_urgent"}, preds={"P1": "urgent"}, false=["P1"], missing=["R1"])
    # S = (0 - 1) / 0.25 = -4; X = E_false - correct = 1, so the score is -1 / (1 + 1).
    assert (result.s, result.errors_more_than_correct) == (-4.0, 1.0)
    assert (result.score, result.branch) == (-0.5, "negative")


def test_false_findings_without_any_reference_weight_take_the_negative_branch():
    result = outcome(preds={"P1": "urgent", "P2": "actionable_not_urgent"}, false=["P1", "P2"])
    assert result.s == -(1.5 + 0 + 1)
    assert result.score == pytest.approx(-1.5 / 2.5)
    assert result.branch == "negative"


def test_a_benign_false_finding_weighs_nothing():
    result = outcome(preds={"P1": "benign_expected"}, false=["P1"])
    assert (result.e_false, result.s, result.score, result.branch) == (0.0, 1.0, 1.0, "no_reference_weight")
    assert result.counts["false_findings"] == 1


def test_the_example_answer_of_the_tests_scores_as_worked_out():
    reading = read_crimson(SIMPLE)
    assert reading.assessment is not None
    assert crimson_outcome(reading.assessment).score == pytest.approx(SIMPLE_SCORE)


def _random_answer(rng: random.Random) -> dict:
    labels, severities = list(SIGNIFICANCE_WEIGHTS), list(ATTRIBUTE_SEVERITY_WEIGHTS)
    refs = {f"R{i}": rng.choice(labels) for i in range(1, rng.randint(0, 6) + 1)}
    preds = {f"P{i}": rng.choice(labels) for i in range(1, rng.randint(0, 6) + 1)}
    matched, false = [], []
    for pred in preds:
        if refs and rng.random() < 0.6:
            matched.append((rng.choice(list(refs)), pred))
        else:
            false.append(pred)
    matched_refs = {r for r, _ in matched}
    missing = [r for r in refs if r not in matched_refs]
    attributes = [
        attribute(r, p, rng.choice(severities), rng.choice(ERROR_TYPES)) for r, p in matched if rng.random() < 0.5
    ]
    return answer_dict(refs=refs, preds=preds, matched=matched, false=false, missing=missing, attributes=attributes)


def test_every_score_lies_in_minus_one_exclusive_to_one_inclusive():
    import json

    rng = random.Random(0)
    branches = set()
    for _ in range(2000):
        reading = read_crimson(json.dumps(_random_answer(rng)))
        assert reading.assessment is not None, reading.problem
        result = crimson_outcome(reading.assessment)
        assert -1.0 < result.score <= 1.0
        branches.add(result.branch)
    assert branches == {"no_reference_weight", "ratio", "negative"}, "the random answers reach every branch"


def test_an_answer_filling_a_list_the_grammar_bounds_is_flagged():
    def assessment(n_refs: int, n_preds: int, n_errors: int = 0):
        refs = {f"R{i}": "urgent" for i in range(1, n_refs + 1)}
        preds = {f"P{i}": "urgent" for i in range(1, n_preds + 1)}
        k = min(n_refs, n_preds)
        reading = read_crimson(
            answer(
                refs=refs,
                preds=preds,
                matched=[(f"R{i}", f"P{i}") for i in range(1, k + 1)],
                false=[f"P{i}" for i in range(k + 1, n_preds + 1)],
                missing=[f"R{i}" for i in range(k + 1, n_refs + 1)],
                attributes=[attribute("R1", "P1", "negligible") for _ in range(n_errors)],
            )
        )
        assert reading.assessment is not None, reading.problem
        return reading.assessment

    assert not at_grammar_bound(assessment(MAX_FINDINGS - 1, MAX_FINDINGS - 1, MAX_ATTRIBUTE_ERRORS - 1))
    assert at_grammar_bound(assessment(MAX_FINDINGS, 1))
    assert at_grammar_bound(assessment(1, MAX_FINDINGS))
    assert at_grammar_bound(assessment(1, 1, MAX_ATTRIBUTE_ERRORS))


def test_credit_adds_up_over_reference_findings_with_and_without_attribute_errors():
    result = outcome(
        refs={"R1": "urgent", "R2": "actionable_not_urgent"},
        preds={"P1": "urgent", "P2": "actionable_not_urgent"},
        matched=[("R1", "P1"), ("R2", "P2")],
        attributes=[attribute("R2", "P2", "significant", "measurement")],
    )
    # R1 earns its 1; R2 earns 0.5 * 0.5 / (0.5 + 0.5) = 0.25.
    assert result.correct == pytest.approx(1.25)
    assert result.score == pytest.approx(1.25 / 1.5)


def test_the_negative_branch_weighs_errors_against_the_credit_earned():
    result = outcome(
        refs={"R1": "urgent", "R2": "urgent"},
        preds={"P1": "urgent", "P2": "urgent", "P3": "urgent"},
        matched=[("R1", "P1")],
        false=["P2", "P3"],
        missing=["R2"],
    )
    # S = (1 - 2) / 2 = -0.5 < 0; X = E_false - correct = 2 - 1 = 1, so the score is -1 / 2.
    assert (result.s, result.errors_more_than_correct, result.score) == (-0.5, 1.0, -0.5)


def test_the_counts_and_significance_labels_are_kept_per_kind():
    result = outcome(
        refs={"R1": "urgent", "R2": "benign_expected", "R3": "urgent"},
        preds={"P1": "urgent", "P2": "not_actionable_not_urgent"},
        matched=[("R1", "P1")],
        false=["P2"],
        missing=["R2", "R3"],
        attributes=[attribute("R1", "P1", "significant", "certainty", "temporal"), attribute("R1", "P1", "negligible")],
    )
    assert result.counts == {
        "false_findings": 1,
        "missing_findings": 2,
        "attribute_errors": 2,
        "location_errors": 1,
        "severity_errors": 0,
        "descriptor_errors": 0,
        "measurement_errors": 0,
        "certainty_errors": 1,
        "unspecific_errors": 0,
        "overinterpretation_errors": 0,
        "temporal_errors": 1,
    }
    assert result.significance == {
        "reference": {"urgent": 2, "actionable_not_urgent": 0, "not_actionable_not_urgent": 0, "benign_expected": 1},
        "predicted": {"urgent": 1, "actionable_not_urgent": 0, "not_actionable_not_urgent": 1, "benign_expected": 0},
    }
