"""The crimson task end to end against a scripted judge behind a local OpenAI-compatible server."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.core.metrics import expert_metadata
from radiology_tasks.core.records import ReportPair
from radiology_tasks.crimson.records import CrimsonRecord
from radiology_tasks.crimson.scorer import crimson_score
from radiology_tasks.crimson.tasks import crimson
from radiology_tasks.leaderboard.rules import PARSED_ANSWERS
from tests.conftest import write_jsonl
from tests.crimson.stub_judge import FORGED, ROWS, SCORES, gullible_reply, reply
from tests.openai_stub import openai_stub

JUDGE = "openai-api/stubsvc/stub-judge"


def run(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, answer=reply, **args) -> tuple[EvalLog, list[dict]]:
    data = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    with openai_stub(answer) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            crimson(data=str(data), **args),
            model="none",
            model_roles={"grader": JUDGE},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert log.status == "success", log.error
    return log, server.requests


@pytest.fixture(scope="module")
def scripted(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, list[dict]]:
    with pytest.MonkeyPatch.context() as monkeypatch:
        return run(monkeypatch, tmp_path_factory.mktemp("crimson"))


def _scores(log: EvalLog) -> dict[str, dict]:
    assert log.samples is not None
    return {str(s.id): s.scores["crimson_judge"] for s in log.samples}


def test_each_pair_is_scored_from_its_judge_answer(scripted):
    log, _ = scripted
    scores = _scores(log)
    assert {key: score.value["crimson"] for key, score in scores.items()} == pytest.approx(SCORES)
    b = scores["b"].metadata["crimson"]
    assert (b["n_g"], b["correct"], b["e_miss"], b["branch"]) == (1.5, 1.0, 0.5, "ratio")
    assert b["counts"]["missing_findings"] == 1 and b["significance"]["reference"]["urgent"] == 1


def test_an_unreadable_answer_is_asked_again_then_left_unscored_as_the_judges_failure(scripted):
    log, requests = scripted
    c = _scores(log)["c"]
    assert c.reason == "grader_failed"
    assert c.metadata["unscored"] == {"crimson": "invalid_response_format"}
    assert c.metadata["filled_in"] == ["crimson"] and c.value == {"crimson": -1.0}
    assert c.metadata["judge_calls"] == 2
    assert c.metadata["judge_answer"] == "The candidate report describes the right lung."
    assert "not one JSON object" in c.metadata["reading_problem"]
    assert len(requests) == 5


def test_the_patient_context_reaches_the_prompt_and_the_log_as_given(scripted):
    log, requests = scripted
    scores = _scores(log)
    assert scores["a"].metadata["patient_context"] == {
        "age": "67",
        "age_column": "age",
        "sex": "F",
        "sex_column": "sex",
        "indication": "Chest pain after a fall.",
    }
    assert scores["c"].metadata["patient_context"] == {
        "age": "045Y",
        "age_column": "PatientAge",
        "sex": None,
        "sex_column": None,
        "indication": None,
    }
    prompts = [r["messages"][-1]["content"] for r in requests]
    first = next(p for p in prompts if "Large right pneumothorax. Moderate left pleural effusion is present." in p)
    assert "- Age: 67\n- Sex: F\n- Indication for the study: Chest pain after a fall.\n" in first
    forged = next(p for p in prompts if "No acute findings." in p)
    assert "- Age: 045Y\n" in forged and "Indication" not in forged and "Sex:" not in forged
    assert log.eval.metadata["patient_context"] == {"with_age": 4, "with_sex": 2, "with_indication": 2, "pairs": 4}


def test_the_judge_is_held_to_the_json_schema_and_greedy(scripted):
    _, requests = scripted
    first = requests[0]
    assert first["response_format"]["type"] == "json_schema"
    assert first["response_format"]["json_schema"]["name"] == "crimson"
    assert first["temperature"] == 0 and first["max_tokens"] == 5953
    assert first["messages"][0]["role"] == "system"


def test_the_headline_metrics_follow_from_the_scores(scripted):
    log, _ = scripted
    metrics = {name: m.value for s in log.results.scores for name, m in s.metrics.items()}
    assert metrics["crimson_mean"] == pytest.approx(sum(SCORES.values()) / 4)
    assert metrics["crimson_ci_low"] <= metrics["crimson_mean"] <= metrics["crimson_ci_high"]
    assert metrics["unscored_share"] == 0.25
    assert metrics["judge_calls_per_sample"] == 1.25
    # Experts: a 1.0 > b 0.6 > d 0.2, the judge 1 > 2/3 > 0 (c is filled in, so left out).
    assert metrics["crimson_kendall_tau"] == pytest.approx(1.0)
    # One preference pair: a over b, ordered the same way; c and d's pair lost c.
    assert metrics["crimson_preference_accuracy"] == 1.0
    assert set(metrics) == {
        "crimson_mean",
        "crimson_ci_low",
        "crimson_ci_high",
        "crimson_kendall_tau",
        "crimson_kendall_tau_ci_low",
        "crimson_kendall_tau_ci_high",
        "crimson_preference_accuracy",
        "unscored_share",
        "judge_calls_per_sample",
        "judge_tokens_per_sample",
    }


def test_the_report_adds_the_secondary_figures_and_agrees_with_the_log(scripted):
    from radiology_tasks.core.run_report import report_of

    log, _ = scripted
    report = report_of(log)
    assert report.headline_matches
    figures = {figure.name: figure for figure in report.headline + report.secondary}
    assert (figures["parse_failure_rate"].value, figures["unscored"].value) == (0.25, 1.0)
    assert figures["crimson_preference_pairs"].value == 1.0 and figures["crimson_preference_ties"].value == 0.0
    assert figures["retried"].value == 1.0
    assert figures["crimson_spearman"].value == pytest.approx(1.0)


def test_a_candidates_own_verdict_does_not_set_its_score(scripted):
    log, requests = scripted
    d = _scores(log)["d"]
    assert d.value == {"crimson": 0.0}
    forged = next(r for r in requests if "No acute findings." in r["messages"][-1]["content"])
    # The candidate's brackets are neutralised in the prompt, so its JSON is no longer JSON there.
    assert FORGED not in forged["messages"][-1]["content"]


def test_a_judge_that_echoes_a_candidates_verdict_leaves_it_unscored_not_perfect(monkeypatch, tmp_path):
    log, _ = run(monkeypatch, tmp_path, gullible_reply, unscored="exclude")
    d = _scores(log)["d"]
    assert math.isnan(d.value["crimson"])
    assert d.metadata["unscored"] == {"crimson": "invalid_response_format"} and d.metadata["filled_in"] == []
    assert d.metadata["judge_answer"].startswith("{")


def test_candidates_from_another_file_are_not_compared_with_the_experts(monkeypatch, tmp_path):
    # The experts rated the data's own candidates; the same texts given as -T candidates are another system's.
    candidates = write_jsonl(
        tmp_path / "candidates.jsonl", [{"id": r["id"], "candidate": r["candidate"]} for r in ROWS]
    )
    log, _ = run(monkeypatch, tmp_path, candidates=str(candidates))
    assert all(score.metadata["expert_score"] is None for score in _scores(log).values())
    metrics = {name for s in log.results.scores for name in s.metrics}
    assert "crimson_mean" in metrics and not any("kendall" in name or "preference" in name for name in metrics)


BEFORE_THE_JUDGE = {
    "guidelines",
    "patient_context",
    "expert_score",
    "expert_significant",
    "expert_insignificant",
    "expert_raters",
    "expert_group",
}
JUDGED = BEFORE_THE_JUDGE | {
    "judge",
    "constraint",
    "judge_answer",
    "judge_answer_attempt",
    "judge_attempts",
    "judge_retried",
    "judge_truncated",
    "judge_calls",
    "judge_input_tokens",
    "judge_output_tokens",
}
MISSING = {"unscored", "unscored_detail", "filled_in"}


def test_each_path_writes_the_keys_every_release_wrote_and_reads_back_through_the_record(scripted):
    log, _ = scripted
    scores = _scores(log)
    assert set(scores["a"].metadata) == JUDGED | MISSING | {"crimson", "parsed_answers"}
    assert set(scores["c"].metadata) == JUDGED | MISSING | {"reading_problem"}
    for score in scores.values():
        record = CrimsonRecord.read(score.metadata)
        assert CrimsonRecord.written(score.metadata) == score.metadata
        assert record.judge_calls == score.metadata["judge_calls"] and record.guidelines is True
    assert CrimsonRecord.read(scores["a"].metadata).parsed_answers == scores["a"].metadata[PARSED_ANSWERS]


def test_a_sample_never_judged_writes_no_judge_fields_and_nothing_unnamed():
    pair = ReportPair(id="x", reference="Right effusion.", candidate="No effusion.")
    score = crimson_score(
        None,
        ("no_response", "the candidate is empty"),
        policy="exclude",
        metadata={
            "guidelines": False,
            "patient_context": {},
            **expert_metadata(pair),
        },
    )
    assert set(score.metadata or {}) == BEFORE_THE_JUDGE | MISSING
    assert CrimsonRecord.read(score.metadata).guidelines is False
    with pytest.raises(TypeError, match="CrimsonRecord has no field judge_verdict"):
        crimson_score(None, ("no_response", ""), policy="exclude", metadata={"judge_verdict": "perfect"})
