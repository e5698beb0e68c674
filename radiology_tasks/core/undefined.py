"""Why a statistic has no value: the plain-language reason a report prints where the number would be NaN.

A correlation needs at least two samples that carry both values, and neither value may be constant over them;
a bootstrap interval needs resamples that are not all constant. These functions say which of those failed, in
words a reader can act on (rate more samples, check a judge that gives everything the same score, ...).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

CONSTANT = "a constant has no correlation"
"""Said after naming a constant series: why that makes the correlation undefined."""


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def correlation_undefined(
    x: Sequence[float | None], y: Sequence[float | None], *, x_name: str, y_name: str, unit: str = "sample"
) -> str | None:
    """Why the correlation of `x` and `y`, over the positions where both have a value, is undefined.

    The rule is the one `radiology_tasks.core.agreement.correlate` and the suite's correlation matrix follow:
    fewer than two usable pairs, or a constant series over them.

    Args:
        x: The first series (None or NaN = no value).
        y: The second series, in the same order.
        x_name: What `x` is, as a sentence names it (e.g. ``"the judge's vert"``).
        y_name: What `y` is (e.g. ``"the expert score"``).
        unit: What one position is (``"sample"``, ``"held-out sample"``, ``"pair"``).

    Returns:
        The reason, or None when the correlation is defined.
    """
    pairs = [
        (float(a), float(b))
        for a, b in zip(x, y, strict=True)
        if a is not None and b is not None and not math.isnan(a) and not math.isnan(b)
    ]
    n = len(pairs)
    both = f"a {x_name} value" if x_name == y_name else f"both {x_name} and {y_name}"
    if n == 0:
        return f"no {unit} has {both}"
    if n == 1:
        return f"only 1 {unit} has {both}; a correlation needs at least 2"
    for name, values in ((x_name, {a for a, _ in pairs}), (y_name, {b for _, b in pairs})):
        if len(values) == 1:
            return f"{name} is {next(iter(values)):g} on all {_plural(n, unit)} with both values: {CONSTANT}"
    return None


def interval_undefined(n_pairs: int, n_resamples: int) -> str:
    """Why a bootstrap interval over `n_pairs` usable pairs is undefined (when its point value is defined).

    Args:
        n_pairs: Pairs the statistic was computed on.
        n_resamples: Bootstrap resamples asked for.
    """
    if n_resamples == 0:
        return "no bootstrap resamples were drawn (resamples = 0)"
    if n_pairs < 2:
        return f"a bootstrap needs at least 2 pairs, got {n_pairs}"
    return f"every one of the {n_resamples} bootstrap resamples of the {n_pairs} pairs is constant"


def not_finite(value: float) -> str:
    """Why a figure a metric gave as an infinite `value` is reported as undefined rather than as that number."""
    return f"the metric gave {value:g}, which is not a finite number"


def not_numbers(value: Any, where: str) -> list[str]:
    """The place of every NaN or infinity in `value` (nested dicts and lists) below `where`, e.g.
    ``leaderboard.boards[0].score``: a table's JSON holds an undefined figure as null with its reason, never so."""
    if isinstance(value, float) and not math.isfinite(value):
        return [where]
    if isinstance(value, dict):
        return [place for key, item in value.items() for place in not_numbers(item, f"{where}.{key}")]
    if isinstance(value, list):
        return [place for i, item in enumerate(value) for place in not_numbers(item, f"{where}[{i}]")]
    return []
