"""The `crimson_judge` scorer: one judge call per pair, read strictly, scored in code by CRIMSON's rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageSystem, ChatMessageUser, GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.judge import JudgeResult, ask_judge, grader_model, judge_explanation
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import expert_metadata, mean_of
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.unscored import UnscoredPolicy, judged_score
from radiology_tasks.crimson.context import PatientContext, patient_context
from radiology_tasks.crimson.parsed import kept_answer
from radiology_tasks.crimson.records import CrimsonRecord
from radiology_tasks.scorers.crimson.contract import CONTRACT
from radiology_tasks.scorers.crimson.reading import MAIN_KEY, CrimsonReading, read_crimson
from radiology_tasks.scorers.crimson.score import at_grammar_bound, crimson_outcome
from radiology_tasks.scorers.score_record import PARSED_ANSWERS
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

FLOOR = -1.0
"""What ``-T unscored=worst`` counts a missing CRIMSON score as: the bottom of its range (-1, 1]. Zero would reward
a report for leaving the judge unable to answer, since zero is what a normal template earns."""

SYSTEM_MESSAGE = "You assess the clinical accuracy of radiology reports and answer in the JSON format you are given."


def crimson_prompt(reference: str, candidate: str, context: PatientContext, *, guidelines: bool = True) -> str:
    """The judge prompt for one pair; every text from the data is neutralised here."""
    given = {name: neutralize_candidate(text) for name in ("age", "sex", "indication") if (text := context.get(name))}
    return render(
        "crimson/judge",
        reference=neutralize_candidate(reference),
        candidate=neutralize_candidate(candidate),
        age=given.get("age"),
        sex=given.get("sex"),
        indication=given.get("indication"),
        guidelines=guidelines,
    )


def crimson_score(
    reading: CrimsonReading | None,
    missing: tuple[str, str] | None,
    *,
    policy: UnscoredPolicy,
    answer: str | None = None,
    explanation: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Score:
    """The `Score` of one pair from its reading (None when there is no answer to read, `missing` saying why).

    The value is ``{"crimson": score}``; the metadata keeps the intermediate quantities, the error counts, the
    answer as read (under `PARSED_ANSWERS`, what a redacted log is re-scored from) and the line saying where an
    unread answer breaks the contract, each a field of `CrimsonRecord`. Under ``worst`` a missing score counts as
    `FLOOR`, listed in ``filled_in``.
    """
    extra = dict(metadata or {})
    value: float | None = None
    if reading is not None and reading.assessment is not None:
        outcome = crimson_outcome(reading.assessment)
        value = outcome.score
        extra["crimson"] = outcome.as_dict()
        extra[PARSED_ANSWERS] = kept_answer(reading.assessment)
    elif reading is not None:
        extra["reading_problem"] = reading.problem
    problem = reading.problem if reading is not None else None
    reasons = {} if value is not None else {MAIN_KEY: missing or ("invalid_response_format", problem or "")}
    score = judged_score(
        {MAIN_KEY: value}, reasons, policy=policy, bounded=(), answer=answer, explanation=explanation, metadata=extra
    )
    if value is None and policy == "worst":
        score.value = {MAIN_KEY: FLOOR}
        score.metadata = {**(score.metadata or {}), "filled_in": [MAIN_KEY]}
    score.metadata = CrimsonRecord.written(score.metadata or {})
    return score


def _unreadable(result: JudgeResult[CrimsonReading]) -> tuple[str, str] | None:
    """The reason and detail of a judge call that gave no reading, or of a reading that failed."""
    if result.reading is None:
        return str(result.failure), result.failure_detail or ""
    if result.reading.problem is not None:
        return result.unreadable_reason, result.reading.problem
    return None


def _sample_metadata(state: TaskState, pair: ReportPair, *, guidelines: bool, expert: bool) -> dict[str, Any]:
    """What every score of the pair records before the judge is asked: the prompt's options, the patient context,
    the experts' view of the candidate and, where the run wrote the candidate, the generation outcome."""
    metadata: dict[str, Any] = {
        "guidelines": guidelines,
        "patient_context": patient_context(pair),
        **expert_metadata(pair if expert else None),
    }
    generation = state.metadata.get("generation")
    if generation is not None:
        metadata["generation"] = generation
    return metadata


def _not_judged(metadata: Mapping[str, object], candidate: str) -> tuple[str, str] | None:
    """Why the candidate is not sent to the judge (its generation failed, or it is empty); None when it is."""
    generation = metadata.get("generation")
    if isinstance(generation, dict) and generation.get("error"):
        code, _, detail = str(generation["error"]).partition(": ")
        return code, detail
    if not candidate.strip():
        return "no_response", "the candidate is empty"
    return None


async def _judged(
    prompt: str, options: JudgeOptions, metadata: dict[str, Any]
) -> tuple[JudgeResult[CrimsonReading], dict[str, Any]]:
    """Ask the `grader` about one pair under `options`; the result and the metadata with the judge's record."""
    judge = grader_model()
    constrained = constrained_config(judge, CONTRACT, options.constrain)
    budget = CONTRACT.max_tokens if options.judge_max_tokens is None else options.judge_max_tokens
    config = constrained.config.merge(GenerateConfig(max_tokens=budget, temperature=0.0))
    messages: list[ChatMessage] = [ChatMessageSystem(content=SYSTEM_MESSAGE), ChatMessageUser(content=prompt)]
    result = await ask_judge(judge, messages, config, read_crimson, retries=options.judge_retries)
    metadata = metadata | {"judge": str(judge), "constraint": constrained.description, **result.metadata()}
    assessment = result.reading.assessment if result.reading else None
    if constrained.method == "grammar" and assessment is not None:
        # The grammar bounds the lists: an answer that fills one may have left findings out, so say so.
        metadata["at_grammar_bound"] = at_grammar_bound(assessment)
    return result, metadata


@scorer(metrics=[mean_of(MAIN_KEY)])
def crimson_judge(*, guidelines: bool = True, expert: bool = True, judge: JudgeOptions | None = None) -> Scorer:
    """Judge each candidate against its reference with CRIMSON's judge (the `grader` role) and score it in code.

    Args:
        guidelines: Include the rating guidelines (typical significance ratings, attribute severities, patient
            context); the authors' fine-tuned judge was trained without them.
        expert: Record the pair's expert score for the agreement metrics; False when the candidates judged are not
            the ones the experts rated (`-T candidates`, `-T generate`).
        judge: How the judge is asked and its missing score counted (constraint, answer budget, re-asks of an
            answer that does not read; ``worst`` counts a missing score as -1, ``exclude`` leaves it out), as the
            task's `JudgeOptions` checked them; None: the defaults.
    """
    options = judge or JudgeOptions()

    async def score(state: TaskState, target: Target) -> Score:
        pair = state.metadata_as(ReportPair)
        metadata = _sample_metadata(state, pair, guidelines=guidelines, expert=expert)
        candidate = state.output.completion if state.output else ""
        reason = _not_judged(metadata, candidate)
        if reason is not None:
            return crimson_score(None, reason, policy=options.unscored, metadata=metadata)
        prompt = crimson_prompt(pair.reference, candidate, metadata["patient_context"], guidelines=guidelines)
        result, metadata = await _judged(prompt, options, metadata)
        return crimson_score(
            result.reading,
            _unreadable(result),
            policy=options.unscored,
            answer=candidate,
            explanation=judge_explanation(result),
            metadata=metadata,
        )

    return score
