"""What a generated report shows without a judge: whether there is one, whether it was cut, and its length."""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import mean_interval, mean_of
from radiology_tasks.core.solvers import GENERATION_KEY
from radiology_tasks.core.unscored import judged_score

LENGTH_KEYS = ("words", "characters", "output_tokens")
"""Length of each written report: words (split at white space), characters, and the generator's output tokens."""

FLAG_KEYS = ("truncated", "empty")
"""1 or 0 per sample: the report was cut at its budget or by the context window; there is no report."""

USAGE_NOT_REPORTED = "usage_not_reported"
"""Reason code for ``output_tokens`` when the provider reported no token usage."""


def _problem(report: str, generation: dict[str, Any]) -> tuple[str, str] | None:
    """Why the sample has no report (reason code, detail), or None when it has one."""
    if generation.get("error"):
        code, _, detail = str(generation["error"]).partition(": ")
        return code, detail
    if not report.strip():
        return "no_response", "the generator returned an empty report"
    return None


def report_score(report: str, generation: dict[str, Any]) -> Score:
    """The sample's score from its report text and the solver's ``generation`` record.

    A missing or empty report leaves the lengths unscored with its reason (Inspect's ``Score.reason`` is then
    ``no_response``); ``truncated`` and ``empty`` are always set.
    """
    problem = _problem(report, generation)
    flags = {"truncated": 1.0 if generation.get("truncated") else 0.0, "empty": 1.0 if problem else 0.0}
    metadata = {GENERATION_KEY: generation}
    if problem is not None:
        values: dict[str, float | None] = {**dict.fromkeys(LENGTH_KEYS), **flags}
        missing = dict.fromkeys(LENGTH_KEYS, problem)
        return judged_score(values, missing, policy="exclude", bounded=(), metadata=metadata)
    tokens = generation.get("output_tokens")
    values = {
        "words": float(len(report.split())),
        "characters": float(len(report)),
        "output_tokens": float(tokens) if tokens else None,
        **flags,
    }
    unreported = {} if tokens else {"output_tokens": (USAGE_NOT_REPORTED, "the provider reported no usage")}
    return judged_score(values, unreported, policy="exclude", bounded=(), answer=report, metadata=metadata)


@scorer(metrics=[])
def generated_report() -> Scorer:
    """Score each generated report without a judge: its length, and whether it is missing or was truncated."""

    async def score(state: TaskState, target: Target) -> Score:
        report = state.output.completion if state.output else ""
        return report_score(report, dict(state.metadata.get(GENERATION_KEY) or {}))

    return score


@metric
def report_shares() -> Metric:
    """Shares of the samples whose report was truncated and whose report is missing or empty.

    Returns:
        A metric giving ``truncated_share`` and ``empty_share`` (NaN with no samples).
    """

    def compute(scores: list[SampleScore]) -> Value:
        def share(key: str) -> float:
            flags = [_flag(sample, key) for sample in scores]
            return sum(flags) / len(flags) if flags else math.nan

        return {f"{key}_share": share(key) for key in FLAG_KEYS}

    return compute


def _flag(sample: SampleScore, key: str) -> float:
    value = sample.score.value
    return float(value[key]) if isinstance(value, dict) else math.nan


def report_metrics() -> ReportMetrics:
    """The run's summary (the mean length in words with its interval, the shares truncated and empty) and the
    report's metrics (the mean lengths in characters and output tokens)."""
    main, *others = LENGTH_KEYS
    return ReportMetrics(
        headline=[mean_of(main), mean_interval(main), report_shares()],
        secondary=[mean_of(key) for key in others],
    )
