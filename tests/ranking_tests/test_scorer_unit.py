"""The scorer's reading of one candidate's score: a filled-in or missing value is never taken for a score."""

from __future__ import annotations

import math

from inspect_ai.scorer import Score

from radiology_tasks.ranking_tests.cases import Candidate, RankingCase, Relation
from radiology_tasks.ranking_tests.scorer import candidate_pair, candidate_record, judge_outcome

CASE = RankingCase(
    id="k",
    category="severity",
    reference="Moderate edema.",
    candidates=[Candidate(label="C1", text="Mild edema.", age="70"), Candidate(label="C2", text="No edema.")],
    relations=[Relation(better="C1", worse="C2")],
)


def test_a_value_the_unscored_policy_filled_in_is_not_a_score():
    metadata = {"unscored": {"vert": "invalid_response_format"}, "unscored_detail": {"vert": "no score section"}}
    record = candidate_record("C1", "Mild edema.", "vert", Score(value={"vert": 0.0}, metadata=metadata))
    assert (record["score"], record["reason"], record["detail"]) == (
        None,
        "invalid_response_format",
        "no score section",
    )


def test_a_missing_value_without_a_reason_is_still_unscored():
    record = candidate_record("C1", "Mild edema.", "vert", Score(value={"vert": math.nan}))
    assert (record["score"], record["reason"]) == (None, "scoring_failed")
    record = candidate_record("C1", "Mild edema.", "vert", Score(value={"other": 1.0}))
    assert (record["score"], record["reason"]) == (None, "scoring_failed")


def test_one_unscored_candidate_leaves_the_case_unscored_with_its_reason():
    records = [
        {"label": "C1", "score": 0.9, "reason": None, "detail": None},
        {"label": "C2", "score": None, "reason": "judge_refused", "detail": "the judge declined"},
    ]
    value, found = judge_outcome(CASE, records, higher_is_better=True, tolerance=0.01)
    assert math.isnan(value["accuracy"]) and math.isnan(value["tie"])
    assert found["outcome"] is None
    assert found["unscored"] == {"accuracy": "judge_refused", "tie": "judge_refused"}
    assert found["unscored_detail"]["accuracy"] == "candidate C2: the judge declined"


def test_scored_candidates_give_the_outcome_and_each_relation():
    records = [
        {"label": "C1", "score": 0.2, "reason": None, "detail": None},
        {"label": "C2", "score": 0.9, "reason": None, "detail": None},
    ]
    value, found = judge_outcome(CASE, records, higher_is_better=True, tolerance=0.01)
    assert value == {"accuracy": 0.0, "tie": 0.0}
    assert found["relations"] == {"C1 > C2": "wrong"}
    value, _ = judge_outcome(CASE, records, higher_is_better=False, tolerance=0.01)
    assert value == {"accuracy": 1.0, "tie": 0.0}


def test_the_pair_a_metric_scores_carries_the_candidates_context():
    pair = candidate_pair(CASE, CASE.candidates[0])
    assert (pair.id, pair.reference, pair.candidate, pair.age, pair.metadata) == (
        "k/C1",
        "Moderate edema.",
        "Mild edema.",
        "70",
        {},
    )
    assert candidate_pair(CASE, CASE.candidates[1]).age is None
