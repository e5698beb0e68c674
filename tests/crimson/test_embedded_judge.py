"""The crimson task with the real embedded judge (SmolLM2-135M, in-process llama.cpp).

A 135M model is no clinical judge; what this run shows is that the grammar makes even it answer within the
contract the reader accepts, so every pair is scored on the first call.
"""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.crimson.tasks import crimson
from tests.conftest import write_jsonl

pytestmark = [pytest.mark.embedded, pytest.mark.slow]
GRADER = "llama-cpp/smollm2-135m"

ROWS = [
    {"id": "p1", "reference": "Small left pleural effusion.", "candidate": "Left pleural effusion.", "age": "70"},
    {"id": "p2", "reference": "Right upper lobe nodule.", "candidate": "No nodule.", "indication": "Cough."},
]


def test_every_pair_is_scored_by_the_embedded_judge_on_the_first_call(tmp_path) -> None:
    pytest.importorskip("llama_cpp")
    data = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    (log,) = inspect_eval(
        crimson(data=str(data), judge_retries=0),
        model="none",
        model_roles={"grader": GRADER},
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 2
    for sample in log.samples:
        score = sample.scores["crimson_judge"]
        assert not math.isnan(score.value["crimson"]), score.metadata.get("reading_problem")
        assert -1.0 < score.value["crimson"] <= 1.0
        assert score.metadata["unscored"] == {} and score.metadata["filled_in"] == []
        assert score.metadata["judge_calls"] == 1 and score.metadata["judge_truncated"] is False
        assert score.metadata["constraint"].startswith("constraint: GBNF grammar")
        assert isinstance(score.metadata["at_grammar_bound"], bool)


def test_the_longest_answer_costs_no_more_tokens_than_the_contract_assumes() -> None:
    """One token per character holds for the embedded judge's tokenizer even on adversarial free text."""
    llama_cpp = pytest.importorskip("llama_cpp")
    from radiology_tasks.core.llama_cpp_provider import resolve_model_path
    from radiology_tasks.scorers.crimson.contract import CONTRACT

    model = llama_cpp.Llama(model_path=str(resolve_model_path("smollm2-135m")), vocab_only=True, verbose=False)
    for filler in ("0", "x", " ~", "|^", "Z9"):
        text = "".join(filler[i % len(filler)] for i in range(CONTRACT.max_chars))
        tokens = model.tokenize(text.encode(), add_bos=False, special=False)
        assert len(tokens) + 1 <= CONTRACT.max_answer_tokens
