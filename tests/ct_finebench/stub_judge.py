"""Helpers for CT-FineBench tests whose judge is the local OpenAI-compatible stub server."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from tests.openai_stub import StubReply, StubServer, openai_stub
from tests.report_values import report_values

SCORER = "qa_comparison"
CANDIDATE = re.compile(r"<candidate_report>\n(.*?)\n</candidate_report>", re.S)
QUESTION = re.compile(r"^(q\d+): (.*)$", re.M)
ITEM = re.compile(
    r'<item id="(q\d+)">\nQuestion: (.*)\nReference answer: <reference_answer>(.*)</reference_answer>'
    r"\nCandidate answer: <candidate_answer>(.*)</candidate_answer>\n</item>"
)


def prompt_of(body: dict[str, Any]) -> str:
    """The text of the judge prompt in a request body."""
    return body["messages"][-1]["content"]


def is_extraction(body: dict[str, Any]) -> bool:
    """Whether the request is an answer-extraction prompt (else a comparison prompt)."""
    return "<candidate_report>" in prompt_of(body)


def candidate_in(body: dict[str, Any]) -> str:
    """The candidate report as placed in an extraction prompt."""
    (text,) = CANDIDATE.findall(prompt_of(body))
    return text


def asked_ids(body: dict[str, Any]) -> list[str]:
    """The question ids an extraction or comparison prompt asks about, in order."""
    if is_extraction(body):
        return [key for key, _ in QUESTION.findall(prompt_of(body))]
    return [match[0] for match in ITEM.findall(prompt_of(body))]


def items_in(body: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    """``id -> (question, reference answer, candidate answer)`` of a comparison prompt."""
    return {
        key: (question, reference, candidate) for key, question, reference, candidate in ITEM.findall(prompt_of(body))
    }


def answer(values: dict[str, Any]) -> str:
    """A judge answer in the contract's JSON form."""
    return json.dumps(values)


Reply = Callable[[dict[str, Any]], "str | StubReply"]


def run(
    task: Task, reply: Reply, monkeypatch: pytest.MonkeyPatch, service: str = "stubsvc"
) -> tuple[EvalLog, StubServer]:
    """Evaluate `task` with the stub server as the grader; the run must succeed."""
    with openai_stub(reply) as server:
        monkeypatch.setenv(f"{service.upper()}_BASE_URL", server.base_url)
        monkeypatch.setenv(f"{service.upper()}_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            task, model="none", model_roles={"grader": f"openai-api/{service}/stub-judge"}, display="none"
        )
    assert log.status == "success", log.error
    return log, server


def scores(log: EvalLog) -> dict[str, Any]:
    """Each sample's score by sample id."""
    return {str(sample.id): sample.scores[SCORER] for sample in log.samples or []}


def metrics(log: EvalLog) -> dict[str, float]:
    """Every metric of the run by name, as `radiology-tasks report` computes them from the log."""
    return report_values(log)
