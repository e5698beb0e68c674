"""A scripted VERT judge behind the local OpenAI-compatible stub, and ranking runs made with it."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.ranking_tests.tasks import ranking_tests
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub

JUDGE = "openai-api/stubsvc/stub-judge"

CASES = [
    {"id": "a", "category": "location", "reference": "Right effusion.", "candidates": ["Right effusion.", "Left one."]},
    {"id": "b", "category": "severity", "reference": "Moderate edema.", "candidates": ["Mild edema.", "Severe edema."]},
    {"id": "c", "category": "severity", "reference": "Small nodule.", "candidates": ["No nodule.", "Garbled nodule."]},
]
"""Case a comes out right, b a tie (the judge gives both 0.7), c unscored (the judge garbles one answer)."""

SCORES = {"Right effusion.": 1.0, "Left one.": 0.5, "Mild edema.": 0.7, "Severe edema.": 0.7, "No nodule.": 0.2}


def candidate_in(body: dict[str, Any]) -> str:
    """The candidate report between the prompt's candidate tags."""
    prompt = str(body["messages"][-1]["content"])
    found = re.search(r"<candidate_report>\s*(.*?)\s*</candidate_report>", prompt, re.S)
    assert found is not None, prompt
    return found.group(1)


def vert_reply(body: dict[str, Any]) -> str:
    """A well-formed VERT answer with the scripted score, or a garbled answer for the garbled candidate."""
    candidate = candidate_in(body)
    if candidate not in SCORES:
        return "I would rather not say."
    return assessment({}, matched=1, score=SCORES[candidate])


def write_cases(folder: Path) -> Path:
    """The three cases as a flat JSONL file."""
    path = folder / "cases.jsonl"
    path.write_text("".join(json.dumps(case) + "\n" for case in CASES))
    return path


def careful_reply(body: dict[str, Any]) -> str:
    """Like `vert_reply`, but the garbled candidate gets a readable 0.1 (every case is scored: c comes out right)."""
    candidate = candidate_in(body)
    return assessment({}, matched=1, score=SCORES.get(candidate, 0.1))


def flat_reply(body: dict[str, Any]) -> str:
    """A judge that gives every candidate 0.5, so every case is a tie."""
    return assessment({}, matched=1, score=0.5)


def vert_run(
    monkeypatch: pytest.MonkeyPatch,
    folder: Path,
    reply: Callable[[dict[str, Any]], str] = vert_reply,
    judge: str = JUDGE,
    **args: object,
) -> EvalLog:
    """One ranking run of VERT over the three cases, judged by the stub (`reply`) at temperature 0."""
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            ranking_tests(metric="vert", data=str(write_cases(folder)), **args),
            model="none",
            model_roles={"grader": judge},
            display="none",
            log_dir=str(folder / "logs"),
        )
    assert log.status == "success", log.error
    return log
