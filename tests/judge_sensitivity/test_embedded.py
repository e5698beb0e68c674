"""judge_sensitivity with the real embedded model as injector and judge (SmolLM2-135M, in-process llama.cpp).

A 135M model cannot make clinically meaningful variants; what this run shows is that its answers, decoded
under the per-reference grammar, always read as the contract's JSON with exactly the asked number of
changes, each quoting its sentence, so only checks about content can fail, and that the run logs every metric.
"""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity
from tests.report_values import report_values

pytestmark = [pytest.mark.embedded, pytest.mark.slow]
MODEL = "llama-cpp/smollm2-135m"
CONTENT_PROBLEMS = {None, "sentence_unchanged", "report_mismatch", "implausible"}
METRICS = {
    "discrimination",
    "robustness",
    "balance",
    "monotonicity",
    "monotonicity_kendall_tau",
    "judge_count_n1",
    "detection_f1_a",
    "excluded",
    "excluded_failed_check",
}


def test_grammar_bound_answers_of_the_embedded_injector_always_read(tmp_path) -> None:
    pytest.importorskip("llama_cpp")
    task = judge_sensitivity(limit=1, seed=3, categories="a", max_errors=1, paraphrases=0, injector_attempts=1)
    (log,) = inspect_eval(
        task, model="none", model_roles={"injector": MODEL, "grader": MODEL}, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    (sample,) = log.samples
    assert sample.metadata["variant"]["constraint"].startswith("constraint: GBNF grammar 'injection'")
    (attempt,) = sample.metadata["variant"]["attempts"]
    assert attempt["stop_reason"] == "stop" and attempt["answer"].startswith("{")
    assert attempt["problem"] in CONTENT_PROBLEMS, attempt["detail"]
    assert METRICS <= set(report_values(log))
