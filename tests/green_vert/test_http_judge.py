"""The real provider path: a judge behind an OpenAI-compatible HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log

from radiology_tasks.core.report_hook import local_path, report_line
from radiology_tasks.core.run_report import build_report
from radiology_tasks.green_vert.tasks import green, vert
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub
from tests.report_values import report_values

REPO = Path(__file__).resolve().parents[2]


def _judge_reply(body: dict) -> str:
    prompt = body["messages"][-1]["content"]
    with_score = "[Overall Accuracy Score]" in prompt
    return assessment({"b": 1}, 3, 0.70 if with_score else None)


def _service_env(monkeypatch: pytest.MonkeyPatch, service: str, base_url: str) -> None:
    monkeypatch.setenv(f"{service.upper()}_BASE_URL", base_url)
    monkeypatch.setenv(f"{service.upper()}_API_KEY", "not-a-real-key")


def test_vert_through_openai_compatible_server(monkeypatch):
    with openai_stub(_judge_reply) as server:
        _service_env(monkeypatch, "stubsvc", server.base_url)
        (log,) = inspect_eval(
            vert(limit=3),
            model="none",
            model_roles={"grader": "openai-api/stubsvc/stub-judge"},
            display="none",
        )
    assert log.status == "success"
    assert len(server.requests) == 3
    assert all(r["model"] == "stub-judge" for r in server.requests)
    for sample in log.samples:
        score = sample.scores["report_judge"]
        assert score.value == {"vert": 0.7, "green": 0.75, "green_ec": 1.0, "green_f1": pytest.approx(6 / 7)}
        assert score.metadata["predicted_significant"] == {"a": 0, "b": 1, "c": 0, "d": 0, "e": 0, "f": 0}
    metrics = report_values(log)
    assert metrics["parse_failure_rate"] == 0.0
    assert log.stats.role_usage["grader"].input_tokens > 0


@pytest.mark.parametrize(
    ("service", "expected_key", "forbidden"),
    [("llamacpp", "grammar", "structured_outputs"), ("vllm", "structured_outputs", "grammar")],
)
def test_constraint_reaches_the_server_in_its_own_form(monkeypatch, service, expected_key, forbidden):
    with openai_stub(_judge_reply) as server:
        _service_env(monkeypatch, service, server.base_url)
        (log,) = inspect_eval(
            green(limit=1), model="none", model_roles={"grader": f"openai-api/{service}/stub-judge"}, display="none"
        )
    assert log.status == "success"
    (request,) = server.requests
    assert expected_key in request and forbidden not in request
    assert not any(k.startswith("guided_") for k in request)
    assert "response_format" not in request


def test_constrain_off_sends_no_constraint(monkeypatch):
    with openai_stub(_judge_reply) as server:
        _service_env(monkeypatch, "vllm", server.base_url)
        inspect_eval(
            green(limit=1, constrain="off"),
            model="none",
            model_roles={"grader": "openai-api/vllm/stub-judge"},
            display="none",
        )
    (request,) = server.requests
    assert not {"grammar", "structured_outputs", "response_format"} & set(request)


@pytest.mark.slow
def test_inspect_cli_from_repository_root(tmp_path):
    with openai_stub(_judge_reply) as server:
        env = dict(os.environ, STUBSVC_BASE_URL=server.base_url, STUBSVC_API_KEY="not-a-real-key")
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "inspect_ai",
                "eval",
                "radiology_tasks/vert",
                "--model",
                "none",
                "--model-role",
                "grader=openai-api/stubsvc/stub-judge",
                "-T",
                "limit=2",
                "--log-dir",
                str(tmp_path),
                "--display",
                "plain",
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert result.returncode == 0, result.stdout + result.stderr
    log = read_eval_log(list_eval_logs(str(tmp_path))[0])
    assert log.eval.task == "radiology_tasks/vert" and log.status == "success"
    assert [s.scores["report_judge"].value["vert"] for s in log.samples] == [0.7, 0.7]
    # A constant judge has no tau with the experts: the summary leaves it out, the report says why.
    assert "kendall_tau" not in json.dumps(log.results.model_dump())
    tau = next(f for f in build_report(log.location).secondary if f.name == "vert_kendall_tau")
    assert tau.value is None and "the same vert (0.7)" in (tau.reason or "")
    # The hook names the report below Inspect's summary, in the display the run used.
    assert result.stdout.rstrip().splitlines()[-1] == report_line(log)
    assert report_line(log) == f"All metrics: radiology-tasks report {local_path(log.location)}"


def test_no_judge_bound_says_how_to_bind_one():
    (log,) = inspect_eval(vert(limit=1), model="none", display="none")
    assert log.status == "error"
    assert "No judge model is bound" in log.error.message
    assert "--model-role grader=" in log.error.message
