"""The shared convention for missing scores: NaN or the bottom of the range, always with a reason."""

from __future__ import annotations

import math

import pytest
from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.metrics import expert_agreement, judge_calls, mean_of, report_truncated
from radiology_tasks.core.unscored import check_policy, is_filled_in, judged_score, unscored_reason

NAN = math.nan
MISSING = {"vert": ("truncated", "missing_score: absent"), "green_ec": ("truncated", "missing_section: x")}


def test_exclude_keeps_nan_and_the_reasons() -> None:
    score = judged_score({"vert": None, "green": 0.5, "green_ec": None}, MISSING, policy="exclude", bounded={"vert"})
    assert math.isnan(score.value["vert"]) and math.isnan(score.value["green_ec"])
    assert score.value["green"] == 0.5
    assert score.reason == "grader_failed"
    assert score.metadata["unscored"] == {"vert": "truncated", "green_ec": "truncated"}
    assert score.metadata["unscored_detail"]["vert"] == "missing_score: absent"
    assert score.metadata["filled_in"] == []


def test_worst_fills_bounded_scores_only() -> None:
    score = judged_score(
        {"vert": None, "green": 0.5, "green_ec": None}, MISSING, policy="worst", bounded={"vert", "green"}
    )
    assert score.value["vert"] == 0.0
    assert math.isnan(score.value["green_ec"])  # an error count has no bottom to fill in
    assert score.metadata["filled_in"] == ["vert"]
    assert is_filled_in(score.metadata, "vert") and not is_filled_in(score.metadata, "green")
    assert unscored_reason(score.metadata, "vert") == "truncated"
    assert unscored_reason(score.metadata, "green") is None


def test_the_candidate_the_judge_s_answer_and_further_metadata_are_kept() -> None:
    score = judged_score(
        {"vert": 0.75},
        {},
        policy="worst",
        bounded={"vert"},
        answer="Candidate report.",
        explanation="[Overall Accuracy Score]: 0.75",
        metadata={"judge_calls": 1},
    )
    assert (score.answer, score.explanation) == ("Candidate report.", "[Overall Accuracy Score]: 0.75")
    assert score.metadata == {"judge_calls": 1, "unscored": {}, "unscored_detail": {}, "filled_in": []}


def test_a_scored_main_key_has_no_reason() -> None:
    score = judged_score({"green": 0.5, "vert": None}, {"vert": ("judge_refused", "")}, policy="worst", bounded={})
    assert score.reason is None
    assert math.isnan(score.value["vert"])


@pytest.mark.parametrize(
    ("values", "missing"),
    [({"vert": None}, {}), ({"vert": 0.4}, {"vert": ("truncated", "")}), ({"vert": NAN}, {})],
)
def test_reasons_must_match_the_missing_values(values: dict, missing: dict) -> None:
    with pytest.raises(ValueError, match="do not match"):
        judged_score(values, missing, policy="exclude", bounded={"vert"})


def test_policy_is_checked() -> None:
    assert check_policy("worst") == "worst" and check_policy("exclude") == "exclude"
    with pytest.raises(InputError, match="-T unscored must be one of worst, exclude; got 'zero'"):
        check_policy("zero")


def _judged(sample_id: int, vert: float | None, expert: float, **metadata: object) -> SampleScore:
    missing = {} if vert is not None else {"vert": ("invalid_response_format", "unreadable_score")}
    score = judged_score(
        {"vert": vert}, missing, policy="worst", bounded={"vert"}, metadata={"expert_score": expert, **metadata}
    )
    return SampleScore(score=score, sample_id=sample_id)


def test_filled_in_scores_count_in_means_but_never_in_agreement() -> None:
    scores = [_judged(1, 0.9, 1.0), _judged(2, 0.5, 0.5), _judged(3, 0.1, 0.0), _judged(4, None, 1.0)]
    assert mean_of("vert")(scores) == {"vert_mean": pytest.approx((0.9 + 0.5 + 0.1 + 0.0) / 4)}
    agreement = expert_agreement("vert", n_resamples=50)(scores)
    assert agreement["vert_n_pairs"] == 3.0 and agreement["vert_n_unscored"] == 1.0
    assert agreement["vert_kendall_tau"] == pytest.approx(1.0)  # the filled-in 0.0 against 1.0 would break it


def test_judge_calls_counts_retries_truncation_and_cost() -> None:
    scores = [
        _judged(1, 0.9, 1.0, judge_calls=1, judge_input_tokens=100, judge_output_tokens=10),
        _judged(2, 0.5, 0.5, judge_calls=3, judge_retried=True, judge_truncated=True, judge_input_tokens=300),
        _judged(3, None, 0.0),  # no judge call at all (an empty candidate)
    ]
    assert judge_calls()(scores) == {
        "retried": 1.0,
        "truncated": 1.0,
        "judge_calls_per_sample": pytest.approx(4 / 3),
        "judge_input_tokens_per_sample": pytest.approx(400 / 3),
        "judge_output_tokens_per_sample": pytest.approx(10 / 3),
    }
    empty = judge_calls()([])
    assert empty["retried"] == 0.0 and math.isnan(empty["judge_calls_per_sample"])


def test_report_truncated_counts_flagged_generations() -> None:
    scores = [
        _judged(1, 0.9, 1.0, generation={"truncated": True, "stop_reason": "max_tokens"}),
        _judged(2, 0.5, 0.5, generation={"truncated": False, "stop_reason": "stop"}),
        _judged(3, 0.5, 0.5),
        SampleScore(score=Score(value={"vert": 0.2}, metadata={"generation": {"truncated": True}}), sample_id=4),
    ]
    assert report_truncated()(scores) == {"report_truncated": 2.0}


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("invalid_response_format", "grader_failed"),
        ("truncated", "grader_failed"),
        ("judge_context_exceeded", "grader_failed"),
        ("judge_refused", "grader_failed"),
        ("judge_request_rejected", "grader_failed"),
        ("no_response", "no_response"),
        ("generator_context_exceeded", "no_response"),
        ("generator_request_rejected", "no_response"),
        ("variant_excluded", "scoring_failed"),
        ("no_questions", "scoring_failed"),
    ],
)
def test_inspects_reason_says_who_failed(code: str, reason: str) -> None:
    score = judged_score({"vert": None}, {"vert": (code, "detail")}, policy="exclude", bounded={"vert"})
    assert score.reason == reason
    assert score.metadata["unscored"] == {"vert": code} and score.metadata["unscored_detail"] == {"vert": "detail"}


def test_a_log_from_before_inspects_codes_counts_the_same() -> None:
    """Old logs hold the project's code in Score.reason; the metrics read the code from the metadata."""
    from inspect_ai.scorer import SampleScore, Score

    from radiology_tasks.core.metrics import parse_failure_rate

    new = judged_score({"vert": None}, {"vert": ("invalid_response_format", "x")}, policy="worst", bounded={"vert"})
    old = Score(value=new.value, reason="invalid_response_format", metadata=new.metadata)
    counted = [
        parse_failure_rate("vert")([SampleScore(score=score, sample_id=str(i))])  # type: ignore[operator]
        for i, score in enumerate((new, old))
    ]
    assert counted[0] == counted[1] == {"parse_failure_rate": 1.0, "unscored": 1.0}
