"""The green and vert tasks end to end with the real embedded judge (SmolLM2-135M, in-process llama.cpp).

A 135M model is no clinical judge; what these runs show is that the bounded output contract makes even it
finish every answer in the contract, so every sample is scored, on the same command a new user runs.
"""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.core.llama_cpp_provider import resolve_model_path
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.report_judge.scorer import judge_contract
from tests.report_values import report_values

pytestmark = [pytest.mark.embedded, pytest.mark.slow]
GRADER = "llama-cpp/smollm2-135m"


@pytest.mark.parametrize(
    ("make_task", "keys"),
    [
        (lambda: green(limit=2, seed=0), ["green", "green_ec", "green_f1"]),
        (lambda: vert(limit=2, seed=0), ["vert", "green", "green_ec", "green_f1"]),
        (lambda: vert(limit=2, seed=0, detail="brief"), ["vert", "green", "green_ec", "green_f1"]),
    ],
    ids=["green", "vert", "vert-brief"],
)
def test_every_sample_is_scored_by_the_embedded_judge(make_task, keys, tmp_path) -> None:
    pytest.importorskip("llama_cpp")
    (log,) = inspect_eval(
        make_task(), model="none", model_roles={"grader": GRADER}, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for sample in log.samples:
        score = sample.scores["report_judge"]
        assert list(score.value) == keys
        assert not any(math.isnan(v) for v in score.value.values()), score.metadata.get("unscored_detail")
        assert score.metadata["unscored"] == {} and score.metadata["filled_in"] == []
        assert score.metadata["judge_calls"] == 1 and score.metadata["judge_truncated"] is False
        assert score.metadata["constraint"].startswith("constraint: GBNF grammar")
    metrics = report_values(log)
    assert metrics["parse_failure_rate"] == 0.0 and metrics["retried"] == 0.0


@pytest.mark.parametrize("detail", ["full", "brief"])
def test_the_longest_answer_costs_no_more_tokens_than_the_contract_assumes(detail: str) -> None:
    """One token per character holds for the embedded judge's tokenizer even on adversarial free text."""
    llama_cpp = pytest.importorskip("llama_cpp")
    contract = judge_contract("vert", detail)  # type: ignore[arg-type]
    model = llama_cpp.Llama(model_path=str(resolve_model_path("smollm2-135m")), vocab_only=True, verbose=False)
    for filler in ("0", "x", " ~", "|\\^", "Z9"):
        text = "".join(filler[i % len(filler)] for i in range(contract.max_chars))
        tokens = model.tokenize(text.encode(), add_bos=False, special=False)
        assert len(tokens) + 1 <= contract.max_answer_tokens


def test_the_embedded_model_writes_and_judges_reports(tmp_path) -> None:
    """The issue's command: the same small model as generator and judge; no report can stop the run."""
    pytest.importorskip("llama_cpp")
    (log,) = inspect_eval(
        vert(limit=2, seed=0, generate=True, report_max_tokens=256),
        model=GRADER,
        model_roles={"grader": GRADER},
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert len(log.samples) == 2 and not any(s.error for s in log.samples)
    for sample in log.samples:
        score = sample.scores["report_judge"]
        generation = score.metadata["generation"]
        assert generation["max_tokens"] == 256 and generation["output_tokens"] <= 256
        assert generation["truncated"] == (generation["stop_reason"] == "max_tokens")
        # scored, or unscored with a stated reason: never a bare NaN
        for key, value in score.value.items():
            assert not math.isnan(value) or score.metadata["unscored"][key]
    assert "report_truncated" in report_values(log)
