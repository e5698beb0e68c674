"""Which scores a GREEN-family judge answer gives: each score from only the parts of the answer it needs.

    score key                        needs                                     unreadable when
    vert / formula / rubric / score  [Overall Accuracy Score]                  absent, unreadable, conflicting
    green, green_f1                  [Clinically Significant Errors], matched  either is absent or unreadable
    green_ec                         [Clinically Significant Errors]           absent or unreadable

`[Clinically Insignificant Errors]` feeds no score (only the formula check kept in the metadata), so an
answer without it loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from radiology_tasks.scorers.report_judge.parse import (
    AnswerReading,
    AssessmentFormatError,
    MissingCategories,
    parse_score_answer,
    read_answer,
)
from radiology_tasks.scorers.report_judge.scores import ZeroMatchedPolicy, formula_score, green, green_ec, green_f1

JudgePrompt = Literal["green", "vert", "formula", "rubric", "score"]
JUDGE_PROMPTS: tuple[JudgePrompt, ...] = ("green", "vert", "formula", "rubric", "score")
COUNT_KEYS = ("green", "green_ec", "green_f1")
BOUNDED_KEYS = frozenset({"green", "green_f1", "vert", "formula", "rubric", "score"})
"""Scores in [0, 1]; `green_ec` is an error count with no bottom to fill in."""


def score_keys(prompt: JudgePrompt) -> list[str]:
    """The keys of `Score.value` for a judge prompt; the first is the main score."""
    if prompt == "score":
        return ["score"]
    return list(COUNT_KEYS) if prompt == "green" else [prompt, *COUNT_KEYS]


@dataclass(frozen=True)
class ScoreReading:
    """The scores read from one answer.

    Attributes:
        answer: The judge's raw answer.
        values: Every score key of the prompt; None where the answer does not give it.
        problems: ``key -> "reason: detail"`` for each None value.
        parts: The answer's parts as read (None for the score-only prompt).
        formula_check: M / (M + 2S + 0.5I) from the judge's own counts when all three are readable (kept in
            the metadata to check a formula-prompt judge's arithmetic).
    """

    answer: str
    values: dict[str, float | None]
    problems: dict[str, str]
    parts: AnswerReading | None = None
    formula_check: float | None = None


def _problem(error: AssessmentFormatError) -> str:
    return f"{error.reason}: {error.detail}"


def read_scores(
    answer: str,
    *,
    prompt: JudgePrompt,
    candidate: str | None,
    missing_categories: MissingCategories = "zero",
    zero_matched: ZeroMatchedPolicy = "perfect_if_no_errors",
) -> ScoreReading:
    """Read every score of `prompt` from a judge answer, each from its own inputs.

    Args:
        answer: The judge's answer.
        prompt: The judge prompt that was asked.
        candidate: The candidate report shown to the judge (its quotations are not verdicts).
        missing_categories: How terse error sections read (see `scorers.report_judge.parse`).
        zero_matched: GREEN's value when no finding matched (see `scorers.report_judge.scores`).
    """
    if prompt == "score":
        try:
            return ScoreReading(answer, {"score": parse_score_answer(answer)}, {})
        except AssessmentFormatError as error:
            return ScoreReading(answer, {"score": None}, {"score": _problem(error)})

    parts = read_answer(answer, candidate=candidate, missing_categories=missing_categories)
    values: dict[str, float | None] = {}
    problems: dict[str, str] = {}

    def unreadable(key: str, error: AssessmentFormatError) -> None:
        values[key], problems[key] = None, _problem(error)

    score, significant, insignificant, matched = parts.score, parts.significant, parts.insignificant, parts.matched
    if prompt != "green":
        if isinstance(score, AssessmentFormatError):
            unreadable(prompt, score)
        else:
            values[prompt] = float(score)
    for key, rule in (("green", green), ("green_f1", green_f1)):
        if isinstance(significant, AssessmentFormatError):
            unreadable(key, significant)
        elif isinstance(matched, AssessmentFormatError):
            unreadable(key, matched)
        else:
            values[key] = rule(matched, significant.total, zero_matched=zero_matched)
    if isinstance(significant, AssessmentFormatError):
        unreadable("green_ec", significant)
    else:
        values["green_ec"] = float(green_ec(significant))
    check = None
    errors = AssessmentFormatError
    if (
        not isinstance(significant, errors)
        and not isinstance(insignificant, errors)
        and not isinstance(matched, errors)
    ):
        check = formula_score(matched, significant.total, insignificant.total, zero_matched=zero_matched)
    return ScoreReading(answer, {key: values[key] for key in score_keys(prompt)}, problems, parts, check)
