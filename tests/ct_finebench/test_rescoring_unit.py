"""CT-FineBench re-scoring on samples built in memory: each reading rule and each refusal line on its own.

A sample here is what `read_run` gives for a `ct_finebench` log: the logged questions, and for each judge step
its attempts and which attempt each question's value was read from (``read_from``). The honest sample's values
are worked out by hand: q1 numeric (8 mm stated, graded 1 in code), q2 categorical (graded 0.5 by the judge),
q3 categorical (not stated, graded 0 in code): report score 1.5 / 3.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench import rescoring as ct
from radiology_tasks.ct_finebench.rescoring import RESCORING
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, SampleEvidence

JUDGE = "openai-api/stubsvc/stub-judge"
EXTRACTION = json.dumps({"q1": "8 mm", "q2": "solid", "q3": None})
COMPARISON = json.dumps({"q2": 0.5})


def _attempt(answer: Any, *, stop_reason: str = "stop", problem: str | None = None) -> dict[str, Any]:
    return {"answer": answer, "stop_reason": stop_reason, "problem": problem}


def _question(
    number: int, attribute: str, kind: str, reference: str, extracted: str | None, grade: float | None, by: str | None
) -> dict[str, Any]:
    return {
        "id": f"q{number}",
        "question": f"What is the {attribute}?",
        "finding": "lung nodule",
        "attribute": attribute,
        "answer_type": kind,
        "reference_answer": reference,
        "extracted_answer": extracted,
        "answered": None if by is None else extracted is not None,
        "grade": grade,
        "graded_by": by,
        "unscored_reason": None if by is not None else "invalid_response_format",
        "unscored_detail": None,
    }


def _questions() -> list[dict[str, Any]]:
    return [
        _question(1, "size", "numeric", "8 mm", "8 mm", 1.0, "code"),
        _question(2, "density", "categorical", "solid", "solid", 0.5, "judge"),
        _question(3, "margin", "categorical", "spiculated", None, 0.0, "code"),
    ]


def _metadata(**changes: Any) -> dict[str, Any]:
    metadata = {
        "questions": _questions(),
        "extraction_judge": {"attempts": [_attempt(EXTRACTION)], "read_from": {"q1": 0, "q2": 0, "q3": 0}},
        "comparison_judge": {"attempts": [_attempt(COMPARISON)], "read_from": {"q2": 0}},
    }
    return {**metadata, **changes}


def _sample(
    sample_id: str = "r1",
    *,
    score: float | None = 0.5,
    calls: tuple[str, ...] = (EXTRACTION, COMPARISON),
    **metadata: Any,
) -> SampleEvidence:
    return SampleEvidence(
        id=sample_id,
        epoch=1,
        error=None,
        values={"ct_finebench": score},
        metadata=_metadata(**metadata),
        candidate="The nodule measures 8 mm and is solid.",
        judge_calls=[JudgeCall(JUDGE, 0.0, None, text) for text in calls],
        has_events=True,
    )


def _run(
    samples: list[SampleEvidence] | None = None, results: dict[str, float] | None = None, **args: Any
) -> RunEvidence:
    samples = [_sample()] if samples is None else samples
    run = RunEvidence(
        path=Path("ct.eval"),
        sha256="0" * 64,
        task="radiology_tasks/ct_finebench",
        task_version="1.2.0",
        task_args={"qa_mode": "batch", "unscored": "worst", **args},
        status="success",
        model="none/none",
        judge=JUDGE,
        metadata={},
        scorer="qa_comparison",
        results={},
        samples=samples,
    )
    logged = ct.run_level_values([ct.rescore_sample(run, s) for s in samples]) if results is None else results
    return replace(run, results=logged)


def _problems(sample: SampleEvidence, **args: Any) -> list[str]:
    return ct.rescore_sample(_run([sample], results={}, **args), sample).problems


def test_the_honest_sample_gives_the_hand_worked_score_and_no_line():
    run = _run()
    (sample,) = run.samples
    assert RESCORING.expected(run, sample) == {"ct_finebench": pytest.approx(0.5)}
    assert RESCORING.run_checks(run) == []
    assert RESCORING.answers(sample) == [EXTRACTION, COMPARISON]
    assert RESCORING.ranked(run).key == "ct_finebench" and RESCORING.ranked(run).bounded
    rescored = ct.rescore_sample(run, sample)
    assert [q.as_dict() for q in rescored.questions] == _questions()
    # The task's own metrics over the rescored sample, checked by hand.
    assert run.results["type_numeric_mean"] == 1.0 and run.results["type_numeric_n"] == 1.0
    assert run.results["type_categorical_mean"] == 0.25 and run.results["type_categorical_n"] == 2.0
    assert math.isnan(run.results["type_location_mean"]) and run.results["type_location_n"] == 0.0
    assert (run.results["attribute_size_mean"], run.results["attribute_margin_mean"]) == (1.0, 0.0)
    assert run.results["unanswered_share"] == pytest.approx(1 / 3)
    assert (run.results["questions_total"], run.results["questions_graded"]) == (3.0, 3.0)
    assert (run.results["questions_unanswered"], run.results["questions_unscored"]) == (1.0, 0.0)
    assert run.results["parse_failure_rate"] == 0.0


def test_each_logged_question_field_is_compared_with_what_the_answers_give():
    for name, forged in (
        ("id", "q9"),
        ("extracted_answer", "9 mm"),
        ("answered", False),
        ("grade", 0.5),
        ("graded_by", "judge"),
    ):
        questions = _questions()
        questions[0] = {**questions[0], name: forged}
        recomputed = _questions()[0][name]
        assert _problems(_sample(questions=questions)) == [
            f"question q1 logged {name} {forged!r} but its stored judge answers give {recomputed!r}"
        ]


def test_a_question_text_or_type_is_taken_from_the_log_not_compared():
    questions = _questions()
    questions[0] = {**questions[0], "answer_type": "not a type", "finding": None}
    # Without a known answer type the type is inferred from the attribute and answer: still numeric ("8 mm").
    rescored = ct.rescore_sample(_run(results={}), _sample(questions=questions))
    assert rescored.questions[0].answer_type == "numeric" and rescored.questions[0].finding is None
    assert rescored.problems == []
    as_location = [{**_questions()[0], "answer_type": "location"}, *_questions()[1:]]
    assert ct.rescore_sample(_run(results={}), _sample(questions=as_location)).questions[0].answer_type == "location"


def test_a_forged_grade_from_the_judge_is_named_and_the_score_follows_the_answer():
    comparison = {"attempts": [_attempt(json.dumps({"q2": 1}))], "read_from": {"q2": 0}}
    sample = _sample(comparison_judge=comparison, calls=(EXTRACTION, json.dumps({"q2": 1})))
    run = _run([sample], results={})
    assert RESCORING.expected(run, sample) == {"ct_finebench": pytest.approx(2 / 3)}
    assert ct.rescore_sample(run, sample).problems == [
        "question q2 logged grade 0.5 but its stored judge answers give 1.0"
    ]


def test_the_attempt_read_from_must_be_one_that_read_as_a_whole():
    unread = {"attempts": [_attempt(EXTRACTION, problem="q2 missing")], "read_from": {"q1": 0, "q2": 0, "q3": 0}}
    rescored = ct.rescore_sample(_run(results={}), _sample(extraction_judge=unread))
    assert all(q.grade is None for q in rescored.questions), "no value is read from an attempt with a problem"
    assert rescored.questions[0].unscored_reason == "invalid_response_format"
    rejected = {"attempts": [_attempt(EXTRACTION, stop_reason="error")], "read_from": {"q1": 0, "q2": 0, "q3": 0}}
    assert all(
        q.grade is None for q in ct.rescore_sample(_run(results={}), _sample(extraction_judge=rejected)).questions
    )
    not_text = {"attempts": [_attempt({"q1": "8 mm"})], "read_from": {"q1": 0}}
    assert ct.rescore_sample(_run(results={}), _sample(extraction_judge=not_text)).questions[0].grade is None


@pytest.mark.parametrize("index", [1, -1, True, "0", None, 1.0])
def test_read_from_must_name_an_attempt_by_its_place(index):
    step = {"attempts": [_attempt(EXTRACTION)], "read_from": {"q1": index, "q2": 0, "q3": 0}}
    rescored = ct.rescore_sample(_run(results={}), _sample(extraction_judge=step))
    assert rescored.questions[0].grade is None and rescored.questions[1].grade == 0.5


def test_a_question_the_named_attempt_does_not_answer_is_unscored_with_its_logged_reason():
    questions = _questions()
    questions[0] = {**questions[0], "unscored_reason": "grader_failed"}
    step = {"attempts": [_attempt(json.dumps({"q2": "solid", "q3": None}))], "read_from": {"q1": 0, "q2": 0, "q3": 0}}
    rescored = ct.rescore_sample(_run(results={}), _sample(questions=questions, extraction_judge=step))
    assert rescored.questions[0].unscored_reason == "grader_failed"
    assert rescored.questions[0].extracted_answer is None and rescored.questions[0].answered is None


def test_unscored_comparisons_keep_the_logged_reason_or_the_format_reason():
    questions = _questions()
    questions[1] = {**questions[1], "grade": None, "graded_by": None, "answered": True, "unscored_reason": None}
    step = {"attempts": [_attempt(COMPARISON)], "read_from": {}}
    rescored = ct.rescore_sample(_run(results={}), _sample(questions=questions, comparison_judge=step))
    second = rescored.questions[1]
    assert (second.grade, second.extracted_answer, second.unscored_reason) == (None, "solid", "invalid_response_format")
    assert rescored.score.value == {"ct_finebench": 0.5}, "the mean over the two graded questions"
    # The comparison answer did grade q2 in its first answer (batch mode): that answer was dropped.
    assert "question q2 is logged without an answer, but the judge's first answer gives one" in rescored.problems


def test_a_dropped_extraction_is_named_in_batch_mode_only():
    questions = _questions()
    questions[0] = {**questions[0], "extracted_answer": None, "answered": None, "grade": None, "graded_by": None}
    step = {"attempts": [_attempt(EXTRACTION)], "read_from": {"q2": 0, "q3": 0}}
    line = "question q1 is logged without an answer, but the judge's first answer gives one"
    sample = _sample(questions=questions, extraction_judge=step)
    assert _problems(sample) == [line]
    assert _problems(sample, qa_mode="per_question") == []
    assert _problems(sample, qa_mode=None) == [line], "batch is the task's default"
    later = {
        "attempts": [_attempt("not json", problem="unreadable"), _attempt(json.dumps({"q2": "solid"}))],
        "read_from": {"q2": 1, "q3": 1},
    }
    assert line not in _problems(_sample(questions=questions, extraction_judge=later)), (
        "the first answer read as a whole is the batch answer; it does not give q1"
    )


def test_stored_answers_leave_out_rejected_requests_and_malformed_steps():
    rejected = {"attempts": [_attempt("HTTP 400", stop_reason="error"), _attempt(EXTRACTION), "junk", {"answer": 3}]}
    sample = _sample(extraction_judge=rejected, comparison_judge=None)
    assert ct.stored_answers(sample) == [EXTRACTION]
    assert ct.stored_answers(_sample(extraction_judge={"attempts": "x"}, comparison_judge=[1])) == []
    assert ct._Step.of({"attempts": [], "read_from": ["q1"]}).read_from == {}
    assert ct._Step.of(None) == ct._Step([], {})


def test_the_stored_answers_must_be_exactly_the_judges():
    assert _problems(_sample(calls=(EXTRACTION,))) == [
        "stores 2 judge answers but the judge returned 1 (0 not stored, 1 not returned)"
    ]
    assert _problems(_sample(calls=(EXTRACTION, COMPARISON, COMPARISON))) == [
        "stores 2 judge answers but the judge returned 3 (1 not stored, 0 not returned)"
    ]
    assert _problems(_sample(calls=(EXTRACTION, COMPARISON, ""))) == [], "an empty completion is no answer"
    assert _problems(replace(_sample(calls=()), has_events=False)) == [], "without events there is nothing to match"


def test_an_empty_candidate_is_unscored_and_must_have_no_report_or_calls():
    empty = replace(_sample(calls=()), candidate="  \n", metadata={"unscored": {"ct_finebench": "no_response"}})
    run = _run([empty], results={})
    rescored = ct.rescore_sample(run, empty)
    assert (rescored.questions, rescored.problems) == ([], [])
    assert rescored.score.value == {"ct_finebench": 0.0}
    assert rescored.score.metadata["unscored"] == {"ct_finebench": "no_response"}
    assert math.isnan(
        ct.rescore_sample(replace(run, task_args={"unscored": "exclude"}), empty).score.value["ct_finebench"]
    )
    line = "logged as an empty candidate report with no questions asked, yet it has a report or judge calls"
    assert ct.rescore_sample(run, replace(empty, candidate="A report.")).problems == [line]
    assert ct.rescore_sample(
        run, replace(empty, candidate=None, judge_calls=[JudgeCall(JUDGE, 0, None, "x")])
    ).problems == [line]


def test_non_dict_question_entries_are_read_as_empty_questions():
    rescored = ct.rescore_sample(_run(results={}), _sample(questions=["junk"], extraction_judge=None))
    assert rescored.questions[0].question == "" and rescored.questions[0].grade is None


def test_run_level_figures_are_named_when_missing_or_edited():
    honest = _run()
    edited = replace(honest, results={**honest.results, "type_numeric_mean": 0.9})
    assert RESCORING.run_checks(edited) == [
        "run: logged type_numeric_mean 0.9 but the samples' stored judge answers give 1"
    ]
    nan_logged = replace(honest, results={**honest.results, "type_numeric_mean": math.nan})
    assert RESCORING.run_checks(nan_logged) == [
        "run: logged type_numeric_mean missing but the samples' stored judge answers give 1"
    ]
    forged_nan = replace(honest, results={**honest.results, "type_location_mean": 0.0})
    assert RESCORING.run_checks(forged_nan) == [
        "run: logged type_location_mean 0 but the samples' stored judge answers give missing"
    ]
    # From 1.4.0 the breakdown is the report's, not the log's: a run that logs none of it claims nothing, and one
    # figure an old log keeps is still compared however many others it leaves out.
    assert RESCORING.run_checks(replace(honest, results={})) == []
    only_edited = {"type_numeric_mean": 0.9}
    assert RESCORING.run_checks(replace(honest, results=only_edited)) == [
        "run: logged type_numeric_mean 0.9 but the samples' stored judge answers give 1"
    ]
    close = replace(honest, results={**honest.results, "type_numeric_mean": 1.0 + 1e-10})
    assert RESCORING.run_checks(close) == []


def test_run_level_figures_are_not_compared_over_several_epochs_but_samples_are():
    first = _sample(calls=(EXTRACTION,))
    second = replace(first, epoch=2)
    run = _run([first, second], results={"type_numeric_mean": 0.0})
    assert (
        RESCORING.run_checks(run)
        == ["sample r1: stores 2 judge answers but the judge returned 1 (0 not stored, 1 not returned)"] * 2
    )


def test_a_failed_sample_is_left_out_of_the_run_figures():
    failed = replace(_sample("r2", score=None, questions=[]), error="boom")
    honest = _run()
    assert RESCORING.run_checks(replace(honest, samples=[*honest.samples, failed])) == []


def test_breakdown_is_the_mean_grade_by_type_and_attribute():
    questions = _questions()
    questions[2] = {**questions[2], "attribute": None}
    assert RESCORING.breakdown(_run([_sample(questions=questions)], results={})) == {
        "Mean grade by answer type": {"categorical": 0.25, "numeric": 1.0},
        "Mean grade by attribute": {"density": 0.5, "size": 1.0, "unspecified": 0.0},
    }
    unscored = {"attempts": [], "read_from": {}}
    assert RESCORING.breakdown(_run([_sample(extraction_judge=unscored)], results={})) is None


def test_the_sample_ids_are_the_data_rows_with_questions():
    run = replace(_run(), task_args={})
    assert RESCORING.sample_ids(run) == [pair.id for pair in load_pairs("demo").pairs if pair.qa]


def test_the_tasks_default_policy_is_worst():
    sample = _sample()
    run = replace(_run([sample], results={}), task_args={})
    assert ct.rescore_sample(run, sample).problems == []
    unread = {"attempts": [], "read_from": {}}
    assert RESCORING.expected(run, _sample(extraction_judge=unread)) == {"ct_finebench": 0.0}


def test_a_report_with_no_graded_question_is_filled_in_under_worst():
    unread = {"attempts": [_attempt("not json", problem="invalid_json")], "read_from": {}}
    sample = _sample(extraction_judge=unread)
    rescored = ct.rescore_sample(_run(results={}), sample)
    assert rescored.score.value == {"ct_finebench": 0.0}
    assert rescored.score.metadata["filled_in"] == ["ct_finebench"]
    assert rescored.questions[0].as_dict() == {
        **_questions()[0],
        "extracted_answer": None,
        "answered": None,
        "grade": None,
        "graded_by": None,
        "unscored_reason": "invalid_response_format",
        "unscored_detail": "answer extraction: ",
    }
    assert math.isnan(ct.rescore_sample(_run(results={}, unscored="exclude"), sample).score.value["ct_finebench"])


def test_an_unscored_comparison_keeps_its_extracted_answer_and_no_detail():
    questions = _questions()
    questions[1] = {**questions[1], "grade": None, "graded_by": None, "unscored_reason": "grader_failed"}
    step = {"attempts": [_attempt(COMPARISON)], "read_from": {}}
    second = ct.rescore_sample(_run(results={}), _sample(questions=questions, comparison_judge=step)).questions[1]
    assert second.as_dict() == {**questions[1], "unscored_detail": ""}


def test_a_question_without_its_reference_answer_is_read_as_empty():
    questions = _questions()
    del questions[2]["reference_answer"]
    rescored = ct.rescore_sample(_run(results={}), _sample(questions=questions))
    assert rescored.questions[2].reference_answer == ""


def test_an_empty_candidate_without_text_or_calls_is_honest():
    empty = replace(_sample(calls=()), candidate=None, metadata={})
    assert ct.rescore_sample(_run([empty], results={}), empty).problems == []


def test_the_parse_failure_rate_counts_reports_the_judge_answer_left_unscored():
    unread = {"attempts": [_attempt("not json", problem="invalid_json")], "read_from": {}}
    run = _run([_sample("r1"), _sample("r2", extraction_judge=unread, calls=("not json",))])
    assert (run.results["parse_failure_rate"], run.results["unscored"]) == (0.5, 1.0)
    lines = RESCORING.run_checks(replace(run, results={**run.results, "parse_failure_rate": 0.0}))
    assert [line for line in lines if line.startswith("run:")] == [
        "run: logged parse_failure_rate 0 but the samples' stored judge answers give 0.5"
    ]


def test_a_run_figure_within_the_tolerance_is_the_same():
    honest = _run()
    assert honest.results["questions_unscored"] == 0.0
    assert RESCORING.run_checks(replace(honest, results={**honest.results, "questions_unscored": 1e-9})) == []
    assert len(RESCORING.run_checks(replace(honest, results={**honest.results, "questions_unscored": 2e-9}))) == 1


def test_the_breakdown_averages_questions_sharing_an_attribute():
    questions = _questions()
    questions[2] = {**questions[2], "attribute": "density"}
    tables = RESCORING.breakdown(_run([_sample(questions=questions)], results={}))
    assert tables["Mean grade by attribute"] == {"density": 0.25, "size": 1.0}


def test_the_sample_ids_of_a_run_over_studies_are_the_studies():
    from radiology_tasks.core.studies import fold_studies

    run = replace(_run(), task_args={}, metadata={"data": {"studies": {"pairs": 41}}})
    pairs = load_pairs("demo").pairs
    assert RESCORING.sample_ids(run) == [pair.id for pair in fold_studies(pairs).pairs if pair.qa]
    assert len(RESCORING.sample_ids(run)) < len([pair for pair in pairs if pair.qa])
