"""Making one variant with the `injector` model: rewrite, check in code, check plausibility, retry, or exclude.

An attempt asks the injector for a rewrite under its output contract, reads the answer strictly, runs the
code checks (`scorers.judge_sensitivity.checks`: the shape of the change, then the facts code reads, which
a paraphrase must keep and an error variant may change only as its type does) and only then asks the
injector, in a second call, whether the variant is plausible for the study (a paraphrase: whether it keeps
every fact). That verdict must lie in its contract exactly (`read_contract_answer`); any other answer is an
unreadable check, never a pass. A failure at any step
ends the attempt with its reason; the next attempt bypasses Inspect's cache with a new seed and at least
`radiology_tasks.core.judge.RETRY_TEMPERATURE`. After the last attempt the variant is excluded with the
last reason, and every attempt stays in the record.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, replace
from functools import cache
from typing import get_args

from inspect_ai.model import GenerateConfig, Model

from radiology_tasks.core.constrain import ConstrainMode, constrained_config
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import TRUNCATED, ask_judge, judge_generate, role_model
from radiology_tasks.core.records import ReportPair
from radiology_tasks.scorers.judge_sensitivity.answers import (
    InjectionAnswer,
    ParaphraseAnswer,
    Verdict,
    read_contract_answer,
    read_json_answer,
)
from radiology_tasks.scorers.judge_sensitivity.checks import (
    CheckResult,
    check_injection,
    check_kept_facts,
    check_paraphrase,
)
from radiology_tasks.scorers.judge_sensitivity.contracts import (
    VERDICT_CONTRACT,
    injection_contract,
    paraphrase_contract,
)
from radiology_tasks.scorers.judge_sensitivity.preservation import finding_terms
from radiology_tasks.scorers.judge_sensitivity.sentences import SplitReport, split_sentences
from radiology_tasks.solvers.judge_sensitivity.outcome import FINAL_FAILURES, AttemptRecord, VariantOutcome
from radiology_tasks.solvers.judge_sensitivity.prompts import (
    injection_inputs,
    paraphrase_check_inputs,
    paraphrase_inputs,
    plausibility_inputs,
)
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec, variant_seed
from radiology_tasks.templates import render

INJECTOR_ROLE = "injector"

NO_INJECTOR_MESSAGE = (
    "No injector model is bound: variants are made by the 'injector' model role. Bind one with "
    "--model-role injector=<model> (for example injector=llama-cpp/smollm2-135m), or load variants made "
    "earlier with -T data=<file written by radiology-tasks perturb>."
)

CHECK_RETRIES = 1
"""Re-asks of a checker answer that cannot be read, within one attempt."""


@cache
def known_finding_terms() -> frozenset[str]:
    """The finding words the fact checks read: those of the bundled finding taxonomy (`finding_terms`)."""
    from radiology_tasks.scorers.bundled_taxonomy import bundled_taxonomy

    return finding_terms(bundled_taxonomy())


def variant_categories(spec: VariantSpec) -> tuple[str, ...]:
    """The error types whose changes a variant may make: its category, ``attribute``, or none (a paraphrase)."""
    if spec.kind == "paraphrase":
        return ()
    return (spec.category,) if spec.kind == "error" and spec.category else ("attribute",)


def injector_model() -> Model:
    """The model that makes variants: Inspect's `injector` role.

    Raises:
        PrerequisiteError: no injector role is bound (and `--model` is none).
    """
    return role_model(INJECTOR_ROLE, NO_INJECTOR_MESSAGE)


@dataclass(frozen=True)
class RewriteSettings:
    """How variants are made.

    Attributes:
        attempts: Attempts per variant before it is excluded.
        constrain: How to constrain the injector's answers (as the judge's ``-T constrain``).
        temperature: Temperature of the first attempt (later ones use at least the retry temperature).
        max_tokens: Token budget of a rewrite; None sends the contract's budget.
        seed: The run's seed; each variant's seed is derived from it and the variant id.
    """

    attempts: int = 5
    constrain: ConstrainMode = "auto"
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        """Refuse settings no variant could be made with, naming the task's and the command's option.

        Raises:
            InputError: an unknown constrain mode, no attempt, a negative temperature or an empty budget.
        """
        modes = get_args(ConstrainMode)
        if self.constrain not in modes:
            raise InputError(f"constrain must be one of {', '.join(modes)}; got {self.constrain!r}")
        if self.attempts < 1:
            raise InputError(
                f"injector attempts (-T injector_attempts, --attempts) must be at least 1, got {self.attempts}"
            )
        if self.temperature < 0:
            raise InputError(
                f"injector temperature (-T injector_temperature, --temperature) must be >= 0, got {self.temperature}"
            )
        if self.max_tokens is not None and self.max_tokens < 1:
            raise InputError(
                f"injector budget (-T injector_max_tokens, --max-tokens) must be at least 1, got {self.max_tokens}"
            )

    def _repr_params_(self) -> dict[str, object]:
        """The fields, as Inspect records a solver's arguments in the log (its hook for an object argument)."""
        return dataclasses.asdict(self)


Answer = InjectionAnswer | ParaphraseAnswer


@dataclass(frozen=True)
class _Job:
    """Everything the attempts at one variant share."""

    pair: ReportPair
    reference: SplitReport
    spec: VariantSpec
    prompt: str
    shape: type[InjectionAnswer] | type[ParaphraseAnswer]
    config: GenerateConfig
    check_config: GenerateConfig


def _checked(job: _Job, answer: Answer) -> CheckResult:
    if isinstance(answer, InjectionAnswer):
        checked = check_injection(job.reference, answer, job.spec.n_changes, deletions=job.spec.deletions)
    else:
        checked = check_paraphrase(job.reference, answer)
    if checked.text is None:
        return checked
    return check_kept_facts(job.reference, answer, checked.text, variant_categories(job.spec), known_finding_terms())


def _check_prompt(job: _Job, answer: Answer, text: str) -> str:
    if isinstance(answer, InjectionAnswer):
        return render("judge_sensitivity/plausibility", **plausibility_inputs(job.pair, text, answer.changes_detail))
    rewrites = {item.sentence_index: item.paraphrase.strip() for item in answer.sentences}
    return render("judge_sensitivity/paraphrase_check", **paraphrase_check_inputs(job.pair, job.reference, rewrites))


def _accepted_changes(job: _Job, answer: Answer) -> list[dict[str, object]]:
    if isinstance(answer, InjectionAnswer):
        return [change.model_dump() for change in sorted(answer.changes_detail, key=lambda c: c.sentence_index)]
    return [
        {
            "sentence_index": item.sentence_index,
            "original": job.reference.sentences[item.sentence_index],
            "paraphrase": item.paraphrase.strip(),
        }
        for item in sorted(answer.sentences, key=lambda s: s.sentence_index)
    ]


async def _verdict(model: Model, job: _Job, answer: Answer, text: str) -> tuple[str | None, str, tuple[str, ...]]:
    """Ask the checker about a variant that passed the code checks: (problem or None, detail, raw answers)."""
    result = await ask_judge(
        model,
        _check_prompt(job, answer, text),
        job.check_config,
        lambda raw: read_contract_answer(raw, Verdict, VERDICT_CONTRACT),
        retries=CHECK_RETRIES,
    )
    answers = tuple(attempt.answer for attempt in result.attempts)
    if result.failure is not None:
        return "check_failure", f"{result.failure}: {result.failure_detail}", answers
    reading = result.reading
    if reading is None or reading.value is None:
        return "unreadable_check", "; ".join(reading.problems.values()) if reading else "no answer", answers
    if not reading.value.plausible:
        return "implausible", reading.value.reason, answers
    return None, reading.value.reason, answers


async def _attempt(model: Model, job: _Job, number: int) -> tuple[AttemptRecord, tuple[Answer, str] | None]:
    """One attempt: the record, and the answer with its variant text when every check passed."""
    call, failure = await judge_generate(model, job.prompt, job.config, retry=number - 1)
    record = AttemptRecord(
        number, call.answer, call.stop_reason, call.seed, call.temperature, call.max_tokens, call.output_tokens
    )
    if failure is not None:
        return replace(record, problem=failure, detail=call.answer), None
    reading = read_json_answer(call.answer, job.shape)
    if reading.value is None:
        unread = TRUNCATED if call.truncated else str(reading.reason)
        return replace(record, problem=unread, detail=reading.problems["answer"]), None
    checked = _checked(job, reading.value)
    if checked.text is None:
        return replace(record, problem=checked.problem, detail=checked.detail), None
    problem, detail, answers = await _verdict(model, job, reading.value, checked.text)
    record = replace(record, problem=problem, detail=detail, check_answers=answers)
    return record, (None if problem else (reading.value, checked.text))


async def make_variant(
    pair: ReportPair, spec: VariantSpec, source_id: str, settings: RewriteSettings
) -> VariantOutcome:
    """Make one variant of `pair.reference`, or record why it could not be made.

    Args:
        pair: The reference pair (its modality and anatomy go into the prompts).
        spec: The variant to make.
        source_id: The reference's id.
        settings: Attempts, constraint, temperature, budget and seed.

    Returns:
        The outcome with every attempt; ``text`` is the variant when one attempt passed every check.
    """
    outcome = VariantOutcome(spec, source_id)
    reference = split_sentences(pair.reference)
    if spec.kind != "paraphrase" and spec.n_changes > len(reference.sentences):
        outcome.exclude(
            "too_few_sentences", f"{spec.n_changes} sentences to change, the reference has {len(reference.sentences)}"
        )
        return outcome
    model = injector_model()
    if spec.kind == "paraphrase":
        contract = paraphrase_contract(reference)
        prompt = render("judge_sensitivity/paraphrase", **paraphrase_inputs(pair, reference))
    else:
        contract = injection_contract(reference, spec.n_changes, deletions=spec.deletions)
        prompt = render("judge_sensitivity/inject", **injection_inputs(pair, reference, spec))
    seed = variant_seed(settings.seed, spec.variant_id(source_id))
    budget = contract.max_tokens if settings.max_tokens is None else settings.max_tokens
    constrained = constrained_config(model, contract, settings.constrain)
    outcome.constraint = constrained.description
    job = _Job(
        pair=pair,
        reference=reference,
        spec=spec,
        prompt=prompt,
        shape=ParaphraseAnswer if spec.kind == "paraphrase" else InjectionAnswer,
        config=constrained.config.merge(GenerateConfig(max_tokens=budget, temperature=settings.temperature, seed=seed)),
        check_config=constrained_config(model, VERDICT_CONTRACT, settings.constrain).config.merge(
            GenerateConfig(max_tokens=VERDICT_CONTRACT.max_tokens, temperature=0.0, seed=seed)
        ),
    )
    for number in range(1, settings.attempts + 1):
        record, accepted = await _attempt(model, job, number)
        outcome.attempts.append(record)
        if accepted is not None:
            answer, outcome.text = accepted
            outcome.changes = _accepted_changes(job, answer)
            return outcome
        if record.problem in FINAL_FAILURES:
            break
    last = outcome.attempts[-1]
    outcome.exclude(str(last.problem), last.detail)
    return outcome
