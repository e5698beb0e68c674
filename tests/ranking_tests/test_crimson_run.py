"""CRIMSON through the ranking task: its family's suite judge scores each candidate, with the patient context."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.ranking_tests.tasks import ranking_tests
from tests.crimson.answers import answer
from tests.openai_stub import openai_stub

REFERENCE = "Large right pneumothorax. Small left effusion."
CASES = [
    {
        "id": "missing",
        "category": "missing findings",
        "reference": REFERENCE,
        "candidates": ["Large right pneumothorax.", "Small left effusion."],
    },
    {
        "id": "context",
        "category": "patient context",
        "reference": REFERENCE,
        "indication": "Fall from a ladder.",
        "candidates": [{"text": "Right pneumothorax, large.", "age": "30"}, {"text": "Pneumothorax on the right."}],
    },
]
REFS = {"R1": "urgent", "R2": "not_actionable_not_urgent"}
# The candidate that keeps the pneumothorax misses only the non-actionable effusion (weight 0.25 of 1.25); the one
# that keeps the effusion misses the urgent pneumothorax (1 of 1.25): the first must score higher.
ANSWERS = {
    "Large right pneumothorax.": answer(refs=REFS, preds={"P1": "urgent"}, matched=[("R1", "P1")], missing=["R2"]),
    "Small left effusion.": answer(
        refs=REFS, preds={"P1": "not_actionable_not_urgent"}, matched=[("R2", "P1")], missing=["R1"]
    ),
}
SAME = answer(refs=REFS, preds={"P1": "urgent"}, matched=[("R1", "P1")], missing=["R2"])


@pytest.mark.slow
def test_crimson_orders_by_its_weights_and_sees_each_candidates_context(monkeypatch, tmp_path):
    prompts: dict[str, str] = {}

    def reply(body: dict[str, Any]) -> str:
        prompt = "\n".join(str(m.get("content", "")) for m in body["messages"])
        found = re.search(r"<candidate_report>\n(.*?)\n</candidate_report>", prompt, re.S)
        assert found is not None
        prompts[found.group(1)] = prompt
        return ANSWERS.get(found.group(1), SAME)

    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps(case) + "\n" for case in CASES))
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            ranking_tests(metric="crimson", data=str(data)),
            model="none",
            model_roles={"grader": "openai-api/stubsvc/stub-judge"},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert log.status == "success", log.error
    assert log.samples is not None
    outcomes = {str(s.id): s.scores["ranking_scorer"].metadata["outcome"] for s in log.samples}  # type: ignore[index]
    assert outcomes == {"missing": "right", "context": "tie"}  # the same answer for both context candidates
    scores = {
        r["text"]: r["score"]
        for s in log.samples
        for r in s.scores["ranking_scorer"].metadata["candidates"]  # type: ignore[index]
    }
    assert scores["Large right pneumothorax."] > scores["Small left effusion."]
    assert "- Age: 30" in prompts["Right pneumothorax, large."]
    assert "- Indication for the study: Fall from a ladder." in prompts["Right pneumothorax, large."]
    assert "- Age:" not in prompts["Pneumothorax on the right."]
    assert "- Indication for the study: Fall from a ladder." in prompts["Pneumothorax on the right."]
    assert log.eval.metadata is not None
    assert all(name.startswith("crimson/") or "/" not in name for name in log.eval.metadata["templates"])


def test_crimson_is_offered_with_its_own_templates():
    from radiology_tasks.core.judge_options import JudgeOptions
    from radiology_tasks.ranking_tests.metric_choice import choose_metric

    chosen = choose_metric("crimson", None, "auto", JudgeOptions(), [])
    assert (chosen.key, chosen.higher_is_better, chosen.judged, chosen.templates) == (
        "crimson",
        True,
        True,
        ("crimson",),
    )
