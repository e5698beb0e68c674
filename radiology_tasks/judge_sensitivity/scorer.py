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

from typing import Any, Literal, get_args

from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import JudgeResult, ask_judge, grader_model, judge_explanation
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import judge_calls
from radiology_tasks.core.records import ErrorCounts, ReportPair
from radiology_tasks.core.unscored import judged_score
from radiology_tasks.judge_sensitivity.metrics import variant_exclusions
from radiology_tasks.judge_sensitivity.solvers import VARIANT
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.report_judge.scorer import JUDGE_TEMPERATURE, TEMPLATES, judge_contract, report_judge
from radiology_tasks.scorers.judge_sensitivity.answers import Differences, JsonReading, read_json_answer
from radiology_tasks.scorers.judge_sensitivity.contracts import DIFFERENCES_CONTRACT, MAX_DIFFERENCES
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS, Detail
from radiology_tasks.scorers.report_judge.parse import AssessmentFormatError
from radiology_tasks.scorers.report_judge.reading import BOUNDED_KEYS, ScoreReading, score_keys
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

SensitivityPrompt = Literal["green", "vert", "formula", "rubric"]
"""Judge prompts whose answers count significant errors per type (the score-only prompt counts none)."""

SENSITIVITY_PROMPTS: tuple[SensitivityPrompt, ...] = get_args(SensitivityPrompt)

VARIANT_EXCLUDED = "variant_excluded"
"""Unscored reason of a variant the injector could not make."""

_SUMMARY = ("kind", "category", "n_errors", "source_id", "excluded", "exclusion_detail", "injector_calls")


def _missing(result: JudgeResult[Any], keys: list[str], part: str = "") -> dict[str, tuple[str, str]]:
    """Reason code and detail for each score the kept answer does not give (the shared convention)."""
    reading = result.reading
    if reading is None:
        return {key: (str(result.failure), result.failure_detail or "") for key in keys}
    code = result.unreadable_reason
    return {key: (code, f"{part}{problem}") for key, problem in reading.problems.items()}


def _counts(reading: ScoreReading | None) -> dict[str, Any]:
    """The judge's counts as read, under the keys the GREEN/VERT scorer uses."""
    if reading is None or reading.parts is None:
        return {}
    parts = reading.parts

    def counts(part: ErrorCounts | AssessmentFormatError) -> dict[str, int] | None:
        return None if isinstance(part, AssessmentFormatError) else part.as_dict()

    return {
        "predicted_significant": counts(parts.significant),
        "predicted_insignificant": counts(parts.insignificant),
        "matched": None if isinstance(parts.matched, AssessmentFormatError) else parts.matched,
    }


def _cost(*results: JudgeResult[Any]) -> dict[str, Any]:
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
    prompt: SensitivityPrompt, *, reference: str, candidate: str, differences: list[str], detail: Detail = "full"
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
    asking = judge or JudgeOptions()
    read_as = reading or ReadingOptions()
    one_pass = report_judge(prompt, judge=asking, reading=read_as)
    policy = asking.unscored
    keys = score_keys(prompt)
    contract = judge_contract(prompt, read_as.detail)
    budget = contract.max_tokens if asking.judge_max_tokens is None else asking.judge_max_tokens

    async def two_pass(state: TaskState) -> Score:
        pair = state.metadata_as(ReportPair)
        candidate = state.output.completion
        model = grader_model()
        listing = constrained_config(model, DIFFERENCES_CONTRACT, asking.constrain)
        first: JudgeResult[JsonReading[Differences]] = await ask_judge(
            model,
            differences_prompt(reference=pair.reference, candidate=candidate),
            listing.config.merge(
                GenerateConfig(max_tokens=DIFFERENCES_CONTRACT.max_tokens, temperature=JUDGE_TEMPERATURE)
            ),
            lambda answer: read_json_answer(answer, Differences),
            retries=asking.judge_retries,
        )
        found = first.reading.value if first.reading is not None else None
        metadata: dict[str, Any] = {
            "judge": str(model),
            "differences": found.differences if found else None,
            "differences_constraint": listing.description,
            "differences_attempts": [a.as_dict() for a in first.attempts],
        }
        if found is None:
            (why,) = _missing(first, ["answer"], "differences: ").values()
            return judged_score(
                dict.fromkeys(keys),
                dict.fromkeys(keys, why),
                policy=policy,
                bounded=BOUNDED_KEYS,
                answer=candidate,
                metadata=metadata | _cost(first),
            )
        classifying = constrained_config(model, contract, asking.constrain)
        second = await ask_judge(
            model,
            classify_prompt(
                prompt,
                reference=pair.reference,
                candidate=candidate,
                differences=found.differences,
                detail=read_as.detail,
            ),
            classifying.config.merge(GenerateConfig(max_tokens=budget, temperature=JUDGE_TEMPERATURE)),
            lambda answer: read_as.read(answer, prompt=prompt, candidate=candidate),
            retries=asking.judge_retries,
        )
        read = second.reading
        metadata |= {
            "constraint": classifying.description,
            **second.metadata(),
            **_cost(first, second),
            **_counts(read),
        }
        return judged_score(
            read.values if read else dict.fromkeys(keys),
            _missing(second, keys),
            policy=policy,
            bounded=BOUNDED_KEYS,
            answer=candidate,
            explanation=judge_explanation(second),
            metadata=metadata,
        )

    async def score(state: TaskState, target: Target) -> Score:
        variant = state.metadata[VARIANT]
        context = {"prompt": prompt, "passes": passes, "variant": {key: variant[key] for key in _SUMMARY}}
        if variant["text"] is None:
            reason = (VARIANT_EXCLUDED, variant["exclusion_detail"])
            return judged_score(
                dict.fromkeys(keys),
                dict.fromkeys(keys, reason),
                policy="exclude",
                bounded=BOUNDED_KEYS,
                metadata=context,
            )
        result = await (one_pass(state, target) if passes == 1 else two_pass(state))
        if result is None:  # Inspect's scorer type allows None; the GREEN/VERT judge always returns a score
            raise RuntimeError("the GREEN/VERT judge returned no score")
        result.metadata = {**(result.metadata or {}), **context}
        return result

    return score
