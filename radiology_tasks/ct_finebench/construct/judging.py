"""The judge of a construction step: any Inspect model, called outside an eval, asked under an output contract."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import yaml
from inspect_ai.model import Model, get_model

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import TRUNCATED, JudgeResult
from radiology_tasks.ct_finebench.asking import INVALID_RESPONSE_FORMAT, JudgeStep
from radiology_tasks.scorers.ct_finebench.answers import IdReading

T = TypeVar("T")


@dataclass(frozen=True)
class JudgeOptions:
    """How a step asks its judge (the command's judge options).

    Attributes:
        model: An Inspect model string, e.g. ``llama-cpp/smollm2-135m`` or ``openai-api/vllm/Qwen/Qwen3-8B``.
        model_args: Model arguments (``-M key=value``).
        constrain: How to constrain the answer (`radiology_tasks.core.constrain`).
        max_tokens: Token budget of every call; None uses the output contract's own budget.
        retries: Re-asks of an answer that cannot be read.
        max_connections: Reports worked on at the same time.
    """

    model: str
    model_args: dict[str, Any] = field(default_factory=dict)
    constrain: ConstrainMode = "auto"
    max_tokens: int | None = None
    retries: int = 1
    max_connections: int = 4

    def step(
        self,
        prompt: Callable[[Sequence[str]], str],
        contract: Callable[[Sequence[str]], OutputContract],
        read: Callable[[str, Sequence[str]], IdReading[T]],
    ) -> JudgeStep[T]:
        """A judge step asking under these options."""
        return JudgeStep(prompt, contract, read, self.constrain, self.max_tokens, self.retries)


def parse_model_args(pairs: list[str] | None) -> dict[str, Any]:
    """``["n_ctx=4096", "n_threads=1"]`` -> ``{"n_ctx": 4096, "n_threads": 1}``; values read as YAML, as Inspect does.

    Raises:
        InputError: An argument is not ``key=value``.
    """
    args: dict[str, Any] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise InputError(f"-M {pair!r}: expected key=value")
        args[key.strip()] = yaml.safe_load(value)
    return args


def judge_model(options: JudgeOptions) -> Model:
    """The judge model, new for this run (a memoized one could hold a client bound to a finished event loop).

    Raises:
        InputError: Inspect cannot make the model (unknown provider, missing package or API key).
    """
    # Registers the in-process llama-cpp provider with Inspect.
    import radiology_tasks.core.llama_cpp_provider  # noqa: F401

    try:
        return get_model(options.model, memoize=False, **options.model_args)
    except Exception as error:
        message = " ".join(str(error).split())
        raise InputError(f"--model {options.model}: {message}") from None


def unreadable_reason(result: JudgeResult[Any]) -> str:
    """``truncated`` when the last answer stopped at its budget, else ``invalid_response_format``."""
    last = result.attempts[-1] if result.attempts else None
    return TRUNCATED if last is not None and last.problem == TRUNCATED else INVALID_RESPONSE_FORMAT


def cost(results: list[JudgeResult[Any]], constraint: str | None) -> dict[str, Any]:
    """The judge's calls and tokens over `results`, and the constraint used, for an output line."""
    return {
        "calls": sum(len(result.attempts) for result in results),
        "input_tokens": sum(result.input_tokens for result in results),
        "output_tokens": sum(result.output_tokens for result in results),
        "constraint": constraint,
    }


def last_answers(results: list[JudgeResult[Any]]) -> list[dict[str, Any]]:
    """Every attempt's raw answer, stop reason and problem, kept on a failure line to see what went wrong."""
    return [
        {"answer": attempt.answer, "stop_reason": attempt.stop_reason, "problem": attempt.problem}
        for result in results
        for attempt in result.attempts
    ]
