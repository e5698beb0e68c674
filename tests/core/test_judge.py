"""Asking a judge: re-asks, a larger budget for a cut answer, and provider refusals as reasons.

A scripted judge stands in for the model, so each call's config and cache setting can be checked exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, ModelOutput, ModelUsage
from pydantic import ValidationError

from radiology_tasks.core.judge import (
    RETRY_TEMPERATURE,
    TRUNCATED,
    Attempt,
    JudgeResult,
    ask_judge,
    attempt_answers,
    judge_explanation,
    judge_generate,
    rejected_request,
    stopped_at_budget,
    stored_truncated,
    stored_unreadable_reason,
)


@dataclass
class Call:
    config: GenerateConfig
    cache: Any


@dataclass
class ScriptedJudge:
    """Answers each call with the next scripted output (or raises the next scripted exception)."""

    script: list[ModelOutput | Exception]
    calls: list[Call] = field(default_factory=list)

    async def generate(self, prompt: str, config: GenerateConfig, cache: Any = "not given") -> ModelOutput:
        self.calls.append(Call(config, cache))
        item = self.script[len(self.calls) - 1]
        if isinstance(item, Exception):
            raise item
        return item


def out(text: str, stop: str = "stop", tokens: int = 5) -> ModelOutput:
    output = ModelOutput.from_content(model="scripted", content=text, stop_reason=stop)  # type: ignore[arg-type]
    output.usage = ModelUsage(input_tokens=100, output_tokens=tokens, total_tokens=100 + tokens)
    return output


class HTTPError(Exception):
    def __init__(self, status_code: int, message: str) -> None:
        super().__init__(f"wrapper text holding the whole prompt: {message}")
        self.status_code = status_code
        self.message = message


@dataclass(frozen=True)
class Read:
    """A reading whose problems are the words 'bad' and 'worse' found in the answer."""

    answer: str

    @property
    def problems(self) -> dict[str, str]:
        return {word: f"{word} part" for word in ("bad", "worse") if word in self.answer}


CONFIG = GenerateConfig(max_tokens=100, temperature=0.0)


async def test_a_readable_first_answer_is_one_call_with_the_cache_left_to_the_user() -> None:
    judge = ScriptedJudge([out("fine")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=2)  # type: ignore[arg-type]
    assert result.reading == Read("fine") and result.reading_attempt == 0 and result.failure is None
    assert [c.cache for c in judge.calls] == ["not given"]
    assert result.metadata() == {
        "judge_answer": "fine",
        "judge_answer_attempt": 0,
        "judge_attempts": [
            {
                "answer": None,
                "stop_reason": "stop",
                "max_tokens": 100,
                "temperature": 0.0,
                "seed": None,
                "input_tokens": 100,
                "output_tokens": 5,
                "problem": None,
                "truncated_by_tokens": False,
            }
        ],
        "judge_retried": False,
        "judge_truncated": False,
        "judge_calls": 1,
        "judge_input_tokens": 100,
        "judge_output_tokens": 5,
    }


async def test_retries_bypass_the_cache_with_a_new_seed_and_a_sampling_temperature() -> None:
    judge = ScriptedJudge([out("bad worse"), out("bad"), out("fine")])
    result = await ask_judge(judge, "p", CONFIG.merge(GenerateConfig(seed=7)), Read, retries=2)  # type: ignore[arg-type]
    assert result.reading == Read("fine") and result.reading_attempt == 2
    assert [(c.config.seed, c.config.temperature, c.cache) for c in judge.calls] == [
        (7, 0.0, "not given"),
        (8, RETRY_TEMPERATURE, False),
        (9, RETRY_TEMPERATURE, False),
    ]
    assert [a.problem for a in result.attempts] == ["bad part; worse part", "bad part", None]
    assert result.retried and result.input_tokens == 300 and result.output_tokens == 15


async def test_a_higher_task_temperature_is_kept_for_retries() -> None:
    judge = ScriptedJudge([out("bad"), out("fine")])
    await ask_judge(judge, "p", GenerateConfig(max_tokens=10, temperature=0.9), Read, retries=1)  # type: ignore[arg-type]
    assert [c.config.temperature for c in judge.calls] == [0.9, 0.9]
    assert judge.calls[1].config.seed == 1


async def test_the_most_complete_answer_is_kept_earliest_first() -> None:
    judge = ScriptedJudge([out("bad"), out("bad worse"), out("worse")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=2)  # type: ignore[arg-type]
    assert result.reading == Read("bad") and result.reading_attempt == 0 and result.kept == result.attempts[0]
    assert len(judge.calls) == 3


async def test_no_retries_means_one_call() -> None:
    judge = ScriptedJudge([out("bad")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=0)  # type: ignore[arg-type]
    assert len(judge.calls) == 1 and result.reading == Read("bad") and not result.retried
    with pytest.raises(ValueError, match="retries must be >= 0"):
        await ask_judge(judge, "p", CONFIG, Read, retries=-1)  # type: ignore[arg-type]


async def test_a_cut_answer_gets_twice_the_budget_once_then_ordinary_retries() -> None:
    judge = ScriptedJudge([out("bad", "max_tokens"), out("bad", "max_tokens"), out("bad", "max_tokens")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=1)  # type: ignore[arg-type]
    assert [c.config.max_tokens for c in judge.calls] == [100, 200, 200]
    # The larger budget is the same question asked again (same seed and temperature); the retry is a new draw.
    assert [(c.config.seed, c.config.temperature) for c in judge.calls] == [(None, 0.0), (None, 0.0), (1, 0.7)]
    assert [a.problem for a in result.attempts] == [TRUNCATED] * 3 and result.truncated


async def test_a_cut_answer_that_still_reads_is_accepted() -> None:
    judge = ScriptedJudge([out("fine but cut", "max_tokens")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=1)  # type: ignore[arg-type]
    assert len(judge.calls) == 1 and result.truncated and result.attempts[0].problem is None


@pytest.mark.parametrize(
    ("stop", "tokens", "budget", "cut"),
    [
        ("max_tokens", 7, 100, True),  # the provider says so, whatever the count
        ("unknown", 100, 100, True),  # Inspect's hf/ provider at its budget
        ("stop", 100, 100, True),  # every provider: the count decides
        ("unknown", 120, 100, True),
        ("unknown", 99, 100, False),
        ("unknown", None, 100, False),
        ("unknown", 100, None, False),
    ],
)
def test_an_answer_is_cut_when_its_stop_reason_says_so_or_its_tokens_reach_the_budget(
    stop: str, tokens: int | None, budget: int | None, cut: bool
) -> None:
    assert stopped_at_budget(stop, tokens, budget) is cut


async def test_an_unknown_stop_at_the_budget_counts_as_cut_and_keeps_the_provider_s_stop_reason() -> None:
    judge = ScriptedJudge([out("bad", "unknown", tokens=100), out("fine", "unknown", tokens=150)])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=0)  # type: ignore[arg-type]
    # Asked again with twice the budget (a retry would not be allowed: retries=0), as for a `max_tokens` stop.
    assert [c.config.max_tokens for c in judge.calls] == [100, 200]
    first, second = result.attempts
    assert (first.stop_reason, first.truncated_by_tokens, first.problem) == ("unknown", True, TRUNCATED)
    assert (second.stop_reason, second.truncated_by_tokens, second.problem) == ("unknown", False, None)
    assert result.truncated and result.reading == Read("fine")
    assert result.metadata()["judge_truncated"] is True
    assert result.metadata()["judge_attempts"][0]["truncated_by_tokens"] is True


async def test_an_answer_one_token_short_of_its_budget_is_not_cut() -> None:
    judge = ScriptedJudge([out("bad", "unknown", tokens=99)])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=0)  # type: ignore[arg-type]
    assert len(judge.calls) == 1 and not result.truncated
    assert result.attempts[0].problem == "bad part" and result.unreadable_reason == "invalid_response_format"


async def test_the_reason_of_an_unreadable_answer_cut_by_its_token_count_is_truncated() -> None:
    judge = ScriptedJudge([out("bad", "unknown", tokens=100), out("bad", "unknown", tokens=200)])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=0)  # type: ignore[arg-type]
    assert result.unreadable_reason == TRUNCATED


async def test_a_provider_failure_at_the_budget_stays_a_failure_and_is_not_counted_cut() -> None:
    judge = ScriptedJudge([out("", "model_length", tokens=100)])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=0)  # type: ignore[arg-type]
    assert result.failure == "judge_context_exceeded" and not result.truncated
    assert result.attempts[0].truncated_by_tokens is False


def test_a_stored_attempt_is_read_as_the_scorer_counted_it() -> None:
    assert stored_truncated({"stop_reason": "max_tokens"})
    assert stored_truncated({"stop_reason": "unknown", "truncated_by_tokens": True})
    assert not stored_truncated({"stop_reason": "unknown", "truncated_by_tokens": False})
    # A log written before the field existed: its stop reason alone decided, even at the budget.
    assert not stored_truncated({"stop_reason": "unknown", "output_tokens": 100, "max_tokens": 100})


def test_the_stored_reason_of_an_unreadable_answer_is_that_of_the_kept_attempt() -> None:
    cut = {"stop_reason": "unknown", "truncated_by_tokens": True}
    whole = {"stop_reason": "stop", "truncated_by_tokens": False}
    assert stored_unreadable_reason({"judge_attempts": [whole, cut], "judge_answer_attempt": 1}) == TRUNCATED
    assert stored_unreadable_reason({"judge_attempts": [cut, whole], "judge_answer_attempt": 1}) == (
        "invalid_response_format"
    )
    for broken in ({"judge_attempts": [cut]}, {"judge_attempts": [cut], "judge_answer_attempt": True}, {}):
        assert stored_unreadable_reason(broken) == "invalid_response_format"


async def test_without_a_budget_a_cut_answer_is_only_retried() -> None:
    judge = ScriptedJudge([out("bad", "max_tokens"), out("fine")])
    result = await ask_judge(judge, "p", GenerateConfig(temperature=0.0), Read, retries=1)  # type: ignore[arg-type]
    assert [c.config.max_tokens for c in judge.calls] == [None, None] and result.reading == Read("fine")


@pytest.mark.parametrize(
    ("item", "failure"),
    [
        (out("This model's maximum context length is 4096 tokens", "model_length", 0), "judge_context_exceeded"),
        (out("I cannot help with that", "content_filter", 0), "judge_refused"),
        (HTTPError(400, "prompt is too long: 5000 tokens > 4096"), "judge_context_exceeded"),
        (HTTPError(413, "request entity too large"), "judge_request_rejected"),
        (HTTPError(422, "temperature out of range"), "judge_request_rejected"),
    ],
)
async def test_an_answer_that_cannot_be_had_is_a_reason_not_a_retry(item: Any, failure: str) -> None:
    judge = ScriptedJudge([item])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=3)  # type: ignore[arg-type]
    assert len(judge.calls) == 1 and result.reading is None and result.failure == failure
    assert result.attempts[0].problem == failure
    message = item.message if isinstance(item, HTTPError) else item.completion
    assert result.failure_detail == message


async def test_a_failure_after_a_reading_keeps_the_reading() -> None:
    judge = ScriptedJudge([out("bad"), out("", "content_filter", 0)])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=1)  # type: ignore[arg-type]
    assert result.reading == Read("bad") and result.failure is None
    assert [a.problem for a in result.attempts] == ["bad part", "judge_refused"]


async def test_the_kept_answer_is_stored_once_and_every_attempt_s_answer_reads_back() -> None:
    judge = ScriptedJudge([out("bad worse"), out("bad"), out("worse bad")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=2)  # type: ignore[arg-type]
    metadata = result.metadata()
    assert metadata["judge_answer"] == "bad" and metadata["judge_answer_attempt"] == 1
    assert [a["answer"] for a in metadata["judge_attempts"]] == ["bad worse", None, "worse bad"]
    assert attempt_answers(metadata) == ["bad worse", "bad", "worse bad"]
    # The explanation tells which attempt the scores were read from and shows that answer, not another attempt's.
    assert judge_explanation(result) == (
        "The judge answered on attempt 2 of 3; the scores were read from this answer (metadata judge_answer; every "
        "attempt in judge_attempts):\n\n```text\nbad\n```"
    )
    assert judge_explanation(result, judge="openai/gpt-4.1").startswith("The judge (openai/gpt-4.1) answered on")


async def test_the_explanation_shows_an_answer_with_backticks_verbatim() -> None:
    answer = "Score ```1.0``` and `x`\n"
    result = await ask_judge(ScriptedJudge([out(answer)]), "p", CONFIG, Read, retries=0)  # type: ignore[arg-type]
    assert result.reading is not None
    assert judge_explanation(result).endswith("\n\n````text\nScore ```1.0``` and `x`\n````")


async def test_without_a_reading_no_answer_is_kept_and_the_provider_s_message_stays_in_its_attempt() -> None:
    judge = ScriptedJudge([HTTPError(413, "request entity too large")])
    result = await ask_judge(judge, "p", CONFIG, Read, retries=1)  # type: ignore[arg-type]
    metadata = result.metadata()
    assert metadata["judge_answer"] is None and metadata["judge_answer_attempt"] is None
    assert attempt_answers(metadata) == ["request entity too large"]
    explanation = judge_explanation(result)
    assert "judge_request_rejected" in explanation and "request entity too large" not in explanation


async def test_a_rejected_request_is_recorded_with_the_config_it_was_sent_with() -> None:
    judge = ScriptedJudge([HTTPError(422, "bad grammar")])
    config = GenerateConfig(max_tokens=64, temperature=0.2, seed=7)
    attempt, failure = await judge_generate(judge, "p", config)  # type: ignore[arg-type]
    assert failure == "judge_request_rejected"
    assert (attempt.answer, attempt.stop_reason, attempt.max_tokens, attempt.temperature, attempt.seed) == (
        "bad grammar",
        "error",
        64,
        0.2,
        7,
    )
    # A first call (no retry given) leaves the cache to the user and the config as it was.
    assert judge.calls[0].cache == "not given" and judge.calls[0].config.seed == 7


@pytest.mark.parametrize("status", [401, 404, 429, 500])
async def test_other_provider_errors_propagate(status: int) -> None:
    judge = ScriptedJudge([HTTPError(status, "context length")])
    with pytest.raises(HTTPError):
        await judge_generate(judge, "p", CONFIG)  # type: ignore[arg-type]
    judge = ScriptedJudge([RuntimeError("bug")])
    with pytest.raises(RuntimeError, match="bug"):
        await judge_generate(judge, "p", CONFIG)  # type: ignore[arg-type]


def test_a_wrapped_provider_error_is_classified_by_the_provider_s_own_status_and_message() -> None:
    provider = HTTPError(400, "invalid image")
    wrapper = RuntimeError("Error: ... the whole request with a report saying 'maximum context' ...")
    wrapper.__cause__ = provider
    assert rejected_request(wrapper) == ("request_rejected", "invalid image")
    wrapper.provider_message = "clean provider text"  # type: ignore[attr-defined]
    assert rejected_request(wrapper) == ("request_rejected", "clean provider text")
    assert rejected_request(RuntimeError("no status")) is None
    assert rejected_request(HTTPError(400, "Please reduce the length of the messages (context window)")) == (
        "context_exceeded",
        "Please reduce the length of the messages (context window)",
    )


class StatusOnly(Exception):
    """A provider exception with a status code but no ``message`` attribute."""

    def __init__(self, status_code: int, text: str) -> None:
        super().__init__(text)
        self.status_code = status_code


def test_a_cause_without_a_status_leaves_the_wrapper_s_own_status_and_message() -> None:
    wrapper = HTTPError(413, "request too large")
    wrapper.__cause__ = ValueError("a cause that is no HTTP error")
    assert rejected_request(wrapper) == ("request_rejected", "request too large")


def test_a_provider_error_without_a_message_attribute_is_read_from_its_text() -> None:
    assert rejected_request(StatusOnly(422, "unprocessable entity")) == ("request_rejected", "unprocessable entity")
    wrapper = RuntimeError("wrapper")
    wrapper.__cause__ = StatusOnly(400, "maximum context length is 4096 tokens")
    assert rejected_request(wrapper) == ("context_exceeded", "maximum context length is 4096 tokens")


def test_an_unbound_grader_names_the_option_that_binds_one(monkeypatch: pytest.MonkeyPatch) -> None:
    from radiology_tasks.core import judge as judge_module
    from radiology_tasks.core.inspect_compat import PrerequisiteError

    monkeypatch.setattr(judge_module, "get_model", lambda role: "none/none")
    with pytest.raises(PrerequisiteError) as caught:
        judge_module.grader_model()
    assert str(caught.value) == judge_module.NO_JUDGE_MESSAGE and "--model-role grader=" in str(caught.value)


def test_attempt_and_result_defaults() -> None:
    attempt = Attempt(answer="a", stop_reason="stop", max_tokens=10, temperature=0.0, seed=None)
    assert attempt.problem is None and attempt.input_tokens is None and not attempt.truncated
    with pytest.raises(ValidationError, match="max_tokens"):
        Attempt(answer="a", stop_reason="stop", temperature=0.0, seed=None)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="budget"):
        Attempt(answer="a", stop_reason="stop", max_tokens=10, temperature=0.0, seed=None, budget=3)  # type: ignore[call-arg]
    empty = JudgeResult()
    assert not empty.retried and not empty.truncated and empty.kept is None and empty.metadata()["judge_calls"] == 0
