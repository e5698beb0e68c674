"""Every scorer gives an unreadable answer cut at its budget the reason ``truncated``, by the one rule in core.

The kept answer below stopped with the provider's ``unknown`` after using all its tokens (Inspect's `hf/`
provider does that at ``max_tokens``); one token fewer and it is only an unreadable answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage

from radiology_tasks.core.judge import JudgeResult, judge_generate
from radiology_tasks.ran_score.extraction import _problems as ran_problems
from radiology_tasks.report_judge.scorer import missing_scores


@dataclass(frozen=True)
class Unreadable:
    problems: dict[str, str]


@dataclass(frozen=True)
class OneAnswer:
    """A judge that stops with `unknown` after `output_tokens` tokens."""

    output_tokens: int

    async def generate(self, prompt: str, config: GenerateConfig, **_: Any) -> ModelOutput:
        output = ModelOutput.from_content(model="one", content="[Explanation]: the", stop_reason="unknown")
        output.usage = ModelUsage(input_tokens=80, output_tokens=self.output_tokens, total_tokens=80)
        return output


async def _result(output_tokens: int) -> JudgeResult[Unreadable]:
    attempt, _ = await judge_generate(OneAnswer(output_tokens), "p", GenerateConfig(max_tokens=100))  # type: ignore[arg-type]
    kept = attempt.model_copy(update={"problem": "no score section"})
    return JudgeResult(reading=Unreadable({"vert": "no score section"}), reading_attempt=0, attempts=[kept])


@pytest.mark.parametrize(("output_tokens", "code"), [(100, "truncated"), (99, "invalid_response_format")])
@pytest.mark.parametrize("missing", [missing_scores, ran_problems])
async def test_the_reason_of_an_unreadable_answer_follows_its_token_count(
    missing, output_tokens: int, code: str
) -> None:
    assert missing(await _result(output_tokens), ["vert"]) == {"vert": (code, "no score section")}
