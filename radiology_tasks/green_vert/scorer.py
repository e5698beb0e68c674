"""The GREEN/VERT judge scorer: render the prompt, ask the grader, parse strictly, score."""

from __future__ import annotations

import math
from typing import Any, Literal, get_args

from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.constrain import ConstrainMode, constrained_config
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import grader_model
from radiology_tasks.core.metrics import parse_failure_rate
from radiology_tasks.core.records import ReportPair
from scorers.contract import OutputContract
from scorers.green_vert.grammar import SCORE_ONLY_CONTRACT, assessment_contract
from scorers.green_vert.parse import AssessmentFormatError, parse_assessment, parse_score_answer
from scorers.green_vert.scores import assessment_scores
from scorers.untrusted import neutralize_candidate
from templates import render

JudgePrompt = Literal["green", "vert", "formula", "rubric", "score"]
ZeroMatched = Literal["perfect_if_no_errors", "original"]
JUDGE_PROMPTS: tuple[JudgePrompt, ...] = ("green", "vert", "formula", "rubric", "score")
# The score-only prompt is the one `radiology-tasks export-sft` trains fine-tuned judges on.
TEMPLATES: dict[JudgePrompt, str] = {p: f"green_vert/{p}" for p in JUDGE_PROMPTS} | {"score": "green_vert/sft_judge"}


def score_keys(prompt: JudgePrompt) -> list[str]:
    """The keys of `Score.value` for a judge prompt; the first is the main score."""
    green_keys = ["green", "green_ec", "green_f1"]
    if prompt == "score":
        return ["score"]
    return green_keys if prompt == "green" else [prompt, *green_keys]


def judge_contract(prompt: JudgePrompt) -> OutputContract:
    """The output contract of a judge prompt (sectioned text, with a score section except for GREEN)."""
    if prompt == "score":
        return SCORE_ONLY_CONTRACT
    return assessment_contract(prompt, with_score=prompt != "green")


def unscored(keys: list[str], reason: str, metadata: dict[str, Any], explanation: str | None = None) -> Score:
    """An unscored judgement whose value is NaN under every key.

    Inspect drops samples whose whole value is NaN before calling metrics; keeping the dict shape lets the
    parse-failure metric see and count them, while every other metric skips the NaNs.
    """
    return Score(
        value={k: math.nan for k in keys},
        reason=reason,
        explanation=explanation,
        metadata=metadata,
    )


def _expert_metadata(pair: ReportPair) -> dict[str, Any]:
    expert = pair.expert
    return {
        "expert_score": expert.normalized_score if expert else None,
        "expert_significant": expert.significant.as_dict() if expert and expert.significant else None,
        "expert_insignificant": expert.insignificant.as_dict() if expert and expert.insignificant else None,
    }


@scorer(metrics=[parse_failure_rate()])
def report_judge(
    prompt: JudgePrompt = "vert",
    *,
    examples: list[dict[str, str]] | None = None,
    error_descriptions: bool = False,
    constrain: ConstrainMode = "auto",
    zero_matched: ZeroMatched = "perfect_if_no_errors",
    max_tokens: int = 1024,
    temperature: float = 0.0,
) -> Scorer:
    """Judge the candidate report against the reference with the `grader` model.

    Args:
        prompt: `green` (error counts, GREEN computed from them), `vert` (direct overall score),
            `formula` (judge computes M / (M + 2S + 0.5I)), `rubric` (five score bands) or `score`
            (the score-only prompt that fine-tuned judges learn from `radiology-tasks export-sft`).
        examples: Few-shot examples `{reference, candidate, answer}` placed in the prompt.
        error_descriptions: Add the team's description of each error category (a)-(f).
        constrain: How to constrain the judge's output (`auto` picks what the backend understands).
        zero_matched: GREEN when no findings match: `perfect_if_no_errors` gives 1.0 if there are no
            significant errors either, `original` gives 0 like the original GREEN code.
        max_tokens: Upper bound on the judge's answer length.
        temperature: Judge sampling temperature.
    """
    if prompt not in JUDGE_PROMPTS:
        raise InputError(f"prompt must be one of {', '.join(JUDGE_PROMPTS)}; got {prompt!r}")
    if constrain not in get_args(ConstrainMode):
        raise InputError(f"constrain must be one of {', '.join(get_args(ConstrainMode))}; got {constrain!r}")
    if zero_matched not in get_args(ZeroMatched):
        raise InputError(f"zero_matched must be one of {', '.join(get_args(ZeroMatched))}; got {zero_matched!r}")
    keys = score_keys(prompt)
    contract = judge_contract(prompt)
    # Every report text is neutralised, not only the candidate: a reference or an example that contains a
    # delimiter tag would otherwise break the prompt's structure just as well.
    shots = [
        {**e, "reference": neutralize_candidate(e["reference"]), "candidate": neutralize_candidate(e["candidate"])}
        for e in examples or []
    ]

    async def score(state: TaskState, target: Target) -> Score:
        pair = state.metadata_as(ReportPair)
        metadata: dict[str, Any] = {"prompt": prompt, **_expert_metadata(pair)}
        candidate = state.output.completion if state.output else ""
        if not candidate.strip():
            return unscored(keys, "no_response", metadata)

        judge = grader_model()
        constrained = constrained_config(judge, contract, constrain)
        config = constrained.config.merge(GenerateConfig(max_tokens=max_tokens, temperature=temperature))
        judge_prompt = render(
            TEMPLATES[prompt],
            reference=neutralize_candidate(pair.reference),
            candidate=neutralize_candidate(candidate),
            examples=shots,
            error_descriptions=error_descriptions,
        )
        output = await judge.generate(judge_prompt, config=config)
        answer = output.completion
        metadata |= {
            "judge": str(judge),
            "constraint": constrained.description,
            "judge_answer": answer,
            "judge_input_tokens": output.usage.input_tokens if output.usage else None,
            "judge_output_tokens": output.usage.output_tokens if output.usage else None,
        }
        try:
            if prompt == "score":
                return Score(
                    value={"score": parse_score_answer(answer)}, answer=candidate, explanation=answer, metadata=metadata
                )
            assessment = parse_assessment(answer, require_score=prompt != "green")
        except AssessmentFormatError as error:
            metadata["parse_error"] = f"{error.reason}: {error.detail}"
            return unscored(keys, "invalid_response_format", metadata, explanation=answer)

        derived = assessment_scores(assessment, zero_matched=zero_matched)
        value = {k: float(derived[k]) for k in ("green", "green_ec", "green_f1")}
        if prompt != "green":
            value = {prompt: float(assessment.score), **value}
        metadata |= {
            "matched": assessment.matched,
            "predicted_significant": assessment.significant.as_dict(),
            "predicted_insignificant": assessment.insignificant.as_dict(),
            "formula_check": derived["formula_check"],
        }
        return Score(value=value, answer=candidate, explanation=answer, metadata=metadata)

    return score
