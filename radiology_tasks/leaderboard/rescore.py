"""Recompute every score of a log from the judge answers stored in it, and name the samples whose score differs.

A score that was edited after the run no longer follows from the judge's answer next to it. Only tasks with a
rule here can be submitted; each rule uses the task's own reading code, so it cannot drift from the scorer.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from radiology_tasks.core.unscored import judged_score
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from scorers.green_vert.reading import BOUNDED_KEYS, read_scores, score_keys

_TOLERANCE = 1e-9


@dataclass(frozen=True)
class RankedScore:
    """The score a task is ranked on: its key, and whether the task keeps it in [0, 1]."""

    key: str
    bounded: bool


def _green_vert_prompt(run: RunEvidence) -> str:
    return "green" if run.short_task == "green" else str(run.task_args.get("prompt") or "vert")


def _green_vert_expected(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict the GREEN/VERT scorer gives for this sample's stored judge answer, under the run's settings."""
    prompt = _green_vert_prompt(run)
    keys = score_keys(prompt)  # type: ignore[arg-type]
    policy = run.task_args.get("unscored") or "worst"
    answer = sample.metadata.get("judge_answer")
    logged_reasons = sample.metadata.get("unscored") or {}
    if answer is None:
        values: dict[str, float | None] = dict.fromkeys(keys)
        missing = {key: (str(logged_reasons.get(key, "unscored")), "") for key in keys}
    else:
        reading = read_scores(
            answer,
            prompt=prompt,  # type: ignore[arg-type]
            candidate=sample.candidate,
            missing_categories=run.task_args.get("missing_categories") or "zero",
            zero_matched=run.task_args.get("zero_matched") or "perfect_if_no_errors",
        )
        values = reading.values
        missing = {key: ("invalid_response_format", problem) for key, problem in reading.problems.items()}
    score = judged_score(values, missing, policy=policy, bounded=BOUNDED_KEYS)
    return dict(score.value)  # type: ignore[arg-type]


def _green_vert_main(run: RunEvidence) -> RankedScore:
    return RankedScore(score_keys(_green_vert_prompt(run))[0], True)  # type: ignore[arg-type]


@dataclass(frozen=True)
class _Rule:
    expected: Callable[[RunEvidence, SampleEvidence], dict[str, float]]
    ranked: Callable[[RunEvidence], RankedScore]


_RULES = {
    "green": _Rule(_green_vert_expected, _green_vert_main),
    "vert": _Rule(_green_vert_expected, _green_vert_main),
}

RESCORABLE_TASKS = tuple(sorted(_RULES))


def ranked_score(run: RunEvidence) -> RankedScore:
    """The score `run`'s task is ranked on.

    Raises:
        ValueError: for a task without a re-scoring rule.
    """
    if run.short_task not in _RULES:
        raise ValueError(f"task {run.task} cannot be re-scored from its log (supported: {', '.join(RESCORABLE_TASKS)})")
    return _RULES[run.short_task].ranked(run)


def _same(logged: float | None, expected: float) -> bool:
    if logged is None:
        return math.isnan(expected)
    return not math.isnan(expected) and abs(logged - expected) <= _TOLERANCE


def _shown(value: float | None) -> str:
    return "missing" if value is None or math.isnan(value) else f"{value:.6g}"


def rescoring_violations(run: RunEvidence) -> list[str]:
    """One line for each sample whose logged score is not what its stored judge answer gives.

    Also checks that the stored answer is one the judge's model events actually returned (when the log keeps
    its events), so an answer rewritten to match a forged score is caught as well.
    """
    if run.short_task not in _RULES:
        return [f"task {run.task} cannot be re-scored from its log (supported: {', '.join(RESCORABLE_TASKS)})"]
    expected_of = _RULES[run.short_task].expected
    lines = []
    for sample in run.samples:
        if sample.error is not None:
            continue
        expected = expected_of(run, sample)
        for key, value in expected.items():
            logged = sample.values.get(key)
            if not _same(logged, value):
                shown = f"logged {key} {_shown(logged)} but its stored judge answer gives {_shown(value)}"
                lines.append(f"sample {sample.id}: {shown}")
        answer = sample.metadata.get("judge_answer")
        if answer is not None and sample.has_events and answer not in {c.completion for c in sample.judge_calls}:
            lines.append(f"sample {sample.id}: the stored judge answer is not one the judge returned in this run")
    return lines
