"""Corpus-level aggregations of the lm-eval tasks (lm-eval reports no standard error for these)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from radiology_tasks.core.agreement import correlate

_NAN = float("nan")


def mean_of_scored(values: Sequence[float]) -> float:
    """Mean over the documents that have a number (NaN ones are left out, as Inspect's `mean_of` does)."""
    numbers = [value for value in values if not math.isnan(value)]
    return sum(numbers) / len(numbers) if numbers else _NAN


def _agreement(pairs: Sequence[tuple[float | None, float | None]], name: str, *, higher_is_better: bool) -> float:
    """One correlation of judge scores with expert scores; NaN when fewer than two documents have both."""
    judge = [judged for judged, expert in pairs if judged is not None and expert is not None]
    truth = [expert for judged, expert in pairs if judged is not None and expert is not None]
    if not judge:
        return _NAN
    agreement = correlate(judge, truth, higher_is_better=higher_is_better, n_resamples=0)
    return float(getattr(agreement, name))


def kendall_tau(pairs: Sequence[tuple[float | None, float | None]]) -> float:
    """Kendall's tau-b of the judge's scores with the experts' (`radiology_tasks.core.agreement.correlate`)."""
    return _agreement(pairs, "kendall_tau", higher_is_better=True)


def spearman(pairs: Sequence[tuple[float | None, float | None]]) -> float:
    """Spearman's rho of the judge's scores with the experts'."""
    return _agreement(pairs, "spearman", higher_is_better=True)


def kendall_tau_of_count(pairs: Sequence[tuple[float | None, float | None]]) -> float:
    """Kendall's tau-b of an error count (negated, so agreement is positive) with the experts' scores."""
    return _agreement(pairs, "kendall_tau", higher_is_better=False)


def spearman_of_count(pairs: Sequence[tuple[float | None, float | None]]) -> float:
    """Spearman's rho of an error count (negated) with the experts' scores."""
    return _agreement(pairs, "spearman", higher_is_better=False)


def pooled_mean(lists: Sequence[Sequence[float]]) -> float:
    """Mean of every number of every document's list (e.g. all numeric questions of the corpus)."""
    numbers = [number for values in lists for number in values]
    return sum(numbers) / len(numbers) if numbers else _NAN
