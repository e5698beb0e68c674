"""Statistics for ranking judges by their agreement with experts: Kendall's tau-b with a bootstrap interval,
and a paired bootstrap test of the difference in tau between two judges on the same samples.

"VERT: Reliable LLM Judges for Radiology Report Evaluation" (section 5.1) compares judges by Kendall's tau
against radiologists' scores; these functions add what a ranking needs on top of the point estimate. Every
function takes (expert score, judge score) pairs already aligned by sample id. A bootstrap resample whose tau
is undefined (all expert scores, or all judge scores, equal in it) is left out of the interval and the test;
`valid` counts the resamples kept. Randomness is seeded; numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

Pair = tuple[float, float]
"""(expert score, judge score) of one sample."""


@dataclass(frozen=True)
class TauInterval:
    """Kendall's tau-b of judge against experts, with its percentile bootstrap interval over samples.

    Attributes:
        tau: Tau-b over all samples.
        low: Lower end of the interval.
        high: Upper end of the interval.
        n: Samples.
        confidence: Confidence level of the interval.
        resamples: Bootstrap resamples drawn.
        valid: Resamples whose tau was defined (the interval is taken over these).
    """

    tau: float
    low: float
    high: float
    n: int
    confidence: float
    resamples: int
    valid: int


@dataclass(frozen=True)
class TauDifference:
    """Two judges' taus against the same experts on the same samples.

    Attributes:
        difference: tau(a) - tau(b).
        bootstrap_p: Two-sided paired bootstrap p-value: samples are resampled together for both judges; the
            share of resampled differences at least as far from the observed difference as the observed
            difference is from zero (the bootstrap distribution shifted to the null of no difference), with the
            +1 correction, over the valid resamples.
        n: Samples compared.
        resamples: Bootstrap resamples drawn.
        valid: Resamples where both taus were defined.
    """

    difference: float
    bootstrap_p: float
    n: int
    resamples: int
    valid: int


def _checked(pairs: Sequence[Pair], name: str) -> list[Pair]:
    out = [(float(expert), float(judge)) for expert, judge in pairs]
    if not out:
        raise ValueError(f"{name}: no samples")
    if any(math.isnan(expert) or math.isnan(judge) for expert, judge in out):
        raise ValueError(f"{name}: NaN among the scores; leave unscored samples out first")
    return out


def kendall_tau(pairs: Sequence[Pair]) -> float:
    """Kendall's tau-b of the judge's scores against the experts' (scipy.stats.kendalltau); NaN when undefined."""
    from scipy.stats import kendalltau

    checked = _checked(pairs, "kendall_tau")
    if len(checked) < 2:
        return math.nan
    with warnings.catch_warnings():
        # A constant input has no tau: scipy warns and returns NaN, which is the answer here.
        warnings.simplefilter("ignore")
        tau = kendalltau([e for e, _ in checked], [j for _, j in checked]).statistic
    return float(tau)


def _resampled_taus(pairs: list[Pair], picks: Sequence[Sequence[int]]) -> list[float]:
    return [kendall_tau([pairs[i] for i in pick]) for pick in picks]


def _picks(n: int, resamples: int, seed: int) -> list[list[int]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    return [[int(i) for i in row] for row in rng.integers(0, n, size=(resamples, n))]


def tau_interval(
    pairs: Sequence[Pair], *, confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> TauInterval:
    """Tau-b of `pairs` with its percentile bootstrap interval (samples resampled with replacement).

    Raises:
        ValueError: for no samples, NaN scores, or a tau that is undefined on all the samples.
    """
    import numpy as np

    checked = _checked(pairs, "tau_interval")
    tau = kendall_tau(checked)
    if math.isnan(tau):
        raise ValueError("tau_interval: Kendall's tau is undefined (fewer than 2 samples, or constant scores)")
    taus = [t for t in _resampled_taus(checked, _picks(len(checked), resamples, seed)) if not math.isnan(t)]
    if not taus:
        return TauInterval(tau, tau, tau, len(checked), confidence, resamples, 0)
    tail = (1 - confidence) / 2 * 100
    low, high = (float(v) for v in np.percentile(taus, [tail, 100 - tail]))
    return TauInterval(tau, low, high, len(checked), confidence, resamples, len(taus))


def tau_difference_test(a: Sequence[Pair], b: Sequence[Pair], *, resamples: int = 1000, seed: int = 0) -> TauDifference:
    """Paired bootstrap test of tau(a) - tau(b), the two judges' pairs given for the same samples in the same order.

    Raises:
        ValueError: for different numbers of samples, NaN scores, or a tau undefined on all the samples.
    """
    if len(a) != len(b):
        raise ValueError(f"paired tests need the same samples: {len(a)} against {len(b)}")
    first, second = _checked(a, "a"), _checked(b, "b")
    observed = kendall_tau(first) - kendall_tau(second)
    if math.isnan(observed):
        raise ValueError("tau_difference_test: Kendall's tau is undefined for a judge on these samples")
    picks = _picks(len(first), resamples, seed)
    differences = [
        ta - tb
        for ta, tb in zip(_resampled_taus(first, picks), _resampled_taus(second, picks), strict=True)
        if not (math.isnan(ta) or math.isnan(tb))
    ]
    extreme = sum(1 for d in differences if abs(d - observed) >= abs(observed) - 1e-12)
    p = min(1.0, (extreme + 1) / (len(differences) + 1))
    return TauDifference(observed, p, len(first), resamples, len(differences))
