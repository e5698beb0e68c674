"""Intervals and paired tests for a statistic of a whole sample set (a macro F1), not a mean of per-sample values.

Such a statistic cannot be split into per-sample numbers, so the bootstrap resamples the samples themselves and
recomputes it on each resample; the randomization test swaps two systems' samples at random positions and
recomputes both statistics. Both are seeded and state their resamples, like `scorers.leaderboard.significance`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeVar

from radiology_tasks.scorers.leaderboard.significance import Interval, PairedTest

Unit = TypeVar("Unit")


def _percentile(values: list[float], share: float) -> float:
    import numpy as np

    return float(np.quantile(np.asarray(values), share))


def statistic_interval(
    units: Sequence[Unit],
    statistic: Callable[[list[Unit]], float],
    *,
    confidence: float = 0.95,
    resamples: int = 1000,
    seed: int = 0,
) -> Interval:
    """`statistic(units)` with its percentile bootstrap interval over resampled units."""
    import numpy as np

    items = list(units)
    if not items:
        raise ValueError("statistic_interval: no units")
    observed = statistic(items)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(items), size=(resamples, len(items)))
    values = [statistic([items[i] for i in row]) for row in picks]
    tail = (1 - confidence) / 2
    return Interval(
        observed, _percentile(values, tail), _percentile(values, 1 - tail), len(items), confidence, resamples
    )


def paired_statistic_test(
    a: Sequence[Unit],
    b: Sequence[Unit],
    statistic: Callable[[list[Unit]], float],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> PairedTest:
    """Paired bootstrap and approximate randomization tests of statistic(a) - statistic(b).

    `a[i]` and `b[i]` are the two systems' results on the same sample. The bootstrap p-value is the share of
    resampled differences at least as far from the observed one as the observed one is from zero (+1 corrected);
    the randomization p-value is the share of random within-sample swaps whose difference is at least as large in
    absolute value (+1 corrected).
    """
    import numpy as np

    first, second = list(a), list(b)
    if len(first) != len(second) or not first:
        raise ValueError(f"paired tests need the same, non-empty samples: {len(first)} against {len(second)}")
    observed = statistic(first) - statistic(second)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(first), size=(resamples, len(first)))
    boot = [statistic([first[i] for i in row]) - statistic([second[i] for i in row]) for row in picks]
    extreme = sum(1 for d in boot if abs(d - observed) >= abs(observed) - 1e-12)
    swaps = rng.integers(0, 2, size=(resamples, len(first))).astype(bool)
    swapped = 0
    for row in swaps:
        x = [s if flip else f for f, s, flip in zip(first, second, row, strict=True)]
        y = [f if flip else s for f, s, flip in zip(first, second, row, strict=True)]
        if abs(statistic(x) - statistic(y)) >= abs(observed) - 1e-12:
            swapped += 1
    return PairedTest(
        difference=observed,
        bootstrap_p=min(1.0, (extreme + 1) / (resamples + 1)),
        randomization_p=min(1.0, (swapped + 1) / (resamples + 1)),
        n=len(first),
        resamples=resamples,
    )
