"""The ranking task's figures: the share of cases ordered as expected, with its interval, ties and unscored apart.

Per case the scorer gives ``accuracy`` (1 right, 0 wrong or tie) and ``tie`` (1 tie, 0 otherwise), both NaN when a
candidate could not be scored. Accuracy is the share of scored cases that came out right; the tie share is that of
scored cases the metric did not tell apart; the rest were wrong. Unscored cases are counted over all cases (the shared
`unscored_share`), and per reason in the report.
"""

from __future__ import annotations

import math
import re

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.unscored import unscored_reason
from radiology_tasks.ranking_tests.scorer import ACCURACY, TIE

_NAN = float("nan")


def _outcome(sample: SampleScore) -> str | None:
    """right / wrong / tie, or None when the case is unscored."""
    value = sample.score.value
    ordered = value.get(ACCURACY) if isinstance(value, dict) else None
    if not isinstance(ordered, int | float) or math.isnan(ordered):
        return None
    if ordered == 1:
        return "right"
    return "tie" if isinstance(value, dict) and value.get(TIE) == 1 else "wrong"


def wilson_interval(right: int, n: int, confidence: float) -> tuple[float, float]:
    """SciPy's Wilson score interval for `right` successes in `n` trials; NaN for no trial."""
    if n == 0:
        return _NAN, _NAN
    from scipy.stats import binomtest

    interval = binomtest(right, n).proportion_ci(confidence_level=confidence, method="wilson")
    return float(interval.low), float(interval.high)


@metric
def ranking_accuracy(confidence: float = 0.95) -> Metric:
    """The headline: accuracy over scored cases with its Wilson interval, and the tie share.

    Args:
        confidence: The interval's confidence level.

    Returns:
        A metric giving ``accuracy_mean``, ``accuracy_ci_low``, ``accuracy_ci_high`` and ``tie_share`` over scored
        cases; nothing when no case was scored (the unscored share says why, and the report says so).
    """

    def compute(scores: list[SampleScore]) -> Value:
        scored = [o for o in (_outcome(sample) for sample in scores) if o is not None]
        if not scored:
            return {}
        right = scored.count("right")
        low, high = wilson_interval(right, len(scored), confidence)
        return {
            f"{ACCURACY}_mean": right / len(scored),
            f"{ACCURACY}_ci_low": low,
            f"{ACCURACY}_ci_high": high,
            "tie_share": scored.count("tie") / len(scored),
        }

    return compute


@metric
def unscored_reasons() -> Metric:
    """How many cases were left unscored, per reason code (``unscored_<code>``; nothing when none was)."""

    def compute(scores: list[SampleScore]) -> Value:
        counts: dict[str, float] = {}
        for sample in scores:
            code = unscored_reason(sample.score.metadata, ACCURACY)
            if code is not None:
                counts[f"unscored_{code}"] = counts.get(f"unscored_{code}", 0.0) + 1
        return counts

    return compute


def category_key(category: str) -> str:
    """The metric key of a category's accuracy: its words in lower case joined by ``_``, then ``_accuracy``."""
    words = re.findall(r"[a-z0-9]+", category.lower())
    return "_".join(words or ["uncategorised"]) + "_accuracy"


@metric
def category_accuracy() -> Metric:
    """Accuracy per category (the share of its scored cases ordered as expected; NaN when none was scored)."""

    def compute(scores: list[SampleScore]) -> Value:
        by_category: dict[str, list[str | None]] = {}
        for sample in scores:
            category = str((sample.score.metadata or {}).get("category", ""))
            by_category.setdefault(category_key(category), []).append(_outcome(sample))
        result: dict[str, float] = {}
        for key, outcomes in by_category.items():
            scored = [o for o in outcomes if o is not None]
            result[key] = scored.count("right") / len(scored) if scored else _NAN
        return result

    return compute
