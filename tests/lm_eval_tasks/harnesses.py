"""Run one task in each harness against the same scripted judge server on 127.0.0.1."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.lm_eval_tasks import config_dir
from tests.openai_stub import Reply, openai_stub

SERVICE = "lmevalstub"


@dataclass
class Run:
    """What one harness returned and every request body the scripted server received."""

    output: Any
    requests: list[dict[str, Any]]


def run_inspect(task: Task, reply: Reply, monkeypatch: pytest.MonkeyPatch) -> Run:
    """Evaluate an Inspect task whose `grader` is the scripted server."""
    with openai_stub(reply) as server:
        monkeypatch.setenv(f"{SERVICE.upper()}_BASE_URL", server.base_url)
        monkeypatch.setenv(f"{SERVICE.upper()}_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            task, model="none", model_roles={"grader": f"openai-api/{SERVICE}/stub-judge"}, display="none"
        )
    assert isinstance(log, EvalLog) and log.status == "success", log.error
    return Run(log, server.requests)


def run_lm_eval(tasks: list[str], reply: Reply, *, limit: int | None = None, metadata: dict | None = None) -> Run:
    """Evaluate lm-eval tasks through `lm_eval.simple_evaluate` with the scripted server as the model."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    with openai_stub(reply) as server:
        results = simple_evaluate(
            model="local-chat-completions",
            model_args={
                "base_url": f"{server.base_url}/chat/completions",
                "model": "stub-judge",
                "tokenized_requests": False,
            },
            tasks=tasks,
            task_manager=TaskManager(include_path=str(config_dir()), metadata=metadata),
            limit=limit,
            apply_chat_template=True,
            log_samples=True,
        )
    assert results is not None
    return Run(results, server.requests)


def prompts(requests: list[dict[str, Any]]) -> list[str]:
    """The user message of each request, in the order received."""
    return [request["messages"][-1]["content"] for request in requests]
