"""The judge under test scores each variant against its reference, in one pass or in two.

One pass is exactly the GREEN/VERT scorer (`radiology_tasks.report_judge.scorer.report_judge`): same prompt,
contract, reading and unscored reasons, so a judge's numbers here mean what they mean in ``green`` and
``vert``. Two passes (ReEvalMed's two-pass setting) first ask the judge to list the differences between the
reports, then give it the same GREEN/VERT prompt with that list to classify; the second answer is read by
the same `read_scores`. The log shows both calls; the metadata keeps both passes' attempts.

A variant that could not be made is scored with every value missing (reason ``variant_excluded``), never
filled in, so it is counted (`variant_exclusions`) but enters no other metric.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal, get_args

from inspect_ai.model import Model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import JudgeResult, grader_model, judge_explanation
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import judge_calls
from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity.metrics import variant_exclusions
from radiology_tasks.judge_sensitivity.records import SensitivityRecord, VariantSummary
from radiology_tasks.judge_sensitivity.solvers import VARIANT
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.report_judge.scorer import (
    TEMPLATES,
    Asked,
    JudgeSetup,
    counts_metadata,
    judge_report,
    missing_scores,
)
from radiology_tasks.scorers.judge_sensitivity.answers import Differences, JsonReading, read_json_answer
from radiology_tasks.scorers.judge_sensitivity.contracts import DIFFERENCES_CONTRACT, MAX_DIFFERENCES
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS, Detail
from radiology_tasks.scorers.report_judge.reading import JudgePrompt
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

SensitivityPrompt = Literal["green", "vert", "formula", "rubric"]
"""Judge prompts whose answers count significant errors per type (the score-only prompt counts none)."""

SENSITIVITY_PROMPTS: tuple[SensitivityPrompt, ...] = get_args(SensitivityPrompt)

VARIANT_EXCLUDED = "variant_excluded"
"""Unscored reason of a variant the injector could not make."""

Judged = Callable[[JudgeSetup, TaskState, SensitivityRecord], Awaitable[Score]]
"""Judges one variant with a setup, recording what the opened record holds: in one pass (`judge_report`) or in two
(`judge_in_two_passes`)."""


def _cost(*results: JudgeResult[Any]) -> dict[str, int | bool]:
    """The judge's calls and tokens over both passes, under the keys `judge_calls` reads."""
    return {
        "judge_calls": sum(len(r.attempts) for r in results),
        "judge_input_tokens": sum(r.input_tokens for r in results),
        "judge_output_tokens": sum(r.output_tokens for r in results),
        "judge_retried": any(r.retried for r in results),
        "judge_truncated": any(r.truncated for r in results),
    }


def differences_prompt(*, reference: str, candidate: str) -> str:
    """The first pass of a two-pass judge: list the differences between the reports (both neutralised here)."""
    return render(
        "judge_sensitivity/differences",
        reference=neutralize_candidate(reference),
        candidate=neutralize_candidate(candidate),
        max_differences=MAX_DIFFERENCES,
    )


def classify_prompt(
    prompt: JudgePrompt, *, reference: str, candidate: str, differences: list[str], detail: Detail = "full"
) -> str:
    """The second pass: the GREEN/VERT prompt `prompt` with the first pass's `differences` to classify.

    The reports and the differences are neutralised here, as the one-pass prompt's reports are.
    """
    return render(
        "judge_sensitivity/classify",
        base=f"{TEMPLATES[prompt]}.jinja",
        reference=neutralize_candidate(reference),
        candidate=neutralize_candidate(candidate),
        examples=[],
        error_descriptions=False,
        bounds=DETAIL_BOUNDS[detail],
        detail=detail,
        differences=[neutralize_candidate(d) for d in differences],
    )


async def _list_differences(
    setup: JudgeSetup, model: Model, reference: str, candidate: str
) -> Asked[JsonReading[Differences]]:
    """The first pass: the judge lists the differences between the reports."""
    return await setup.ask_for(
        model,
        differences_prompt(reference=reference, candidate=candidate),
        DIFFERENCES_CONTRACT,
        lambda answer: read_json_answer(answer, Differences),
    )


async def judge_in_two_passes(setup: JudgeSetup, state: TaskState, opened: SensitivityRecord) -> Score:
    """List the differences between the reports, then classify them with the setup's GREEN/VERT prompt; a first
    pass that lists nothing readable leaves every score missing for its reason."""
    pair = state.metadata_as(ReportPair)
    candidate = state.output.completion
    model = grader_model()
    listing = await _list_differences(setup, model, pair.reference, candidate)
    first = listing.result
    found = first.reading.value if first.reading is not None else None
    fields: dict[str, object] = {
        "judge": str(model),
        "differences": found.differences if found else None,
        "differences_constraint": listing.constraint,
        "differences_attempts": [a.as_dict() for a in first.attempts],
    }
    if found is None:
        (why,) = missing_scores(first, ["answer"], "differences: ").values()
        return setup.unjudged(why, opened.extended(**fields, **_cost(first)), answer=candidate)
    text = classify_prompt(
        setup.prompt,
        reference=pair.reference,
        candidate=candidate,
        differences=found.differences,
        detail=setup.reading.detail,
    )
    classifying = await setup.ask(model, text, candidate)
    second = classifying.result
    fields |= {
        "constraint": classifying.constraint,
        **second.metadata(),
        **_cost(first, second),
        **counts_metadata(second.reading, checks=False),
    }
    explanation = judge_explanation(second)
    return setup.scored(second, opened.extended(**fields), candidate=candidate, explanation=explanation)


@scorer(metrics=[variant_exclusions(), judge_calls()])
def sensitivity_judge(
    prompt: SensitivityPrompt = "vert",
    *,
    passes: int = 1,
    judge: JudgeOptions | None = None,
    reading: ReadingOptions | None = None,
) -> Scorer:
    """Score each variant against its reference with the `grader` model, as GREEN/VERT do.

    Args:
        prompt: ``green``, ``vert``, ``formula`` or ``rubric`` (as in the ``green`` and ``vert`` tasks).
        passes: 1: the GREEN/VERT prompt alone; 2: first list the differences, then classify each one's
            clinical significance with the GREEN/VERT prompt.
        judge: How the judge is asked (retries are per pass; the budget is the GREEN/VERT answer's) and what a
            score it did not give counts as (the sensitivity metrics never use a filled-in value); None: the
            defaults.
        reading: How its GREEN/VERT answer is asked for and read (as in ``green``); None: the defaults.
    """
    if prompt not in SENSITIVITY_PROMPTS:
        raise InputError(f"prompt must be one of {', '.join(SENSITIVITY_PROMPTS)}; got {prompt!r}")
    if passes not in (1, 2):
        raise InputError(f"-T passes must be 1 or 2, got {passes!r}")
    setup = JudgeSetup(prompt, judge or JudgeOptions(), reading or ReadingOptions())
    judged: Judged = judge_report if passes == 1 else judge_in_two_passes

    async def score(state: TaskState, target: Target) -> Score:
        outcome = state.metadata[VARIANT]
        variant = VariantSummary.of(outcome)
        opened = SensitivityRecord(prompt=prompt, passes=passes, variant=variant)
        if outcome["text"] is None:
            # Never judged, every score missing and never filled in: counted by `variant_exclusions` alone.
            return setup.unjudged((VARIANT_EXCLUDED, variant.exclusion_detail or ""), opened, policy="exclude")
        return await judged(setup, state, opened)

    return score
