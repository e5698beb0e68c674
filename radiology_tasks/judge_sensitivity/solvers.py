"""Solvers that put a variant of the reference in place of the candidate: injected errors, or a paraphrase.

Each sample stands for one variant (its pair metadata holds ``kind``, ``category``, ``n_errors`` and
``source_id``); `inject_errors` handles error and attribute-edit variants, `paraphrase` handles paraphrases,
and each leaves the other kinds alone, so a task lists both. A sample that already has a candidate (a
variants file from ``radiology-tasks perturb``) is replayed without any injector call. The outcome (variant
text, every attempt, or the exclusion and its reason) is kept in ``state.metadata["variant"]``.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity.rewrite import INJECTOR_ROLE, RewriteSettings, make_variant
from radiology_tasks.solvers.judge_sensitivity.outcome import VariantOutcome
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec

VARIANT = "variant"
"""Key of the variant outcome in the sample's metadata (`VariantOutcome.metadata`)."""

_DEFAULT = RewriteSettings()


async def _place_variant(state: TaskState, settings: RewriteSettings) -> TaskState:
    pair = state.metadata_as(ReportPair)
    spec = VariantSpec.from_metadata(pair.metadata)
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


def _placing(settings: RewriteSettings, *, paraphrases: bool) -> Solver:
    """A solver placing the variants of one side (paraphrases, or the others) and leaving the other side alone."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        kind = VariantSpec.from_metadata(state.metadata_as(ReportPair).metadata).kind
        if (kind == "paraphrase") != paraphrases:
            return state
        return await _place_variant(state, settings)

    return solve


@solver
def inject_errors(settings: RewriteSettings = _DEFAULT) -> Solver:
    """Have the `injector` model put N clinically significant errors of one type into the reference.

    One error per sentence, exactly N sentences changed and the others byte for byte as they were (checked
    in code), then a second call checks that the changes are plausible for the study's modality and body
    region (VERT paper, section 4.2 and appendix F). A broken, failing or implausible answer is tried again;
    after `settings.attempts` the variant is excluded with the last reason.

    Args:
        settings: How variants are made (attempts, constraint, temperature, budget, the run's seed).
    """
    return _placing(settings, paraphrases=False)


@solver
def paraphrase(settings: RewriteSettings = _DEFAULT) -> Solver:
    """Have the `injector` model reword every sentence of the reference while keeping every clinical fact.

    No sentence may be dropped (checked in code), and a second call checks that the rewrite keeps every fact
    and reads as a believable report of the study. Retried and excluded as `inject_errors` is.

    Args:
        settings: How variants are made (attempts, constraint, temperature, budget, the run's seed).
    """
    return _placing(settings, paraphrases=True)
