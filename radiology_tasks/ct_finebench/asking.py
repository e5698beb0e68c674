"""Ask the judge for one JSON value per question id, asking again only for what it left out.

Both CT-FineBench judge steps (answer extraction, answer comparison) go through `ask_for_ids`:

1. One call for all ids, under an output contract built for exactly those ids. An answer that cannot be read
   as a whole (broken JSON, no id answered) is asked again up to ``retries`` times (`ask_judge`).
2. Ids the answer leaves out or answers outside the contract are asked once more, on their own.
3. Whatever is still missing gets a reason code (`radiology_tasks.core.unscored`) instead of a value, so it
   is never mistaken for a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from inspect_ai.model import GenerateConfig, Model

from radiology_tasks.core.constrain import ConstrainMode, constrained_config
from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.judge import TRUNCATED, JudgeResult, ask_judge, grader_model
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.ct_finebench.options import QAMode
from radiology_tasks.scorers.ct_finebench.answers import IdReading

T = TypeVar("T")

INVALID_RESPONSE_FORMAT = "invalid_response_format"


@dataclass(frozen=True)
class JudgeStep(Generic[T]):
    """How one judge step asks: its prompt, contract and reader for a list of ids, and its settings.

    Attributes:
        prompt: The prompt asking about these ids.
        contract: The output contract admitting exactly these ids.
        read: Reads one answer for these ids.
        constrain: How to constrain the judge's output.
        max_tokens: Token budget of every call; None uses the contract's own budget.
        retries: Re-asks of an answer that cannot be read as a whole (``-T judge_retries``).
        temperature: Sampling temperature of first attempts.
    """

    prompt: Callable[[Sequence[str]], str]
    contract: Callable[[Sequence[str]], OutputContract]
    read: Callable[[str, Sequence[str]], IdReading[T]]
    constrain: ConstrainMode
    max_tokens: int | None
    retries: int
    temperature: float = 0.0


@dataclass
class IdOutcome(Generic[T]):
    """Values read per id, the reason for each id without one, and every judge call made.

    Attributes:
        values: ``id -> value`` for each id the judge answered within the contract.
        missing: ``id -> (reason code, detail)`` for each id without a value.
        results: One `JudgeResult` per prompt sent (the first for all ids, then a follow-up).
        constraint: How the judge's output was constrained.
        unexpected_keys: Keys the judge answered that were not asked for (ignored).
        follow_ups: Prompts sent again for the ids an answer left out.
    """

    values: dict[str, T] = field(default_factory=dict)
    missing: dict[str, tuple[str, str]] = field(default_factory=dict)
    results: list[JudgeResult[IdReading[T]]] = field(default_factory=list)
    constraint: str | None = None
    unexpected_keys: list[str] = field(default_factory=list)
    follow_ups: int = 0

    def merge(self, other: IdOutcome[T]) -> None:
        """Add another outcome's values, reasons and calls (per-question mode asks once per id)."""
        self.values |= other.values
        self.missing |= other.missing
        self.results += other.results
        self.constraint = self.constraint or other.constraint
        self.unexpected_keys += other.unexpected_keys
        self.follow_ups += other.follow_ups

    def judge_metadata(self) -> dict[str, Any]:
        """Calls, tokens, re-asks and every attempt of this step, for `Score.metadata`."""
        attempts = [a.as_dict() for result in self.results for a in result.attempts]
        return {
            "calls": len(attempts),
            "input_tokens": sum(result.input_tokens for result in self.results),
            "output_tokens": sum(result.output_tokens for result in self.results),
            "retried": self.follow_ups > 0 or any(result.retried for result in self.results),
            "follow_ups": self.follow_ups,
            "truncated": any(result.truncated for result in self.results),
            "constraint": self.constraint,
            "unexpected_keys": self.unexpected_keys,
            "attempts": attempts,
        }


def _unreadable_reason(result: JudgeResult[Any]) -> str:
    last = result.attempts[-1] if result.attempts else None
    return TRUNCATED if last is not None and last.problem == TRUNCATED else INVALID_RESPONSE_FORMAT


async def _ask(judge: Model, step: JudgeStep[T], ids: Sequence[str]) -> tuple[JudgeResult[IdReading[T]], str]:
    contract = step.contract(ids)
    constrained = constrained_config(judge, contract, step.constrain)
    config = constrained.config.merge(
        GenerateConfig(max_tokens=step.max_tokens or contract.max_tokens, temperature=step.temperature)
    )
    result = await ask_judge(judge, step.prompt(ids), config, lambda text: step.read(text, ids), retries=step.retries)
    return result, constrained.description


async def ask_for_ids(judge: Model, step: JudgeStep[T], ids: Sequence[str]) -> IdOutcome[T]:
    """Ask `judge` for a value per id; ids it leaves out are asked once more on their own.

    Args:
        judge: The judge model.
        step: Prompt, contract, reader and settings of the judge step.
        ids: The ids to ask about (at least one).

    Returns:
        The values read and, for every other id, the reason code and detail.
    """
    outcome: IdOutcome[T] = IdOutcome()
    pending = list(ids)
    while True:
        result, constraint = await _ask(judge, step, pending)
        outcome.results.append(result)
        outcome.constraint = outcome.constraint or constraint
        reading = result.reading
        if reading is None:
            failure = result.failure or INVALID_RESPONSE_FORMAT
            outcome.missing |= {key: (failure, result.failure_detail or "") for key in pending}
            return outcome
        outcome.unexpected_keys += [key for key in reading.unexpected_keys if key not in outcome.unexpected_keys]
        if reading.format_problem is not None:
            reason = _unreadable_reason(result)
            outcome.missing |= {key: (reason, reading.format_problem) for key in pending}
            return outcome
        outcome.values |= reading.values
        left_out = [key for key in pending if key in reading.id_problems]
        if not left_out:
            return outcome
        if outcome.follow_ups:
            outcome.missing |= {
                key: (INVALID_RESPONSE_FORMAT, f"{reading.id_problems[key]} (also when asked again for it)")
                for key in left_out
            }
            return outcome
        outcome.follow_ups += 1
        pending = left_out


async def ask_in_mode(judge: Model, step: JudgeStep[T], ids: Sequence[str], qa_mode: QAMode) -> IdOutcome[T]:
    """`ask_for_ids` for all ids at once (``batch``), or once per id (``per_question``, the paper's protocol)."""
    if qa_mode == "batch":
        return await ask_for_ids(judge, step, ids)
    outcome: IdOutcome[T] = IdOutcome()
    for key in ids:
        outcome.merge(await ask_for_ids(judge, step, [key]))
    return outcome


@dataclass(frozen=True)
class QAJudge:
    """How the CT-FineBench solver and scorer ask the `grader`: the question mode and the judge options, whole.

    Attributes:
        qa_mode: ``batch`` or ``per_question`` (see `QAMode`).
        judge: The judge's constraint, answer budget (None: each contract's own), re-asks and unscored policy.
    """

    qa_mode: QAMode
    judge: JudgeOptions

    async def ask(
        self,
        prompt: Callable[[Sequence[str]], str],
        contract: Callable[[Sequence[str]], OutputContract],
        read: Callable[[str, Sequence[str]], IdReading[T]],
        ids: Sequence[str],
    ) -> IdOutcome[T]:
        """`ask_in_mode` of the `grader` model for `ids`, one step under these options."""
        judge = self.judge
        step = JudgeStep(prompt, contract, read, judge.constrain, judge.judge_max_tokens, judge.judge_retries)
        return await ask_in_mode(grader_model(), step, ids, self.qa_mode)
