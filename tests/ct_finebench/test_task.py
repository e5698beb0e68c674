"""The ct_finebench task end to end, with fixed judge answers served by the local OpenAI-compatible stub.

Every expected score below is worked out by hand in the comments; the judge's answers are fixed per prompt.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.scorers.ct_finebench.contracts import comparison_contract, extraction_contract
from tests.conftest import write_jsonl
from tests.ct_finebench.stub_judge import (
    answer,
    asked_ids,
    candidate_in,
    is_extraction,
    items_in,
    metrics,
    prompt_of,
    run,
    scores,
)
from tests.ct_finebench.test_records import GRADED
from tests.openai_stub import StubReply


def qa(question: str, answer_text: str, attribute: str, attribute_type: str, finding: str) -> dict[str, str]:
    return {
        "question": question,
        "answer": answer_text,
        "finding": finding,
        "attribute": attribute,
        "attribute_type": attribute_type,
    }


R1 = {
    "id": "r1",
    "reference": "A solid 8 mm nodule with spiculated margins in the right upper lobe. Small left pleural effusion.",
    "candidate": "A 9 mm nodule in the right upper lobe. Fluid in the left pleural space.",
    "expert_score": 3,
    "expert_score_max": 5,
    "qa": [
        qa("What is the size of the nodule?", "8 mm", "size", "numeric", "lung nodule"),
        qa("Where is the nodule?", "right upper lobe", "location", "location", "lung nodule"),
        qa("What are the margins of the nodule?", "spiculated", "margin", "categorical", "lung nodule"),
        qa("Is there a pleural effusion?", "present", "existence", "existence", "pleural effusion"),
    ],
}
R2 = {
    "id": "r2",
    "reference": "A 2 cm simple cyst in the left kidney.",
    "candidate": "Simple cyst of the left kidney.",
    "expert_score": 4,
    "expert_score_max": 5,
    "qa": [
        qa("What is the size of the renal cyst?", "2 cm", "size", "numeric", "renal cyst"),
        qa("Where is the renal cyst?", "left kidney", "location", "location", "renal cyst"),
    ],
}

# What the judge extracts from each candidate, and the grades it gives to the answers it is shown.
EXTRACTED = {
    R1["candidate"]: {"q1": "9 mm", "q2": "RUL", "q3": None, "q4": "fluid in the left pleural space"},
    R2["candidate"]: {"q1": None, "q2": "left kidney"},
}
GRADES = {"RUL": 1, "fluid in the left pleural space": 0.5, "left kidney": 1}


def fixed_judge(body: dict[str, Any]) -> str:
    """Extraction: the answers of `EXTRACTED` for the ids asked; comparison: the grades of `GRADES`."""
    if is_extraction(body):
        extracted = EXTRACTED[candidate_in(body)]
        return answer({key: extracted[key] for key in asked_ids(body)})
    return answer({key: GRADES[candidate] for key, (_, _, candidate) in items_in(body).items()})


@pytest.fixture
def data(tmp_path: Path) -> str:
    return str(write_jsonl(tmp_path / "reports.jsonl", [R1, R2]))


@pytest.fixture
def r1_only(tmp_path: Path) -> str:
    return str(write_jsonl(tmp_path / "r1.jsonl", [R1]))


def test_fixed_answers_give_hand_computed_scores_and_metrics(monkeypatch, data):
    log, server = run(ct_finebench(data=data), fixed_judge, monkeypatch)
    by_id = scores(log)
    # r1: q1 9 mm vs 8 mm = 12.5% -> 0.5 (code); q2 1 (judge); q3 unanswered -> 0; q4 0.5 (judge): 2.0 / 4
    assert by_id["r1"].value == {"ct_finebench": 0.5}
    # r2: q1 unanswered -> 0; q2 1 (judge): 1.0 / 2
    assert by_id["r2"].value == {"ct_finebench": 0.5}
    assert len(server.requests) == 4  # two calls per report

    comparison_r1 = next(b for b in server.requests if not is_extraction(b) and "q4" in asked_ids(b))
    assert items_in(comparison_r1) == {
        "q2": ("Where is the nodule?", "right upper lobe", "RUL"),
        "q4": ("Is there a pleural effusion?", "present", "fluid in the left pleural space"),
    }

    r1 = by_id["r1"]
    assert set(r1.metadata) == GRADED
    assert r1.metadata["questions"][0] == {
        "id": "q1",
        "question": "What is the size of the nodule?",
        "finding": "lung nodule",
        "attribute": "size",
        "answer_type": "numeric",
        "reference_answer": "8 mm",
        "extracted_answer": "9 mm",
        "answered": True,
        "grade": 0.5,
        "graded_by": "code",
        "unscored_reason": None,
        "unscored_detail": None,
    }
    assert [(q["grade"], q["graded_by"], q["answered"]) for q in r1.metadata["questions"]] == [
        (0.5, "code", True),
        (1.0, "judge", True),
        (0.0, "code", False),
        (0.5, "judge", True),
    ]
    q3_row = "| q3 | categorical | margin | What are the margins of the nodule? | spiculated | (not stated) | 0 |"
    assert f"{q3_row} code (unanswered) |" in r1.explanation
    assert "| q2 | location | location | Where is the nodule? | right upper lobe | RUL | 1 | judge |" in r1.explanation
    assert (r1.metadata["judge_calls"], r1.metadata["questions_unanswered"], r1.metadata["expert_score"]) == (2, 1, 0.6)
    assert r1.metadata["judge_input_tokens"] > 0 and r1.metadata["unscored"] == {}

    values = metrics(log)
    assert values["ct_finebench_mean"] == 0.5
    assert values["type_numeric_mean"] == 0.25  # 0.5 (r1) and 0 (r2)
    assert values["type_numeric_n"] == 2
    assert values["type_location_mean"] == 1.0
    assert values["type_categorical_mean"] == 0.0
    assert values["type_existence_mean"] == 0.5
    assert math.isnan(values["type_other_mean"]) and values["type_other_n"] == 0
    assert values["attribute_size_mean"] == 0.25 and values["attribute_margin_mean"] == 0.0
    assert values["unanswered_share"] == pytest.approx(2 / 6)
    assert (values["questions_total"], values["questions_graded"], values["questions_unscored"]) == (6, 6, 0)
    assert values["judge_calls_per_sample"] == 2.0
    assert values["parse_failure_rate"] == 0.0
    assert values["ct_finebench_n_pairs"] == 2  # agreement with the expert scores is computed


def test_per_question_mode_asks_once_per_question_and_gives_the_same_scores(monkeypatch, data):
    log, server = run(ct_finebench(data=data, qa_mode="per_question"), fixed_judge, monkeypatch)
    assert {key: score.value["ct_finebench"] for key, score in scores(log).items()} == {"r1": 0.5, "r2": 0.5}
    assert all(len(asked_ids(body)) == 1 for body in server.requests)
    # r1: 4 extractions + 2 comparisons (q2, q4); r2: 2 extractions + 1 comparison (q2)
    assert len(server.requests) == 9
    assert metrics(log)["judge_calls_per_sample"] == 4.5


def broken(body: dict[str, Any]) -> str:
    return 'Sure! Here are the answers: {"q1": "8 mm",' if is_extraction(body) else answer({})


@pytest.mark.parametrize("policy", ["worst", "exclude"])
def test_broken_json_is_asked_again_then_unscored_with_a_reason_never_zero(monkeypatch, r1_only, policy):
    log, server = run(ct_finebench(data=r1_only, unscored=policy), broken, monkeypatch)
    (score,) = scores(log).values()
    assert len(server.requests) == 2  # the first answer and one re-ask (judge_retries=1); no comparison call
    assert score.reason == "grader_failed" and score.metadata["unscored"]["ct_finebench"] == "invalid_response_format"
    assert [q["unscored_reason"] for q in score.metadata["questions"]] == ["invalid_response_format"] * 4
    assert all(q["grade"] is None and q["answered"] is None for q in score.metadata["questions"])
    assert score.metadata["questions"][0]["unscored_detail"].startswith("answer extraction: invalid_json: ")
    assert score.metadata["judge_retried"] is True
    values = metrics(log)
    assert values["parse_failure_rate"] == 1.0 and values["unscored"] == 1.0
    assert values["questions_unscored"] == 4 and math.isnan(values["unanswered_share"])
    if policy == "worst":
        assert score.value == {"ct_finebench": 0.0} and score.metadata["filled_in"] == ["ct_finebench"]
        assert values["ct_finebench_mean"] == 0.0
    else:
        assert math.isnan(score.value["ct_finebench"]) and score.metadata["filled_in"] == []
        assert math.isnan(values["ct_finebench_mean"])


def test_judge_retries_zero_asks_once(monkeypatch, r1_only):
    _, server = run(ct_finebench(data=r1_only, judge_retries=0), broken, monkeypatch)
    assert len(server.requests) == 1


def leaves_out_q3(follow_up: str):
    """An extraction judge that leaves q3 out and answers `follow_up` when asked for q3 alone."""

    def reply(body: dict[str, Any]) -> str:
        if not is_extraction(body):
            return answer({key: 1 for key in asked_ids(body)})
        if asked_ids(body) == ["q3"]:
            return follow_up
        return answer({"q1": "8 mm", "q2": "right upper lobe", "q4": "present"})

    return reply


def test_left_out_ids_are_asked_again_on_their_own(monkeypatch, r1_only):
    log, server = run(ct_finebench(data=r1_only), leaves_out_q3(answer({"q3": "spiculated"})), monkeypatch)
    (score,) = scores(log).values()
    assert [asked_ids(body) for body in server.requests[:2]] == [["q1", "q2", "q3", "q4"], ["q3"]]
    assert score.value == {"ct_finebench": 1.0}  # q1 8 mm exact (code), q2-q4 graded 1 by the judge
    assert score.metadata["extraction_judge"]["follow_ups"] == 1
    assert score.metadata["judge_calls"] == 3


def test_ids_still_left_out_are_unscored_with_a_reason_not_zero(monkeypatch, r1_only):
    log, server = run(ct_finebench(data=r1_only), leaves_out_q3(answer({"q3": ""})), monkeypatch)
    (score,) = scores(log).values()
    # the first answer, the follow-up for q3 and one re-ask of the unreadable follow-up
    assert [asked_ids(body) for body in server.requests if is_extraction(body)] == [
        ["q1", "q2", "q3", "q4"],
        ["q3"],
        ["q3"],
    ]
    q3 = score.metadata["questions"][2]
    assert (q3["grade"], q3["answered"], q3["unscored_reason"]) == (None, None, "invalid_response_format")
    assert "String should have at least 1 character" in q3["unscored_detail"]
    assert score.value == {"ct_finebench": 1.0}  # the mean of q1, q2 and q4; q3 is not a 0
    assert score.metadata["questions_unscored"] == 1 and score.reason is None
    assert metrics(log)["questions_unscored"] == 1


def test_a_grade_left_out_is_asked_again(monkeypatch, r1_only):
    def reply(body: dict[str, Any]) -> str:
        if is_extraction(body):
            return answer({"q1": "8 mm", "q2": "RUL", "q3": "smooth", "q4": "present"})
        return answer({"q2": 1, "q3": 0}) if asked_ids(body) == ["q2", "q3", "q4"] else answer({"q4": 1})

    log, server = run(ct_finebench(data=r1_only), reply, monkeypatch)
    (score,) = scores(log).values()
    assert [asked_ids(body) for body in server.requests if not is_extraction(body)] == [["q2", "q3", "q4"], ["q4"]]
    assert score.value == {"ct_finebench": 0.75}  # (1 + 1 + 0 + 1) / 4
    assert score.metadata["comparison_judge"]["follow_ups"] == 1


def test_context_exceeded_leaves_the_report_unscored(monkeypatch, r1_only):
    error = {"message": "This model's maximum context length is 512 tokens.", "code": "context_length_exceeded"}
    log, server = run(ct_finebench(data=r1_only), lambda body: StubReply(status=400, error=error), monkeypatch)
    (score,) = scores(log).values()
    assert len(server.requests) == 1
    assert score.reason == "grader_failed" and score.metadata["unscored"]["ct_finebench"] == "judge_context_exceeded"
    assert score.metadata["unscored_detail"]["ct_finebench"].startswith("no question of 4 could be graded")
    assert metrics(log)["parse_failure_rate"] == 0.0  # the judge never answered: not a parse failure


def test_an_answer_cut_at_its_budget_gets_one_larger_budget_then_is_unscored_as_truncated(monkeypatch, r1_only):
    reply = lambda body: StubReply(text='{"q1": "8 mm", "q2": "rig', finish_reason="length")  # noqa: E731
    log, server = run(ct_finebench(data=r1_only), reply, monkeypatch)
    (score,) = scores(log).values()
    budget = extraction_contract(["q1", "q2", "q3", "q4"]).max_tokens
    assert [body["max_tokens"] for body in server.requests] == [budget, 2 * budget, 2 * budget]
    assert score.reason == "grader_failed" and score.metadata["unscored"]["ct_finebench"] == "truncated"
    assert score.metadata["judge_truncated"] is True
    assert metrics(log)["parse_failure_rate"] == 1.0


def test_judge_max_tokens_overrides_the_contract_budget(monkeypatch, r1_only):
    _, server = run(ct_finebench(data=r1_only), fixed_judge, monkeypatch)
    assert [body["max_tokens"] for body in server.requests] == [
        extraction_contract(["q1", "q2", "q3", "q4"]).max_tokens,
        comparison_contract(["q2", "q4"]).max_tokens,
    ]
    _, server = run(ct_finebench(data=r1_only, judge_max_tokens=300), fixed_judge, monkeypatch)
    assert [body["max_tokens"] for body in server.requests] == [300, 300]


@pytest.mark.parametrize(
    ("service", "field", "value"),
    [
        ("llamacpp", "grammar", lambda ids, c: c(ids).gbnf),
        ("vllm", "structured_outputs", lambda ids, c: {"json": c(ids).json_schema}),
    ],
)
def test_each_backend_gets_the_per_report_contract_in_its_own_form(monkeypatch, r1_only, service, field, value):
    _, server = run(ct_finebench(data=r1_only), fixed_judge, monkeypatch, service=service)
    extraction, comparison = server.requests
    assert extraction[field] == value(["q1", "q2", "q3", "q4"], extraction_contract)
    assert comparison[field] == value(["q2", "q4"], comparison_contract)


def test_other_backends_get_the_json_schema_as_response_format(monkeypatch, r1_only):
    _, server = run(ct_finebench(data=r1_only), fixed_judge, monkeypatch)
    extraction, comparison = server.requests
    schema = extraction["response_format"]["json_schema"]["schema"]
    assert extraction["response_format"]["type"] == "json_schema"
    assert (schema["required"], schema["additionalProperties"]) == (["q1", "q2", "q3", "q4"], False)
    # Inspect's OpenAI provider drops string lengths (OpenAI's strict mode rejects them); the reader enforces them.
    assert schema["properties"]["q1"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    grades = comparison["response_format"]["json_schema"]["schema"]
    assert grades["properties"] == {
        "q2": {"type": "number", "enum": [0, 0.5, 1]},
        "q4": {"type": "number", "enum": [0, 0.5, 1]},
    }


def test_constrain_off_sends_no_constraint(monkeypatch, r1_only):
    _, server = run(ct_finebench(data=r1_only, constrain="off"), fixed_judge, monkeypatch, service="vllm")
    assert all(not {"grammar", "structured_outputs", "response_format"} & set(body) for body in server.requests)


def test_static_instructions_come_first_and_the_report_last(monkeypatch, data):
    _, server = run(ct_finebench(data=data), fixed_judge, monkeypatch)
    extractions = [prompt_of(body) for body in server.requests if is_extraction(body)]
    comparisons = [prompt_of(body) for body in server.requests if not is_extraction(body)]
    for prompts, marker in ((extractions, "## Questions\n"), (comparisons, "## Items\n")):
        prefixes = {prompt[: prompt.index(marker)] for prompt in prompts}
        assert len(prefixes) == 1  # the same instructions for every report: a prefix cache serves them
    for prompt in extractions:
        assert prompt.index("## Questions") < prompt.index("<candidate_report>")
        assert prompt.rstrip().endswith("Write the JSON object now.")
        assert prompt.index("</candidate_report>") > len(prompt) - 60
