"""An injector answer that runs into its token budget is recorded as cut, whatever the provider's stop reason."""

from __future__ import annotations

from typing import Any

import pytest
from inspect_ai.model import ChatMessage, GenerateConfig, ModelOutput, ModelUsage, get_model

from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity import rewrite
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec

PAIR = ReportPair(id="R1", reference="Small left pleural effusion. No pneumothorax.", modality="XR", anatomy="chest")
BUDGET = 64


def _injector(monkeypatch: pytest.MonkeyPatch, short_by: int) -> None:
    """An injector whose JSON answer stops `short_by` tokens before the budget it is sent, reporting `unknown`."""

    def answer(messages: list[ChatMessage], tools: Any, choice: Any, config: GenerateConfig) -> ModelOutput:
        output = ModelOutput.from_content(
            model="mockllm/model", content='{"changes": [{"sentence', stop_reason="unknown"
        )
        tokens = (config.max_tokens or BUDGET) - short_by
        output.usage = ModelUsage(input_tokens=50, output_tokens=tokens, total_tokens=50 + tokens)
        return output

    model = get_model("mockllm/model", custom_outputs=answer, memoize=False)
    monkeypatch.setattr(rewrite, "injector_model", lambda: model)


@pytest.mark.parametrize(("short_by", "cut"), [(0, True), (1, False)])
async def test_an_injector_answer_at_its_budget_is_truncated(monkeypatch: pytest.MonkeyPatch, short_by, cut) -> None:
    _injector(monkeypatch, short_by)
    settings = rewrite.RewriteSettings(attempts=1, max_tokens=BUDGET, constrain="off")
    outcome = await rewrite.make_variant(PAIR, VariantSpec("error", "a", 1), "R1", settings)
    (attempt,) = outcome.attempts
    assert (attempt.stop_reason, attempt.max_tokens, attempt.output_tokens) == ("unknown", BUDGET, BUDGET - short_by)
    assert (attempt.problem == "truncated") is cut
    assert outcome.text is None
