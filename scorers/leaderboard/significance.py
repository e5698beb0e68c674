"""Statistics for ranking systems: a bootstrap interval for each system's mean, and paired tests between systems.

Every function takes per-sample values already aligned by sample id (a missing score is given as the worst value
by the caller, so a system cannot improve its mean by losing samples). Randomness is seeded; the number of
resamples is part of every result so a table can state it. numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Interval:
    """A statistic with its percentile bootstrap interval: a mean, a statistic of the whole sample set (a macro F1)
    or a correlation with experts (`scorers.leaderboard.agreement.TauInterval`).

    Attributes:
        value: The statistic over all samples.
        low: Lower end of the interval.
        high: Upper end of the interval.
        n: Samples (or units) resampled.
        confidence: Confidence level of the interval.
        resamples: Bootstrap resamples drawn.
    """

    value: float
    low: float
    high: float
    n: int
    confidence: float
    resamples: int

    def figure(self) -> dict[str, float | int]:
        """The statistic as a board shows it: its value, the interval's ends and the samples."""
        return {"value": self.value, "ci_low": self.low, "ci_high": self.high, "n": self.n}


@dataclass(frozen=True)
class PairedTest:
    """Two systems compared on the same samples.

    Attributes:
        difference: mean(a) - mean(b).
        bootstrap_p: Two-sided paired bootstrap p-value: the share of resampled mean differences at least as far
            from the observed difference as the observed difference is from zero (the bootstrap distribution
            shifted to the null of no difference), counted with the +1 correction.
        randomization_p: Two-sided approximate randomization p-value: the share of random swaps of the two
            systems' values within samples whose mean difference is at least as large in absolute value
            (scipy's paired permutation test; exact when 2**n is at most the number of resamples).
        n: Samples compared.
        resamples: Resamples of each test.
    """

    difference: float
    bootstrap_p: float
    randomization_p: float
    n: int
    resamples: int


def _checked(values: Sequence[float], name: str) -> list[float]:
    out = [float(v) for v in values]
    if not out:
        raise ValueError(f"{name}: no values")
    if any(v != v for v in out):
        raise ValueError(f"{name}: NaN among the values; give missing scores their worst value first")
    return out


def mean_interval(
    values: Sequence[float], *, confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> Interval:
    """The mean of `values` with its percentile bootstrap interval: the run summary's own (a constant or one value
    gives the mean as both bounds)."""
    import numpy as np

    from radiology_tasks.core.metrics import bootstrap_mean_interval

    data = _checked(values, "mean_interval")
    mean = float(np.mean(data))
    if len(data) < 2:
        return Interval(mean, mean, mean, len(data), confidence, resamples)
    low, high = bootstrap_mean_interval(data, n_resamples=resamples, confidence=confidence, seed=seed)
    return Interval(mean, low, high, len(data), confidence, resamples)


def paired_bootstrap_p(a: Sequence[float], b: Sequence[float], *, resamples: int = 1000, seed: int = 0) -> float:
    """Two-sided paired bootstrap p-value of mean(a) - mean(b) (see `PairedTest.bootstrap_p`)."""
    import numpy as np

    differences = np.asarray(_checked(a, "a")) - np.asarray(_checked(b, "b"))
    observed = float(differences.mean())
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(differences), size=(resamples, len(differences)))
    means = differences[picks].mean(axis=1)
    extreme = int(np.sum(np.abs(means - observed) >= abs(observed) - 1e-12))
    return min(1.0, (extreme + 1) / (resamples + 1))


def randomization_p(a: Sequence[float], b: Sequence[float], *, resamples: int = 1000, seed: int = 0) -> float:
    """Two-sided approximate randomization p-value of mean(a) - mean(b) (see `PairedTest.randomization_p`)."""
    import numpy as np
    from scipy.stats import permutation_test

    first, second = np.asarray(_checked(a, "a")), np.asarray(_checked(b, "b"))
    if np.array_equal(first, second):
        return 1.0

    def mean_difference(x: np.ndarray, y: np.ndarray, axis: int) -> np.ndarray:
        difference: np.ndarray = np.mean(x, axis=axis) - np.mean(y, axis=axis)
        return difference

    result = permutation_test(
        (first, second),
        mean_difference,
        permutation_type="samples",
        vectorized=True,
        n_resamples=resamples,
        alternative="two-sided",
        rng=np.random.default_rng(seed),
    )
    return float(result.pvalue)


def paired_test(a: Sequence[float], b: Sequence[float], *, resamples: int = 1000, seed: int = 0) -> PairedTest:
    """Both paired tests of two systems' values on the same samples, in the same order."""
    if len(a) != len(b):
        raise ValueError(f"paired tests need the same samples: {len(a)} values against {len(b)}")
    first, second = _checked(a, "a"), _checked(b, "b")
    return PairedTest(
        difference=sum(first) / len(first) - sum(second) / len(second),
        bootstrap_p=paired_bootstrap_p(first, second, resamples=resamples, seed=seed),
        randomization_p=randomization_p(first, second, resamples=resamples, seed=seed),
        n=len(first),
        resamples=resamples,
    )
