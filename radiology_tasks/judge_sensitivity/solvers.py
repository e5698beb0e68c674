"""Solvers that put a variant of the reference in place of the candidate: injected errors, or a paraphrase.

Each sample stands for one variant (its pair metadata holds ``kind``, ``category``, ``n_errors`` and
``source_id``); `inject_errors` handles error and attribute-edit variants, `paraphrase` handles paraphrases,
and each leaves the other kinds alone, so a task lists both. A sample that already has a candidate (a
variants file from ``radiology-tasks perturb``) is replayed without any injector call. The outcome (variant
text, every attempt, or the exclusion and its reason) is kept in ``state.metadata["variant"]``.
"""

from __future__ import annotations

from typing import get_args

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity.rewrite import INJECTOR_ROLE, RewriteSettings, make_variant
from radiology_tasks.solvers.judge_sensitivity.outcome import VariantOutcome
from radiology_tasks.solvers.judge_sensitivity.rows import spec_from_metadata

VARIANT = "variant"
"""Key of the variant outcome in the sample's metadata (`VariantOutcome.metadata`)."""


def _settings(
    attempts: int, constrain: ConstrainMode, temperature: float, max_tokens: int | None, seed: int
) -> RewriteSettings:
    if constrain not in get_args(ConstrainMode):
        raise InputError(f"constrain must be one of {', '.join(get_args(ConstrainMode))}; got {constrain!r}")
    if attempts < 1:
        raise InputError(f"injector attempts (-T injector_attempts, --attempts) must be at least 1, got {attempts}")
    if temperature < 0:
        raise InputError(
            f"injector temperature (-T injector_temperature, --temperature) must be >= 0, got {temperature}"
        )
    if max_tokens is not None and max_tokens < 1:
        raise InputError(f"injector budget (-T injector_max_tokens, --max-tokens) must be at least 1, got {max_tokens}")
    return RewriteSettings(attempts, constrain, temperature, max_tokens, seed)


async def _place_variant(state: TaskState, settings: RewriteSettings) -> TaskState:
    pair = state.metadata_as(ReportPair)
    spec = spec_from_metadata(pair.metadata)
    source_id = pair.metadata["source_id"]
    if pair.candidate is not None:
        outcome = VariantOutcome(spec, source_id, text=pair.candidate)
    else:
        outcome = await make_variant(pair, spec, source_id, settings)
    state.metadata[VARIANT] = outcome.metadata()
    state.output = ModelOutput.from_content(model=INJECTOR_ROLE, content=outcome.text or "")
    if outcome.text is not None:
        state.messages.append(ChatMessageAssistant(content=outcome.text, model=INJECTOR_ROLE))
    return state


@solver
def inject_errors(
    attempts: int = 5,
    constrain: ConstrainMode = "auto",
    temperature: float = 0.0,
    max_tokens: int | None = None,
    seed: int = 0,
) -> Solver:
    """Have the `injector` model put N clinically significant errors of one type into the reference.

    One error per sentence, exactly N sentences changed and the others byte for byte as they were (checked
    in code), then a second call checks that the changes are plausible for the study's modality and body
    region (VERT paper, section 4.2 and appendix F). A broken, failing or implausible answer is tried again;
    after `attempts` the variant is excluded with the last reason.

    Args:
        attempts: Attempts per variant.
        constrain: How to constrain the injector's answers (``auto`` picks what the backend understands).
        temperature: Temperature of the first attempt.
        max_tokens: Token budget of a rewrite; None sends the output contract's budget.
        seed: The run's seed; each variant's seed is derived from it and the variant id.
    """
    settings = _settings(attempts, constrain, temperature, max_tokens, seed)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if spec_from_metadata(state.metadata_as(ReportPair).metadata).kind == "paraphrase":
            return state
        return await _place_variant(state, settings)

    return solve


@solver
def paraphrase(
    attempts: int = 5,
    constrain: ConstrainMode = "auto",
    temperature: float = 0.0,
    max_tokens: int | None = None,
    seed: int = 0,
) -> Solver:
    """Have the `injector` model reword every sentence of the reference while keeping every clinical fact.

    No sentence may be dropped (checked in code), and a second call checks that the rewrite keeps every fact
    and reads as a believable report of the study. Retried and excluded as `inject_errors` is.

    Args:
        attempts: Attempts per variant.
        constrain: How to constrain the injector's answers.
        temperature: Temperature of the first attempt.
        max_tokens: Token budget of a rewrite; None sends the output contract's budget.
        seed: The run's seed; each variant's seed is derived from it and the variant id.
    """
    settings = _settings(attempts, constrain, temperature, max_tokens, seed)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        if spec_from_metadata(state.metadata_as(ReportPair).metadata).kind != "paraphrase":
            return state
        return await _place_variant(state, settings)

    return solve
