"""The GREEN/VERT judge scorer: render the prompt, ask the grader until its answer reads, score what it says."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import JudgeResult, ask_judge, grader_model, judge_explanation
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import expert_metadata, judge_calls, parse_failure_rate
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.unscored import judged_score
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS, SCORE_ONLY_CONTRACT, Detail, assessment_contract
from radiology_tasks.scorers.report_judge.parse import AssessmentFormatError
from radiology_tasks.scorers.report_judge.reading import (
    BOUNDED_KEYS,
    JUDGE_PROMPTS,
    JudgePrompt,
    ScoreReading,
    score_keys,
)
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

JUDGE_TEMPERATURE = 0.0
"""The judge samples greedily (a re-ask of an unreadable answer raises it, `radiology_tasks.core.judge`)."""

# The score-only prompt is the one `radiology-tasks export-sft` trains fine-tuned judges on.
TEMPLATES: dict[JudgePrompt, str] = {p: f"green_vert/{p}" for p in JUDGE_PROMPTS} | {"score": "green_vert/sft_judge"}

__all__ = [
    "JUDGE_PROMPTS",
    "JudgePrompt",
    "judge_contract",
    "judge_prompt",
    "report_judge",
    "score_keys",
]


def judge_contract(prompt: JudgePrompt, detail: Detail = "full") -> OutputContract:
    """The output contract of a judge prompt (sectioned text, with a score section except for GREEN)."""
    if prompt == "score":
        return SCORE_ONLY_CONTRACT
    return assessment_contract(prompt, with_score=prompt != "green", detail=detail)


def _parts_metadata(reading: ScoreReading) -> dict[str, Any]:
    """The judge's counts as read, for the per-category metrics and the log viewer."""
    parts = reading.parts
    if parts is None:
        return {}

    def counts(part: object) -> dict[str, int] | None:
        return None if isinstance(part, AssessmentFormatError) else part.as_dict()  # type: ignore[attr-defined]

    return {
        "matched": None if isinstance(parts.matched, AssessmentFormatError) else parts.matched,
        "predicted_significant": counts(parts.significant),
        "predicted_insignificant": counts(parts.insignificant),
        "formula_check": reading.formula_check,
        "filled_categories": parts.filled_categories,
        "quoted_sections": parts.quoted_sections,
    }


def _missing(result: JudgeResult[ScoreReading], keys: list[str]) -> dict[str, tuple[str, str]]:
    """Reason code and detail for each score the judge's kept answer does not give."""
    reading = result.reading
    if reading is None:
        return {key: (str(result.failure), result.failure_detail or "") for key in keys}
    code = result.unreadable_reason
    return {key: (code, problem) for key, problem in reading.problems.items()}


def judge_prompt(
    prompt: JudgePrompt,
    *,
    reference: str,
    candidate: str,
    examples: list[dict[str, str]] | None = None,
    error_descriptions: bool = False,
    detail: Detail = "full",
) -> str:
    """The judge prompt for one report pair (the lm-evaluation-harness tasks render theirs here too).

    The reference and candidate are neutralised here; `examples` must be neutralised by the caller.
    """
    return render(
        TEMPLATES[prompt],
        reference=neutralize_candidate(reference),
        candidate=neutralize_candidate(candidate),
        examples=examples or [],
        error_descriptions=error_descriptions,
        bounds=DETAIL_BOUNDS[detail],
        detail=detail,
    )


@scorer(metrics=[parse_failure_rate(), judge_calls()])
def report_judge(
    prompt: JudgePrompt = "vert",
    *,
    judge: JudgeOptions | None = None,
    reading: ReadingOptions | None = None,
    examples: list[dict[str, str]] | None = None,
    error_descriptions: bool = False,
) -> Scorer:
    """Judge the candidate report against the reference with the `grader` model.

    Args:
        prompt: `green` (error counts, GREEN computed from them), `vert` (direct overall score),
            `formula` (judge computes M / (M + 2S + 0.5I)), `rubric` (five score bands) or `score`
            (the score-only prompt that fine-tuned judges learn from `radiology-tasks export-sft`).
        judge: How the judge is asked and its missing scores counted (constraint, budget, retries, unscored
            policy); None: the defaults.
        reading: How its answer is asked for and read (detail, terse answers, GREEN with nothing matched); None:
            the defaults.
        examples: Few-shot examples placed in the prompt: `{reference, candidate, answer}` (an answer in the
            contract's form) or `{reference, candidate, expert_rating}` (an expert's score, shown as such).
        error_descriptions: Add the team's description of each error category (a)-(f).
    """
    if prompt not in JUDGE_PROMPTS:
        raise InputError(f"prompt must be one of {', '.join(JUDGE_PROMPTS)}; got {prompt!r}")
    asking = judge or JudgeOptions()
    read_as = reading or ReadingOptions()
    policy = asking.unscored
    detail = read_as.detail
    keys = score_keys(prompt)
    contract = judge_contract(prompt, detail)
    budget = contract.max_tokens if asking.judge_max_tokens is None else asking.judge_max_tokens
    # Every report text is neutralised, not only the candidate: a reference or an example that contains a
    # delimiter tag would otherwise break the prompt's structure just as well.
    shots = [
        {**e, "reference": neutralize_candidate(e["reference"]), "candidate": neutralize_candidate(e["candidate"])}
        for e in examples or []
    ]

    async def score(state: TaskState, target: Target) -> Score:
        pair = state.metadata_as(ReportPair)
        metadata: dict[str, Any] = {"prompt": prompt, "detail": detail, **expert_metadata(pair)}
        generation = state.metadata.get("generation")
        if generation is not None:
            metadata["generation"] = generation
        candidate = state.output.completion if state.output else ""
        if generation is not None and generation.get("error"):
            code, _, detail_text = str(generation["error"]).partition(": ")
            return judged_score(
                dict.fromkeys(keys),
                dict.fromkeys(keys, (code, detail_text)),
                policy=policy,
                bounded=BOUNDED_KEYS,
                metadata=metadata,
            )
        if not candidate.strip():
            return judged_score(
                dict.fromkeys(keys),
                dict.fromkeys(keys, ("no_response", "the candidate is empty")),
                policy=policy,
                bounded=BOUNDED_KEYS,
                metadata=metadata,
            )

        model = grader_model()
        constrained = constrained_config(model, contract, asking.constrain)
        config = constrained.config.merge(GenerateConfig(max_tokens=budget, temperature=JUDGE_TEMPERATURE))
        result = await ask_judge(
            model,
            judge_prompt(
                prompt,
                reference=pair.reference,
                candidate=candidate,
                examples=shots,
                error_descriptions=error_descriptions,
                detail=detail,
            ),
            config,
            lambda answer: read_as.read(answer, prompt=prompt, candidate=candidate),
            retries=asking.judge_retries,
        )
        read = result.reading
        metadata |= {
            "judge": str(model),
            "constraint": constrained.description,
            **result.metadata(),
            **(_parts_metadata(read) if read else {}),
        }
        values = read.values if read else dict.fromkeys(keys)
        return judged_score(
            values,
            _missing(result, keys),
            policy=policy,
            bounded=BOUNDED_KEYS,
            answer=candidate,
            explanation=judge_explanation(result, judge=str(model)),
            metadata=metadata,
        )

    return score
