"""CRIMSON's headline metrics beside the mean: its bootstrap interval and its agreement with experts."""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.agreement import correlate
from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.scorers.crimson.preference import preference_accuracy
from radiology_tasks.scorers.crimson.reading import MAIN_KEY
from radiology_tasks.scorers.leaderboard.significance import mean_interval

_NAN = float("nan")


def _value(sample: SampleScore) -> float | None:
    value = sample.score.value
    number = value.get(MAIN_KEY) if isinstance(value, dict) else None
    if not isinstance(number, int | float) or isinstance(number, bool) or math.isnan(number):
        return None
    return float(number)


def _metadata(sample: SampleScore) -> dict[str, Any]:
    return sample.score.metadata or {}


@metric
def crimson_interval(confidence: float = 0.95, resamples: int = 1000, seed: int = 0) -> Metric:
    """The percentile bootstrap interval of the mean CRIMSON score (over the values the mean is taken of).

    Returns:
        A metric giving ``crimson_ci_low`` and ``crimson_ci_high`` (NaN without a value).
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = [v for v in map(_value, scores) if v is not None]
        if not values:
            return {"crimson_ci_low": _NAN, "crimson_ci_high": _NAN}
        interval = mean_interval(values, confidence=confidence, resamples=resamples, seed=seed)
        return {"crimson_ci_low": interval.low, "crimson_ci_high": interval.high}

    return compute


@metric
def expert_agreement(confidence: float = 0.95, resamples: int = 1000, seed: int = 0) -> Metric:
    """Agreement of the judge's CRIMSON scores with the experts' scores of the same candidates.

    Kendall's tau-b with its bootstrap interval (`radiology_tasks.core.agreement.correlate`), and the pairwise
    preference accuracy over candidates of one reference (`scorers.crimson.preference`). Samples without an expert
    score, unscored, or filled in by ``-T unscored=worst`` are left out.

    Returns:
        A metric giving ``crimson_kendall_tau`` with ``_ci_low``/``_ci_high``, ``crimson_preference_accuracy``,
        ``crimson_preference_pairs`` and ``crimson_expert_n`` (samples compared); NaN where undefined.
    """

    def compute(scores: list[SampleScore]) -> Value:
        rows = []
        for sample in scores:
            metadata = _metadata(sample)
            value, expert = _value(sample), metadata.get("expert_score")
            if value is None or expert is None or is_filled_in(metadata, MAIN_KEY):
                continue
            rows.append((str(metadata.get("reference_key")), float(expert), value))
        tau = low = high = _NAN
        if rows:
            agreement = correlate(
                [r[2] for r in rows], [r[1] for r in rows], n_resamples=resamples, confidence=confidence, seed=seed
            )
            tau, (low, high) = agreement.kendall_tau, agreement.kendall_tau_ci
        preferences = preference_accuracy(rows)
        return {
            "crimson_kendall_tau": tau,
            "crimson_kendall_tau_ci_low": low,
            "crimson_kendall_tau_ci_high": high,
            "crimson_preference_accuracy": preferences.accuracy,
            "crimson_preference_pairs": float(preferences.pairs),
            "crimson_expert_n": float(len(rows)),
        }

    return compute
