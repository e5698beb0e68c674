"""Finding the judge model and asking it, so that no single answer or provider refusal can end a run.

Every family's scorer asks its judge through `ask_judge` (one answer, re-asked while unreadable) or
`judge_generate` (one call). Both turn what can go wrong with one sample into data instead of exceptions:

- a prompt the judge's context cannot hold (Inspect's ``model_length`` stop reason, or an HTTP 400/413/422
  whose message says so) is `judge_context_exceeded`;
- a content-filter refusal is `judge_refused`; any other HTTP 400/413/422 is `judge_request_rejected`;
- an answer cut at the token budget is ``truncated`` and is asked once more with a larger budget; whatever the
  provider's stop reason says, an answer whose output tokens reached the budget counts as cut
  (`stopped_at_budget`: Inspect's ``hf/`` provider, for one, says ``unknown`` there);
- an answer the caller cannot read is asked again up to ``retries`` times, with Inspect's cache bypassed, a
  new seed and, when the task samples greedily, `RETRY_TEMPERATURE` (a greedy judge would only repeat itself).

Retryable provider errors (rate limits, timeouts, 5xx) stay with Inspect's own retry; authentication and
model-name errors (401, 403, 404) are configuration mistakes that would hit every sample, so they still fail
the task at once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from pydantic import BaseModel, ConfigDict

from radiology_tasks.core.inspect_compat import PrerequisiteError

GRADER_ROLE = "grader"

NO_JUDGE_MESSAGE = (
    "No judge model is bound: the task runs with --model none and no 'grader' role. Bind a judge with "
    "--model-role grader=<model>, for example grader=llama-cpp/smollm2-135m (embedded, "
    "no API key), grader=vllm/<hf-model> or grader=openai-api/<service>/<model>."
)

RETRY_TEMPERATURE = 0.7
"""Sampling temperature of a re-ask when the task's own temperature is lower (greedy decoding would return
the same unreadable answer again)."""

TRUNCATION_BUDGET_FACTOR = 2
"""A truncated answer is asked once more with this many times the token budget."""

JudgeFailure = Literal["judge_context_exceeded", "judge_refused", "judge_request_rejected"]
"""Why a judge call produced no answer to read (the sample's unscored reason)."""

TRUNCATED = "truncated"
"""The problem recorded for an attempt that stopped at its token budget."""

INVALID_RESPONSE_FORMAT = "invalid_response_format"
"""The reason of a part of an answer that could not be read, when the answer was not cut at its budget."""

# HTTP statuses that reject this one request; retrying it unchanged cannot help.
_REQUEST_REJECTED = {400, 413, 422}
_CONTEXT_MESSAGE = re.compile(
    r"context[ _-]?(length|window|size)|maximum context|too many tokens|prompt is too long|input length"
    r"|exceeds? the (available )?context|max_model_len",
    re.IGNORECASE,
)


def role_model(role: str, unbound_message: str) -> Model:
    """The model bound to a model role, falling back to `--model` as Inspect does.

    Raises:
        PrerequisiteError: with `unbound_message`, when neither the role nor a real `--model` is bound.
    """
    model = get_model(role=role)
    if str(model) == "none/none":
        raise PrerequisiteError(unbound_message)
    return model


def require_role(role: str, unbound_message: str) -> None:
    """Stop a run before its first sample when `role` is unbound, with `unbound_message` and no traceback.

    Called when a task is built. Inspect binds the run's model and roles before it builds the tasks of a run, so
    an unbound role is known then; a task built in code outside a run (before `eval()` is given it) has no model
    yet, and the check is left to `role_model` in the first sample.

    Raises:
        PrerequisiteError: with `unbound_message`, inside a run where neither the role nor a real `--model` is
            bound.
    """
    try:
        model = get_model(role=role)
    except ValueError:
        return
    if str(model) == "none/none":
        raise PrerequisiteError(unbound_message)


def require_judge() -> None:
    """`require_role` for the judge (`grader`)."""
    require_role(GRADER_ROLE, NO_JUDGE_MESSAGE)


def grader_model() -> Model:
    """The judge for this evaluation: Inspect's `grader` role, falling back to `--model` as Inspect does.

    Raises:
        PrerequisiteError: neither a grader role nor a real `--model` is bound.
    """
    return role_model(GRADER_ROLE, NO_JUDGE_MESSAGE)


class StoredAttempt(BaseModel):
    """One judge call as a log keeps it (`Attempt.as_dict`), read back leniently: a field an older log lacks reads
    as its default, a key it does not know is ignored.

    Attributes:
        answer: The judge's raw answer (the provider's message when the call failed); None in a log for the
            attempt whose answer the record keeps once, under ``judge_answer``.
        stop_reason: Inspect's stop reason, or ``error`` when the provider rejected the request.
        max_tokens: The token budget sent.
        temperature: The sampling temperature sent (None: the judge's default).
        seed: The seed sent (None: none).
        input_tokens: Prompt tokens the provider reported.
        output_tokens: Answer tokens the provider reported.
        problem: Why the answer was not accepted as complete (``truncated``, a caller's reading reason,
            or a `JudgeFailure`); None for an accepted answer.
        truncated_by_tokens: The answer counts as cut at its budget because its output tokens reached
            `max_tokens`, though `stop_reason` (kept as the provider gave it) does not say ``max_tokens``.
            Logs written before this field existed lack it; there `stop_reason` alone decided.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    answer: str | None = None
    stop_reason: str | None = None
    max_tokens: int | None = None
    temperature: float | None = None
    seed: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    problem: str | None = None
    truncated_by_tokens: bool = False

    @property
    def truncated(self) -> bool:
        """Whether the answer counts as cut at its token budget (`stopped_at_budget`, as recorded)."""
        return self.stop_reason == "max_tokens" or self.truncated_by_tokens


class Attempt(StoredAttempt):
    """One judge call and what became of its answer, as it is made: the answer, the stop reason and the settings
    sent are given (`StoredAttempt` has the fields), and no other field is taken."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    answer: str
    stop_reason: str
    max_tokens: int | None
    temperature: float | None
    seed: int | None

    def as_dict(self) -> dict[str, Any]:
        """JSON-able form for `Score.metadata`."""
        return self.model_dump()


def reached_budget(output_tokens: int | None, max_tokens: int | None) -> bool:
    """Whether an answer's output tokens reached the budget its request set (False when either is unknown)."""
    return max_tokens is not None and output_tokens is not None and output_tokens >= max_tokens


def stopped_at_budget(stop_reason: str, output_tokens: int | None, max_tokens: int | None) -> bool:
    """The one rule for an answer cut at its token budget, for every provider and every model call here.

    The provider's stop reason says so (``max_tokens``), or the answer's output tokens reached the request's
    ``max_tokens`` whatever the stop reason says: Inspect's ``hf/`` provider reports ``unknown`` for an answer
    that ran into its budget.
    """
    return stop_reason == "max_tokens" or reached_budget(output_tokens, max_tokens)


def stored_truncated(attempt: Mapping[str, Any]) -> bool:
    """Whether a stored attempt (`Attempt.as_dict` as a log keeps it) was counted as cut at its budget.

    The stored record is read, not judged again: its ``stop_reason``, or ``truncated_by_tokens`` where the log
    records it; an attempt logged before that field existed was counted by its stop reason alone.
    """
    return attempt.get("stop_reason") == "max_tokens" or attempt.get("truncated_by_tokens") is True


def unreadable_reason(truncated: bool) -> str:
    """The reason code of a part of an answer that could not be read: ``truncated`` for an answer cut at its
    budget, else ``invalid_response_format``."""
    return TRUNCATED if truncated else INVALID_RESPONSE_FORMAT


def stored_unreadable_reason(metadata: Mapping[str, Any]) -> str:
    """`unreadable_reason` of the kept answer in `JudgeResult.metadata` as a log stores it (the scorer's reason for
    each score that answer does not give)."""
    attempts = metadata.get("judge_attempts") or []
    kept = metadata.get("judge_answer_attempt")
    if isinstance(kept, bool) or not isinstance(kept, int) or not 0 <= kept < len(attempts):
        return unreadable_reason(False)
    attempt = attempts[kept]
    return unreadable_reason(isinstance(attempt, Mapping) and stored_truncated(attempt))


class Reading(Protocol):
    """What a caller made of one answer; ``problems`` maps each unreadable part to its reason."""

    @property
    def problems(self) -> Mapping[str, str]: ...


R = TypeVar("R", bound=Reading)


@dataclass
class JudgeResult(Generic[R]):
    """The outcome of asking a judge: the reading kept, every attempt, or why there is no answer.

    Attributes:
        reading: The most complete reading over the attempts (the earliest among equals); None when no
            attempt produced an answer.
        attempts: Every call made, in order.
        reading_attempt: Index in `attempts` of the answer `reading` was made from.
        failure: Set when no call produced an answer to read (context, refusal, rejected request).
        failure_detail: The provider's message for `failure`.
    """

    reading: R | None = None
    reading_attempt: int | None = None
    attempts: list[Attempt] = field(default_factory=list)
    failure: JudgeFailure | None = None
    failure_detail: str | None = None

    @property
    def retried(self) -> bool:
        """Whether the judge was asked more than once."""
        return len(self.attempts) > 1

    @property
    def truncated(self) -> bool:
        """Whether any answer stopped at its token budget (`Attempt.truncated`)."""
        return any(a.truncated for a in self.attempts)

    @property
    def unreadable_reason(self) -> str:
        """The reason code of each score the kept answer does not give (`unreadable_reason` of that answer)."""
        kept = self.kept
        return unreadable_reason(kept is not None and kept.truncated)

    @property
    def kept(self) -> Attempt | None:
        """The attempt whose answer `reading` was made from."""
        return None if self.reading_attempt is None else self.attempts[self.reading_attempt]

    @property
    def input_tokens(self) -> int:
        """Prompt tokens over all attempts."""
        return sum(a.input_tokens or 0 for a in self.attempts)

    @property
    def output_tokens(self) -> int:
        """Answer tokens over all attempts."""
        return sum(a.output_tokens or 0 for a in self.attempts)

    def metadata(self) -> dict[str, Any]:
        """The judge's side of `Score.metadata`: the kept answer, attempts, retry and truncation flags, tokens.

        The answer a reading was made from is stored once, under ``judge_answer``; its attempt in
        ``judge_attempts`` (at index ``judge_answer_attempt``) has ``answer`` None. `attempt_answers` gives every
        attempt's answer back.
        """
        attempts = [a.as_dict() for a in self.attempts]
        kept = self.kept
        if self.reading_attempt is not None:
            attempts[self.reading_attempt]["answer"] = None
        return {
            "judge_answer": None if kept is None else kept.answer,
            "judge_answer_attempt": self.reading_attempt,
            "judge_attempts": attempts,
            "judge_retried": self.retried,
            "judge_truncated": self.truncated,
            "judge_calls": len(self.attempts),
            "judge_input_tokens": self.input_tokens,
            "judge_output_tokens": self.output_tokens,
        }


def attempt_answers(metadata: Mapping[str, Any]) -> list[str | None]:
    """Every attempt's answer from `JudgeResult.metadata` as a log stores it, the kept one read from
    ``judge_answer``; None for an attempt without one."""
    attempts = metadata.get("judge_attempts") or []
    kept = metadata.get("judge_answer_attempt")
    answers: list[str | None] = []
    for index, attempt in enumerate(attempts):
        answer = metadata.get("judge_answer") if index == kept else attempt.get("answer")
        answers.append(answer if isinstance(answer, str) else None)
    return answers


def judge_explanation(result: JudgeResult[Any], judge: str | None = None) -> str:
    """A `Score.explanation` that tells how the verdict came about: which attempt of the judge (named when given)
    answered, and that answer as the judge wrote it, in a Markdown code block (Inspect's viewer shows the
    explanation in its Scoring tab). The scores were read from that answer; for re-scoring it is also stored as
    ``judge_answer`` in the score's metadata, every attempt in ``judge_attempts``."""
    calls = len(result.attempts)
    kept = result.kept
    if kept is not None and result.reading_attempt is not None:
        who = f"The judge ({judge})" if judge else "The judge"
        return (
            f"{who} answered on attempt {result.reading_attempt + 1} of {calls}; the scores were read from this "
            f"answer (metadata judge_answer; every attempt in judge_attempts):\n\n{_code_block(kept.answer)}"
        )
    return f"No answer to read ({result.failure}); the provider's message is in metadata judge_attempts."


def _code_block(text: str) -> str:
    """`text` verbatim in a fenced Markdown block whose fence is longer than any run of backticks inside it."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{text.rstrip()}\n{fence}"


Rejection = Literal["context_exceeded", "request_rejected"]
"""How a provider rejected one request: the prompt does not fit the context, or something else about it."""


def rejected_request(error: BaseException) -> tuple[Rejection, str] | None:
    """Classify a provider exception that rejects this one request (HTTP 400, 413, 422), with its message.

    Inspect re-raises a provider's exception wrapped in its own, whose text holds the whole request, prompt
    included: the status and message are taken from the provider's exception (or the wrapper's clean
    ``provider_message``), so report wording in the prompt can never pass for a context error.

    Returns:
        ``context_exceeded`` when the message says the prompt does not fit, else ``request_rejected``; None
        for every other exception (those are Inspect's to retry, or real failures).
    """
    cause = error.__cause__
    provider = cause if cause is not None and getattr(cause, "status_code", None) is not None else error
    status = getattr(provider, "status_code", None)
    if not isinstance(status, int) or status not in _REQUEST_REJECTED:
        return None
    message = str(getattr(error, "provider_message", None) or getattr(provider, "message", None) or provider)
    return ("context_exceeded" if _CONTEXT_MESSAGE.search(message) else "request_rejected"), message


def _retry_config(config: GenerateConfig, attempt: int) -> GenerateConfig:
    temperature = config.temperature if (config.temperature or 0.0) >= RETRY_TEMPERATURE else RETRY_TEMPERATURE
    return config.merge(GenerateConfig(seed=(config.seed or 0) + attempt, temperature=temperature))


async def judge_generate(
    judge: Model,
    prompt: str | list[ChatMessage],
    config: GenerateConfig,
    *,
    retry: int = 0,
) -> tuple[Attempt, JudgeFailure | None]:
    """Make one judge call; a failed request or an answer that cannot be had comes back as a reason.

    Args:
        judge: The judge model.
        prompt: The prompt.
        config: Generate config of the first attempt (constraint, max_tokens, temperature, seed).
        retry: 0 for a first call; n > 0 re-asks with Inspect's cache bypassed, seed ``seed + n`` and at
            least `RETRY_TEMPERATURE`.

    Returns:
        The attempt, and a `JudgeFailure` when there is no answer to read.
    """
    if retry:
        config = _retry_config(config, retry)
    try:
        if retry:
            output: ModelOutput = await judge.generate(prompt, config=config, cache=False)
        else:
            output = await judge.generate(prompt, config=config)
    except Exception as error:
        rejection = rejected_request(error)
        if rejection is None:
            raise
        kind, message = rejection
        reason: JudgeFailure = "judge_context_exceeded" if kind == "context_exceeded" else "judge_request_rejected"
        attempt = Attempt(
            answer=message,
            stop_reason="error",
            max_tokens=config.max_tokens,
            temperature=config.temperature,
            seed=config.seed,
            problem=reason,
        )
        return attempt, reason
    return _answered(output, config)


def _answered(output: ModelOutput, config: GenerateConfig) -> tuple[Attempt, JudgeFailure | None]:
    """The attempt of a call the provider answered, and the `JudgeFailure` its stop reason says (None: an answer)."""
    usage = output.usage
    output_tokens = usage.output_tokens if usage else None
    failure: JudgeFailure | None = None
    if output.stop_reason == "model_length":
        failure = "judge_context_exceeded"
    elif output.stop_reason == "content_filter":
        failure = "judge_refused"
    attempt = Attempt(
        answer=output.completion,
        stop_reason=output.stop_reason,
        max_tokens=config.max_tokens,
        temperature=config.temperature,
        seed=config.seed,
        input_tokens=usage.input_tokens if usage else None,
        output_tokens=output_tokens,
        problem=failure,
        truncated_by_tokens=(
            failure is None
            and output.stop_reason != "max_tokens"
            and stopped_at_budget(output.stop_reason, output_tokens, config.max_tokens)
        ),
    )
    return attempt, failure


def _kept(attempt: Attempt, problem: str | None) -> Attempt:
    return attempt.model_copy(update={"problem": problem})


async def ask_judge(
    judge: Model,
    prompt: str | list[ChatMessage],
    config: GenerateConfig,
    read: Callable[[str], R],
    *,
    retries: int,
) -> JudgeResult[R]:
    """Ask until the answer reads completely, `retries` re-asks at most (plus one for a truncated answer).

    Args:
        judge: The judge model.
        prompt: The prompt, the same for every attempt.
        config: Generate config of the first attempt; its ``max_tokens`` is the token budget.
        read: Reads one answer; never raises for a malformed answer (it reports `Reading.problems`).
        retries: Re-asks allowed for an answer with problems (``-T judge_retries``).

    Returns:
        The most complete reading with every attempt, or the failure that left no answer.
    """
    if retries < 0:
        raise ValueError(f"retries must be >= 0, got {retries}")
    result: JudgeResult[R] = JudgeResult()
    truncation_reask_used = False
    retry = 0
    while True:
        attempt, failure = await judge_generate(judge, prompt, config, retry=retry)
        if failure is not None:
            result.attempts.append(attempt)
            if result.reading is None:
                result.failure, result.failure_detail = failure, attempt.answer
            return result
        reading = read(attempt.answer)
        problems = reading.problems
        truncated = attempt.truncated
        problem = None if not problems else (TRUNCATED if truncated else "; ".join(sorted(set(problems.values()))))
        result.attempts.append(_kept(attempt, problem))
        if result.reading is None or len(problems) < len(result.reading.problems):
            result.reading, result.reading_attempt = reading, len(result.attempts) - 1
        if not problems:
            return result
        if truncated and not truncation_reask_used and config.max_tokens is not None:
            truncation_reask_used = True
            config = config.merge(GenerateConfig(max_tokens=config.max_tokens * TRUNCATION_BUDGET_FACTOR))
            continue
        if retry >= retries:
            return result
        retry += 1
