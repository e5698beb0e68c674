"""Real eval logs for the leaderboard tests: the vert task judged by a scripted judge behind a local HTTP server."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from radiology_tasks.green_vert.tasks import green, vert
from tests.judge_answers import assessment
from tests.openai_stub import StubServer, openai_stub

REFERENCES = {
    "p1": "Small left pleural effusion. No pneumothorax.",
    "p2": "Right upper lobe nodule, 8 mm, unchanged.",
    "p3": "Cardiomegaly. No focal consolidation.",
    "p4": "Mild degenerative change of the lumbar spine.",
    "p5": "No acute intracranial abnormality.",
    "p6": "Simple cyst in the left kidney, 2 cm.",
    "p7": "Fracture of the distal radius.",
    "p8": "Normal chest radiograph.",
}
# Each candidate text carries the score the scripted judge gives it: "[0.80]".
SYSTEM_A = {pid: f"{text} [0.{90 - 5 * i}]" for i, (pid, text) in enumerate(REFERENCES.items())}
SYSTEM_B = {pid: f"{text} [0.{60 - 5 * i}]" for i, (pid, text) in enumerate(REFERENCES.items())}
UNREADABLE = "[unreadable]"


def scripted_reply(body: dict[str, Any]) -> str:
    """Answer with the score written in the candidate, or with no verdict at all for an `[unreadable]` one."""
    prompt = body["messages"][-1]["content"]
    if "(unreadable)" in prompt:
        return "I cannot assess these reports."
    # The scorer shows the candidate with its brackets neutralised: "[0.80]" reaches the judge as "(0.80)".
    found = re.findall(r"[\[(](0\.\d+)[\])]", prompt)
    score = float(found[-1]) if found else 0.5
    return assessment({"b": 1 if score < 0.7 else 0}, 3, score)


def write_data(directory: Path) -> Path:
    """The references with system A's candidates and expert scores, as the task reads them."""
    path = directory / "pairs.jsonl"
    rows = [
        {"id": pid, "reference": text, "candidate": SYSTEM_A[pid], "expert_score": 5 - i % 4, "expert_score_max": 5}
        for i, (pid, text) in enumerate(REFERENCES.items())
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def write_candidates(directory: Path, candidates: dict[str, str], name: str = "system_b.jsonl") -> Path:
    """A candidates file (`id`, `candidate`) joined onto the data by id."""
    path = directory / name
    path.write_text("".join(json.dumps({"id": k, "candidate": v}) + "\n" for k, v in candidates.items()))
    return path


@contextmanager
def scripted_judge(
    monkeypatch: pytest.MonkeyPatch, reply: Callable[[dict[str, Any]], str] = scripted_reply
) -> Iterator[StubServer]:
    """The scripted judge served on 127.0.0.1 as the `openai-api/stubsvc` provider."""
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        yield server


def run_task(log_dir: Path, judge: str = "openai-api/stubsvc/stub-judge", task: str = "vert", **task_args: Any) -> Path:
    """Run the vert (or green) task with the scripted judge; returns the log file."""
    factory = vert if task == "vert" else green
    (log,) = inspect_eval(
        factory(**task_args), model="none", model_roles={"grader": judge}, log_dir=str(log_dir), display="none"
    )
    assert log.status == "success", log.error
    return Path(log.location)


def edited(path: Path, change: Callable[[EvalLog], None], name: str) -> Path:
    """A copy of the log at `path` with `change` applied, written next to it as `name`."""
    log = read_eval_log(str(path))
    change(log)
    target = path.parent / name
    write_eval_log(log, str(target))
    return target
