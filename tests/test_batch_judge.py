"""A judge in Inspect's batch mode: its calls go through the provider's Batch API and score as direct calls do."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import BatchConfig, GenerateConfig, Model, get_model

from radiology_tasks.green_vert.tasks import vert
from radiology_tasks.ran_score.tasks import ran_score
from tests.judge_answers import assessment
from tests.openai_batch_stub import BatchStubState, openai_batch_stub
from tests.ran_score.helpers import batch_answer
from tests.report_values import report_values

ROWS = 4
JUDGE = "gpt-4.1-mini"
"""An OpenAI chat model's name: Inspect reads an unknown name under ``openai/`` as a newer reasoning model
(Responses API, no temperature), so the stub serves a name it treats as a plain chat-completions model."""


def _reply(body: dict[str, Any]) -> str:
    """An answer that depends on the prompt, so each sample gets its own counts and score."""
    prompt = body["messages"][-1]["content"]
    digest = hashlib.sha256(prompt.encode()).digest()
    significant = {"b": digest[0] % 3, "d": digest[1] % 2}
    score = (digest[3] % 101) / 100 if "[Overall Accuracy Score]" in prompt else None
    return assessment(significant, 1 + digest[2] % 4, score)


def _judge(server: BatchStubState, batch: BatchConfig | None) -> Model:
    """The judge behind the stub; a batch judge gives up after three failed status checks, not 1000."""
    if batch is not None:
        batch = batch.model_copy(update={"max_consecutive_check_failures": 3})
    return get_model(
        f"openai/{JUDGE}",
        base_url=server.base_url,
        api_key="not-a-real-key",
        config=GenerateConfig(batch=batch),
        memoize=False,
    )


def _run(server: BatchStubState, batch: BatchConfig | None, log_dir: Path) -> EvalLog:
    (log,) = inspect_eval(
        vert(limit=ROWS),
        model="none",
        model_roles={"grader": _judge(server, batch)},
        display="none",
        log_dir=str(log_dir),
    )
    return log


def _scores(log: EvalLog) -> dict[str, tuple[Any, Any]]:
    assert log.samples is not None
    return {
        str(s.id): (s.scores["report_judge"].value, s.scores["report_judge"].metadata["predicted_significant"])
        for s in log.samples
        if s.scores
    }


def test_batch_mode_sends_batches_and_scores_as_direct_calls(tmp_path: Path) -> None:
    # A batch goes out once it holds every row (or after 0.2 s); the harness polls every 0.1 s.
    batch = BatchConfig(size=ROWS, send_delay=0.2, tick=0.1)
    with openai_batch_stub(_reply, polls_to_complete=2) as batched:
        batch_log = _run(batched, batch, tmp_path)
    with openai_batch_stub(_reply) as direct:
        direct_log = _run(direct, None, tmp_path)

    assert batch_log.status == "success" and direct_log.status == "success"
    batch_scores, direct_scores = _scores(batch_log), _scores(direct_log)
    assert len(batch_scores) == ROWS
    assert batch_scores == direct_scores
    # Answers differ by prompt, so equal scores mean each answer reached its own sample.
    assert len({str(value) for value, _ in batch_scores.values()}) > 1

    assert batched.chat_calls == []
    assert len(batched.batch_bodies) == ROWS
    assert all(b["model"] == JUDGE for b in batched.batch_bodies)
    assert batched.batches and all(b["status"] == "completed" for b in batched.batches.values())
    assert all(b["endpoint"] == "/v1/chat/completions" for b in batched.batches.values())
    assert any(p.startswith("POST /v1/files") for p in batched.paths)
    assert max(batched.polls.values()) > 2  # completion was waited for, not found at once

    assert len(direct.chat_calls) == ROWS
    assert direct.batches == {} and direct.files == {}
    assert sorted(b["messages"][-1]["content"] for b in batched.batch_bodies) == sorted(
        b["messages"][-1]["content"] for b in direct.chat_calls
    )
    assert batch_log.stats.role_usage["grader"].input_tokens == direct_log.stats.role_usage["grader"].input_tokens


def test_a_json_schema_constraint_rides_in_each_batch_line(tmp_path: Path) -> None:
    """Ran Score's JSON contract goes as a top-level ``response_format``, which a batch line carries as is."""
    with openai_batch_stub(lambda body: batch_answer({})) as server:
        (log,) = inspect_eval(
            ran_score(limit=1, label_cache="off"),
            model="none",
            model_roles={"grader": _judge(server, BatchConfig(size=1, send_delay=0.1, tick=0.1))},
            display="none",
            log_dir=str(tmp_path),
        )
    assert log.status == "success"
    assert server.chat_calls == [] and len(server.batch_bodies) == 2  # reference and candidate
    for body in server.batch_bodies:
        assert body["response_format"]["type"] == "json_schema"
        assert body["response_format"]["json_schema"]["schema"]["type"] == "object"
    assert report_values(log)["parse_failure_rate"] == 0.0


@pytest.mark.parametrize("constrain", ["structured_outputs", "grammar"])
def test_an_extra_body_constraint_is_refused_in_batch_mode(tmp_path: Path, constrain: str) -> None:
    # Inspect's OpenAI batcher writes a request's extra_body as a nested field of the batch line instead of merging
    # it into the body, as a direct call does: the constraint would not reach the provider, so it is refused.
    with openai_batch_stub(_reply) as server:
        (log,) = inspect_eval(
            vert(limit=1, constrain=constrain),
            model="none",
            model_roles={"grader": _judge(server, BatchConfig(size=1, send_delay=0.1, tick=0.1))},
            display="none",
            log_dir=str(tmp_path),
        )
    assert log.status == "error" and log.error is not None
    assert f"constrain={constrain} cannot be sent in batch mode" in log.error.message
    assert server.batch_bodies == [] and server.chat_calls == []
