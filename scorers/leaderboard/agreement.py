"""Statistics for ranking judges by their agreement with experts: Kendall's tau-b with a bootstrap interval,
a paired bootstrap test of the difference in tau between two judges on the same samples, and pairwise preference
accuracy with a bootstrap interval over studies.

"VERT: Reliable LLM Judges for Radiology Report Evaluation" (section 5.1) compares judges by Kendall's tau
against radiologists' scores; these functions add what a ranking needs on top of the point estimate. Every
function takes (expert score, judge score) pairs already aligned by sample id. The resamples are drawn as every
other interval of the project draws them (`radiology_tasks.core.agreement.bootstrap_distribution`), and a resample
whose tau is undefined (all expert scores, or all judge scores, equal in it) follows the one rule,
`radiology_tasks.core.agreement.UNDEFINED_RESAMPLE_RULE`; `valid` counts the resamples where it was defined.
Randomness is seeded; numpy and scipy are imported inside the functions.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from radiology_tasks.core.agreement import (
    KendallResampler,
    Preferences,
    bootstrap_distribution,
    interval_of_draws,
    paired_p_value,
)
from radiology_tasks.scorers.leaderboard.significance import Interval

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

Pair = tuple[float, float]
"""(expert score, judge score) of one sample."""


@dataclass(frozen=True)
class TauInterval(Interval):
    """Kendall's tau-b of judge against experts (`value`), with its percentile bootstrap interval over samples.

    Attributes:
        valid: Resamples whose tau was defined (the others count at the bounds).
    """

    valid: int


@dataclass(frozen=True)
class TauDifference:
    """Two judges' taus against the same experts on the same samples.

    Attributes:
        difference: tau(a) - tau(b).
        bootstrap_p: Two-sided paired bootstrap p-value: samples are resampled together for both judges; the
            share of resampled differences at least as far from the observed difference as the observed
            difference is from zero (the bootstrap distribution shifted to the null of no difference), with the
            +1 correction; a resample where either tau is undefined counts as extreme.
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


def _resampled(pairs: list[Pair], resamples: int, seed: int) -> tuple[float, NDArray[np.float64]]:
    """Tau-b of `pairs` and its paired bootstrap distribution (NaN where a resample's tau is undefined)."""
    import numpy as np

    expert, judge = (np.array(side, dtype=float) for side in zip(*pairs, strict=True))
    draws = bootstrap_distribution(len(pairs), KendallResampler(expert, judge), n_resamples=resamples, seed=seed)
    return kendall_tau(pairs), draws


def tau_interval(
    pairs: Sequence[Pair], *, confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> TauInterval:
    """Tau-b of `pairs` with its percentile bootstrap interval (samples resampled with replacement).

    Resamples whose tau is undefined count at the bounds (`UNDEFINED_RESAMPLE_RULE`), as in every other
    interval of a correlation this project gives.

    Raises:
        ValueError: for no samples, NaN scores, or a tau that is undefined on all the samples.
    """
    import numpy as np

    checked = _checked(pairs, "tau_interval")
    tau = kendall_tau(checked)
    if math.isnan(tau):
        raise ValueError("tau_interval: Kendall's tau is undefined (fewer than 2 samples, or constant scores)")
    _, draws = _resampled(checked, resamples, seed)
    low, high = interval_of_draws(draws, confidence=confidence)
    return TauInterval(tau, low, high, len(checked), confidence, resamples, int((~np.isnan(draws)).sum()))


def tau_difference_test(a: Sequence[Pair], b: Sequence[Pair], *, resamples: int = 1000, seed: int = 0) -> TauDifference:
    """Paired bootstrap test of tau(a) - tau(b), the two judges' pairs given for the same samples in the same order.

    A resample where either tau is undefined counts as at least as extreme as the observed difference
    (`UNDEFINED_RESAMPLE_RULE`).

    Raises:
        ValueError: for different numbers of samples, NaN scores, or a tau undefined on all the samples.
    """
    import numpy as np

    if len(a) != len(b):
        raise ValueError(f"paired tests need the same samples: {len(a)} against {len(b)}")
    first, second = _checked(a, "a"), _checked(b, "b")
    observed = kendall_tau(first) - kendall_tau(second)
    if math.isnan(observed):
        raise ValueError("tau_difference_test: Kendall's tau is undefined for a judge on these samples")
    # The same seed draws the same resamples for both judges: the samples are resampled together.
    differences = _resampled(first, resamples, seed)[1] - _resampled(second, resamples, seed)[1]
    p = paired_p_value(differences, observed)
    return TauDifference(observed, p, len(first), resamples, int((~np.isnan(differences)).sum()))


@dataclass(frozen=True)
class PreferenceInterval:
    """Pairwise preference accuracy over studies, with its percentile bootstrap interval over studies.

    Attributes:
        accuracy: right / (right + wrong) over all the studies' pairs.
        low: Lower end of the interval.
        high: Upper end of the interval.
        pairs: Pairs with an expert preference whose candidates were both scored (right + wrong + ties).
        right: Pairs ordered as the experts ordered them.
        wrong: Pairs ordered the other way.
        ties: Pairs the score rates equal (no preference, counted apart).
        studies: Studies resampled (those with at least one such pair).
    """

    accuracy: float
    low: float
    high: float
    pairs: int
    right: int
    wrong: int
    ties: int
    studies: int


def preference_interval(
    studies: Sequence[Preferences], *, confidence: float = 0.95, resamples: int = 1000, seed: int = 0
) -> PreferenceInterval:
    """Preference accuracy of the studies' pairs taken together, with a percentile bootstrap interval that resamples
    studies (a study's pairs share its reference and candidates, so they are drawn together).

    A resample on which the accuracy is undefined (every pair in it tied) counts at the bounds, 0 for the low end
    and 1 for the high end (`UNDEFINED_RESAMPLE_RULE`). With one study, every resample is that study.

    Raises:
        ValueError: when no pair of any study is ordered either way (no study, or every pair tied).
    """
    import numpy as np

    right = np.array([study.right for study in studies], dtype=float)
    wrong = np.array([study.wrong for study in studies], dtype=float)
    decided = right.sum() + wrong.sum()
    if decided == 0:
        raise ValueError("preference_interval: no pair is ordered either way (no study, or every pair tied)")
    accuracy = float(right.sum() / decided)
    low = high = accuracy
    if len(studies) > 1:

        def on_rows(rows: NDArray[np.int64]) -> NDArray[np.float64]:
            r, w = right[rows].sum(axis=-1), wrong[rows].sum(axis=-1)
            with np.errstate(invalid="ignore", divide="ignore"):
                shares: NDArray[np.float64] = np.where(r + w > 0, r / (r + w), np.nan)
            return shares

        draws = bootstrap_distribution(len(studies), on_rows, n_resamples=resamples, seed=seed)
        low, high = interval_of_draws(draws, confidence=confidence, bounds=(0.0, 1.0))
    ties = sum(study.ties for study in studies)
    return PreferenceInterval(
        accuracy, low, high, int(decided) + ties, int(right.sum()), int(wrong.sum()), ties, len(studies)
    )
