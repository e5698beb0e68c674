"""The ran_score task end to end with the real embedded judge (SmolLM2-135M, in-process llama.cpp).

A 135M model cannot read reports; what this shows is the new user's command working offline: the grammar makes
the judge answer within the contract, and every sample ends scored or unscored with a reason.
"""

from __future__ import annotations

import math

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.core.llama_cpp_provider import resolve_model_path
from radiology_tasks.ran_score.tasks import ran_score
from radiology_tasks.scorers.ran_score.contract import EVIDENCE_MAX_CHARS, batch_contract
from tests.ran_score.helpers import ASKED
from tests.report_values import report_values

pytestmark = [pytest.mark.embedded, pytest.mark.slow]
GRADER = "llama-cpp/smollm2-135m"


def test_the_demo_runs_on_the_embedded_judge(tmp_path) -> None:
    pytest.importorskip("llama_cpp")
    task = ran_score(limit=2, label_cache=str(tmp_path / "cache"))
    (log,) = inspect_eval(task, model="none", model_roles={"grader": GRADER}, display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    assert len(log.samples) == 2
    for sample in log.samples:
        score = sample.scores["finding_agreement"]
        metadata = score.metadata
        assert metadata["constraint"].startswith("constraint: GBNF grammar 'ran-labels-20'")
        assert metadata["judge_calls"] >= 2
        value = score.value["label_agreement"]
        # Scored, or unscored with a reason for every label that could not be read.
        assert not math.isnan(value) or score.reason
        for side in ("reference", "candidate"):
            labels = metadata[f"{side}_labels"]
            assert set(labels) == set(metadata["label_outcomes"])
            unknown = {column for column, v in labels.items() if v is None}
            assert unknown == set(metadata[f"{side}_unscored"])
            assert all(v in (0, 1) for v in labels.values() if v is not None)
    values = report_values(log)
    assert 0.0 <= values["ran_score"] <= 1.0 and values["extractor_reports"] == 2.0


def test_the_longest_evidence_costs_no_more_tokens_than_the_contract_assumes() -> None:
    """Four tokens per character holds for the embedded judge's tokenizer on CJK text and emoji."""
    llama_cpp = pytest.importorskip("llama_cpp")
    contract = batch_contract(ASKED)
    model = llama_cpp.Llama(model_path=str(resolve_model_path("smollm2-135m")), vocab_only=True, verbose=False)
    for filler in ("肺", "🫁", "é", "x"):
        evidence = filler * EVIDENCE_MAX_CHARS
        answer = "{" + ",".join(f'"{key}": {{"present": 1, "evidence": "{evidence}"}}' for key in ASKED) + "}"
        assert len(answer) <= contract.max_chars
        tokens = model.tokenize(answer.encode(), add_bos=False, special=False)
        assert len(tokens) + 1 <= contract.max_answer_tokens
