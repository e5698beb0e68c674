"""Agreement between a judge and radiologists: correlations, pairwise preference, per-category error F1, count bias.

Pure arithmetic on plain numbers; numpy and scipy are imported inside the functions that use them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import TYPE_CHECKING

from radiology_tasks.core.records import ERROR_CATEGORIES, exact_rater_mean

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

_NAN = float("nan")


@dataclass(frozen=True)
class Agreement:
    """Correlation of judge scores with expert scores, each with a bootstrap percentile interval.

    Attributes:
        kendall_tau: Kendall's tau-b.
        kendall_tau_ci: (low, high) bootstrap percentile interval of tau-b.
        spearman: Spearman's rank correlation.
        spearman_ci: (low, high) bootstrap percentile interval of Spearman's rho.
        pearson: Pearson's linear correlation.
        pearson_ci: (low, high) bootstrap percentile interval of Pearson's r.
        n_pairs: Pairs where both values were present and used.
        n_missing: Pairs left out because either value was NaN or None.
        sign: +1 when higher judge scores mean better reports, -1 when the judge scores were
            negated first (error counts), so a positive correlation always means agreement.
    """

    kendall_tau: float
    kendall_tau_ci: tuple[float, float]
    spearman: float
    spearman_ci: tuple[float, float]
    pearson: float
    pearson_ci: tuple[float, float]
    n_pairs: int
    n_missing: int
    sign: int

    def as_dict(self) -> dict[str, float]:
        """Every field as a flat float, intervals split into ``*_ci_low`` and ``*_ci_high``."""
        flat: dict[str, float] = {}
        for name in ("kendall_tau", "spearman", "pearson"):
            low, high = getattr(self, f"{name}_ci")
            flat[name] = float(getattr(self, name))
            flat[f"{name}_ci_low"] = float(low)
            flat[f"{name}_ci_high"] = float(high)
        flat["n_pairs"] = float(self.n_pairs)
        flat["n_missing"] = float(self.n_missing)
        flat["sign"] = float(self.sign)
        return flat


def correlate(
    scores: Sequence[float | None],
    expert: Sequence[float | None],
    *,
    higher_is_better: bool = True,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    kendall_interval_only: bool = False,
) -> Agreement:
    """Correlate judge scores with expert scores (Kendall tau-b, Spearman, Pearson).

    Pairs where either value is NaN or None are left out and counted in ``n_missing``. The
    intervals come from ``n_resamples`` paired bootstrap resamples drawn with
    ``numpy.random.default_rng(seed)``; a resample whose correlation is undefined (a constant
    side) counts as -1 for the low bound and +1 for the high bound, so the interval covers whatever
    it could have been (`UNDEFINED_RESAMPLE_RULE`). With fewer than two usable pairs, or a constant input, every
    value is NaN.

    Args:
        scores: Judge scores, one per report.
        expert: Expert scores for the same reports, in the same order.
        higher_is_better: False for judge outputs where higher means worse (error counts);
            the judge scores are then negated so agreement shows as a positive correlation.
        n_resamples: Number of bootstrap resamples (0 gives NaN intervals).
        confidence: Coverage of the percentile interval, in (0, 1).
        seed: Seed of the bootstrap generator.
        kendall_interval_only: Bootstrap tau-b's interval alone and leave Spearman's and Pearson's NaN (a run's
            summary shows tau only; Spearman's resampled ranks are most of the bootstrap's cost). Tau-b's
            interval is the same either way.

    Returns:
        The correlations, their intervals and the pair counts.

    Raises:
        ValueError: On sequences of different lengths, an infinite value, or bad settings.
    """
    if len(scores) != len(expert):
        raise ValueError(f"got {len(scores)} judge scores but {len(expert)} expert scores")
    _check_bootstrap_settings(n_resamples=n_resamples, confidence=confidence)
    sign = 1 if higher_is_better else -1
    x, y = _usable_pairs(scores, expert, sign)
    point = _correlations(x, y)
    # No correlation on the whole sample (a constant side): there is nothing for an interval to be about.
    intervals = (
        [(_NAN, _NAN)] * 3
        if math.isnan(point[0])
        else _bootstrap_intervals(
            x, y, n_resamples=n_resamples, confidence=confidence, seed=seed, kendall_only=kendall_interval_only
        )
    )
    (tau, rho, r), (tau_ci, rho_ci, r_ci) = point, intervals
    return Agreement(tau, tau_ci, rho, rho_ci, r, r_ci, n_pairs=len(x), n_missing=len(scores) - len(x), sign=sign)


def _check_bootstrap_settings(*, n_resamples: int, confidence: float) -> None:
    """Refuse a coverage outside (0, 1) or a negative number of resamples."""
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if n_resamples < 0:
        raise ValueError(f"n_resamples must be >= 0, got {n_resamples}")


def _usable_pairs(
    scores: Sequence[float | None], expert: Sequence[float | None], sign: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The judge scores times `sign` and the expert scores, where both are present (neither NaN nor None)."""
    import numpy as np

    judge = _as_floats(scores, "judge score")
    truth = _as_floats(expert, "expert score")
    usable = ~(np.isnan(judge) | np.isnan(truth))
    return sign * judge[usable], truth[usable]


def _as_floats(values: Sequence[float | None], what: str) -> NDArray[np.float64]:
    import numpy as np

    converted = np.array([_NAN if v is None else float(v) for v in values], dtype=float)
    infinite = np.flatnonzero(np.isinf(converted))
    if infinite.size:
        raise ValueError(f"{what} at index {int(infinite[0])} is infinite")
    return converted


def _correlations(x: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[float, float, float]:
    """Kendall tau-b, Spearman and Pearson of two equally long arrays; NaN when undefined."""
    import numpy as np
    from scipy import stats

    # scipy warns (and some versions raise) on these degenerate inputs; they are simply undefined.
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return (_NAN, _NAN, _NAN)
    return (
        float(stats.kendalltau(x, y, variant="b").statistic),
        float(stats.spearmanr(x, y).statistic),
        float(stats.pearsonr(x, y).statistic),
    )


_CHUNK_ELEMENTS = 1 << 17
"""Resampled indices per chunk of the bootstrap (each array of a chunk then takes about 1 MiB)."""

UNDEFINED_RESAMPLE_RULE = (
    "A bootstrap resample on which a correlation is undefined (one side constant in it) could have been any "
    "value in [-1, 1]: an interval's low end counts it as -1 and its high end as +1, and a paired test counts "
    "it as a difference at least as extreme as the one observed. Unknown resamples count against the claim."
)
"""The one rule for undefined resamples, everywhere this project gives a correlation's interval or test."""


def bootstrap_distribution(
    n: int,
    statistic: Callable[[NDArray[np.int64]], NDArray[np.float64]],
    *,
    n_resamples: int,
    seed: int,
) -> NDArray[np.float64]:
    """The statistic on `n_resamples` paired bootstrap resamples of `n` observations, drawn by `scipy.stats.bootstrap`.

    The observations are resampled as a whole (all their columns together): `statistic` is given the drawn indices,
    one resample per row (shape ``(resamples, n)``), and returns one value per resample, or one row of values per
    statistic (shape ``(statistics, resamples)``). The draws are those of ``numpy.random.default_rng(seed)
    .integers(0, n, size=(n_resamples, n))``, taken a chunk of rows at a time so that memory stays bounded.

    Returns:
        The bootstrap distribution, shape ``(n_resamples,)`` or ``(statistics, n_resamples)``; NaN where the
        statistic is undefined on a resample.
    """
    import warnings

    import numpy as np
    from scipy.stats import bootstrap

    def on_indices(indices: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
        return statistic(indices.astype(np.int64))

    with warnings.catch_warnings():
        # scipy warns that its own interval is NaN when some resamples are undefined; the caller applies the rule.
        warnings.simplefilter("ignore")
        result = bootstrap(
            (np.arange(n, dtype=float),),
            on_indices,
            vectorized=True,
            n_resamples=n_resamples,
            batch=max(1, _CHUNK_ELEMENTS // n),
            method="percentile",
            rng=np.random.default_rng(seed),
        )
    distribution: NDArray[np.float64] = np.asarray(result.bootstrap_distribution, dtype=float)
    return distribution


def interval_of_draws(
    draws: NDArray[np.float64], *, confidence: float, bounds: tuple[float, float] = (-1.0, 1.0)
) -> tuple[float, float]:
    """Percentile interval of bootstrap draws, undefined draws (NaN) counted at the bounds (`UNDEFINED_RESAMPLE_RULE`).

    Args:
        draws: One statistic's value on each resample.
        confidence: Coverage of the interval, in (0, 1).
        bounds: The least and greatest value the statistic can take.

    Returns:
        (low, high); the bounds when no draw is defined; NaN for both when there is no draw.
    """
    import numpy as np

    if draws.size == 0:
        return (_NAN, _NAN)
    undefined = np.isnan(draws)
    # Leaving undefined resamples out would make the interval one of the resamples that happen to vary: a judge
    # that varies on one report of twelve would look reliably positive.
    tail = 100.0 * (1.0 - confidence) / 2.0
    low = np.percentile(np.where(undefined, bounds[0], draws), tail)
    high = np.percentile(np.where(undefined, bounds[1], draws), 100.0 - tail)
    return (float(low), float(high))


def paired_p_value(differences: NDArray[np.float64], observed: float) -> float:
    """Two-sided paired bootstrap p-value of a difference; undefined draws count as extreme (the one rule).

    The share of resampled differences at least as far from the observed one as the observed one is from zero
    (the bootstrap distribution shifted to the null of no difference), with the +1 correction.
    """
    import numpy as np

    extreme = np.isnan(differences) | (np.abs(differences - observed) >= abs(observed) - 1e-12)
    return min(1.0, float(extreme.sum() + 1) / (differences.size + 1))


def _bootstrap_intervals(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    *,
    n_resamples: int,
    confidence: float,
    seed: int,
    kendall_only: bool = False,
) -> list[tuple[float, float]]:
    n = len(x)
    if n < 2 or n_resamples == 0:
        return [(_NAN, _NAN)] * 3
    kendall = KendallResampler(x, y)
    if kendall_only:
        # The same draws (they depend on n, the seed and the number of resamples only), tau-b's column alone.
        taus = bootstrap_distribution(n, kendall, n_resamples=n_resamples, seed=seed)
        return [interval_of_draws(taus, confidence=confidence), (_NAN, _NAN), (_NAN, _NAN)]
    draws = bootstrap_distribution(
        n, lambda indices: _resampled_correlations(x, y, indices, kendall).T, n_resamples=n_resamples, seed=seed
    )
    return [interval_of_draws(column, confidence=confidence) for column in draws]


def _resampled_correlations(
    x: NDArray[np.float64], y: NDArray[np.float64], resamples: NDArray[np.int64], kendall: KendallResampler
) -> NDArray[np.float64]:
    """Kendall tau-b (from `kendall`, built on x and y), Spearman and Pearson of every resample (one row of indices
    each).

    Same numbers as calling scipy on each resample, computed for all resamples at once:
    a thousand scipy calls take seconds, which is too slow for a metric Inspect recomputes
    while an evaluation runs.
    """
    import numpy as np
    from scipy.stats import rankdata

    xs, ys = x[resamples], y[resamples]
    pearson = _rowwise_pearson(xs, ys)
    # Spearman's rho is Pearson's r of the tie-averaged ranks, as in scipy.stats.spearmanr.
    spearman = _rowwise_pearson(rankdata(xs, axis=1), rankdata(ys, axis=1))
    return np.column_stack([kendall(resamples), spearman, pearson])


def _rowwise_pearson(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    import numpy as np

    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    # A zero denominator comes only with a zero numerator (a constant row): 0 / 0, an invalid value.
    with np.errstate(invalid="ignore"):
        r: NDArray[np.float64] = (a * b).sum(axis=1) / np.sqrt((a * a).sum(axis=1) * (b * b).sum(axis=1))
    # Test constancy on the centred rows: rounding can leave a constant row a tiny non-zero spread.
    r[(np.ptp(a, axis=1) == 0) | (np.ptp(b, axis=1) == 0)] = _NAN
    return np.clip(r, -1.0, 1.0)


SIGN_MATRIX_LIMIT = 4096
"""Largest sample whose pair signs `KendallResampler` keeps whole (``n * n`` float32: 64 MiB at the limit)."""


class KendallResampler:
    """Kendall tau-b of bootstrap resamples of one paired sample, from how often each original point is drawn.

    A resample holding point i ``w_i`` times has ``sum_{i<j} w_i w_j s_ij`` concordant minus discordant pairs
    (``s_ij`` = sign(dx) * sign(dy)); copies of one point are tied in x and y. tau-b divides that by the square
    root of the untied pair counts in x and in y, which come from the resample's weight in each group of equal
    values. What every chunk of resamples shares is built once: the pair signs (up to `SIGN_MATRIX_LIMIT` points;
    past it they are rebuilt a block of rows at a time, to keep memory at ``block * n``) and the groups of equal
    values. Every count is a whole number held exactly in floating point, so the taus are the same to the bit
    however the resamples are chunked.
    """

    def __init__(self, x: NDArray[np.float64], y: NDArray[np.float64], block: int = 512) -> None:
        import numpy as np

        self.x, self.y, self.block = x, y, block
        n = len(x)
        self.signs: NDArray[np.float32] | None = None
        if n <= SIGN_MATRIX_LIMIT:
            self.signs = (np.sign(x[:, None] - x[None, :]) * np.sign(y[:, None] - y[None, :])).astype(np.float32)
        self.groups = (_value_groups(x), _value_groups(y))

    def __call__(self, resamples: NDArray[np.int64]) -> NDArray[np.float64]:
        """Tau-b of each row of `resamples` (indices into the sample); NaN for a resample constant in x or y."""
        import numpy as np

        n_resamples, n = resamples.shape
        weights = np.zeros((n_resamples, n))
        np.add.at(weights, (np.arange(n_resamples)[:, None], resamples), 1.0)
        concordance = self._concordance(weights) / 2.0
        all_pairs = n * (n - 1) / 2.0
        untied_x, untied_y = (all_pairs - _tied_pairs(weights, *groups) for groups in self.groups)
        # |tau| never exceeds 1, and a resample constant in x or y has no untied pair and no concordance
        # either: 0 / 0 leaves NaN.
        with np.errstate(invalid="ignore"):
            tau: NDArray[np.float64] = concordance / np.sqrt(untied_x * untied_y)
        return tau

    def _concordance(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        """Twice the concordant minus discordant pairs of each resample (``w^T S w``)."""
        import numpy as np

        if self.signs is not None:
            # float32 holds every partial sum exactly (each is at most n in size); the products are summed in float64.
            weighted = (weights.astype(np.float32) @ self.signs).astype(np.float64)
            total: NDArray[np.float64] = (weighted * weights).sum(axis=1)
            return total
        x, y, n = self.x, self.y, len(self.x)
        total = np.zeros(len(weights))
        for start in range(0, n, self.block):
            stop = min(start + self.block, n)
            signs = np.sign(x[start:stop, None] - x[None, :]) * np.sign(y[start:stop, None] - y[None, :])
            total += ((weights @ signs.T) * weights[:, start:stop]).sum(axis=1)
        return total


def _value_groups(values: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The sample's indices ordered by value, and where each run of equal values starts in that order."""
    import numpy as np

    order = np.argsort(values, kind="stable")
    ordered = values[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    return order, starts


def _tied_pairs(
    weights: NDArray[np.float64], order: NDArray[np.int64], starts: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Number of pairs in each resample that share a value (each group of equal values: its weight, choose 2)."""
    import numpy as np

    group_weight = np.add.reduceat(weights[:, order], starts, axis=1)
    pairs: NDArray[np.float64] = (group_weight * (group_weight - 1) / 2.0).sum(axis=1)
    return pairs


def category_error_f1(
    human: Sequence[Mapping[str, int]], predicted: Sequence[Mapping[str, int]]
) -> dict[str, dict[str, float]]:
    """Per-category error F1 from count-level matches (VERT appendix C).

    For each report and category the matched count is ``min(human, predicted)``, false
    positives ``max(predicted - human, 0)`` and false negatives ``max(human - predicted, 0)``;
    these are summed over reports before precision, recall and F1 are taken. A ratio whose
    denominator is zero is 0. The ``all`` entry sums the six categories (micro average).

    Args:
        human: Expert significant-error counts per report, keyed ``a``-``f``.
        predicted: Judge significant-error counts for the same reports, keyed ``a``-``f``.

    Returns:
        For each of ``a``-``f`` and ``all``: precision, recall, f1, tp, fp, fn.

    Raises:
        ValueError: On sequences of different lengths or a malformed count (naming the row).
    """
    if len(human) != len(predicted):
        raise ValueError(f"got {len(human)} human rows but {len(predicted)} predicted rows")
    totals = {c: [0, 0, 0] for c in ERROR_CATEGORIES}
    for row, (h_counts, p_counts) in enumerate(zip(human, predicted)):
        h_row = checked_counts(h_counts, f"row {row}: human counts")
        p_row = checked_counts(p_counts, f"row {row}: predicted counts")
        for c in ERROR_CATEGORIES:
            h, p = h_row[c], p_row[c]
            totals[c][0] += min(h, p)
            totals[c][1] += max(p - h, 0)
            totals[c][2] += max(h - p, 0)
    result: dict[str, dict[str, float]] = {c: _prf(*totals[c]) for c in ERROR_CATEGORIES}
    result["all"] = _prf(*(sum(totals[c][i] for c in ERROR_CATEGORIES) for i in range(3)))
    return result


def checked_counts(counts: Mapping[str, int], where: str) -> dict[str, int]:
    """Validate error counts keyed by the six categories (a)-(f).

    Args:
        counts: One report's error counts.
        where: Names the report and field in error messages (e.g. ``"row 3: human counts"``).

    Returns:
        The counts as a plain dict in (a)-(f) order.

    Raises:
        ValueError: On a missing or unknown category, or a count that is not a non-negative int.
    """
    if not isinstance(counts, Mapping):
        raise ValueError(f"{where}: expected counts keyed a-f, got {counts!r}")
    unknown = sorted(set(counts) - set(ERROR_CATEGORIES))
    if unknown:
        raise ValueError(f"{where}: unknown categories {unknown}")
    checked: dict[str, int] = {}
    for c in ERROR_CATEGORIES:
        if c not in counts:
            raise ValueError(f"{where}: category '{c}' is missing")
        checked[c] = _count(counts[c], f"{where}: category '{c}'")
    return checked


def expert_error_total(counts: Mapping[str, object], raters: int | None, where: str) -> Fraction:
    """The experts' errors over (a)-(f), exactly: whole counts, or means over `raters` raters as a log stores them.

    A mean is stored as a float (1/6 as 0.16666666666666666); each is read back as the multiple of 1 / raters it
    stands for and the six are added as fractions, so candidates whose raters counted the same total get equal
    totals however the errors were split (``4/6 + 6/6`` and ``5/6 + 5/6`` as floats differ in their last bit, and
    Kendall's tau-b would split their tie). Take ``float`` of the result only to compute a statistic.

    Args:
        counts: One report's expert counts, keyed ``a``-``f``.
        raters: Raters the counts are means over; None (or 1) for whole counts.
        where: Names the report and field in error messages.

    Raises:
        ValueError: On a missing or unknown category, a negative count, or one that is not a multiple of
            1 / raters.
    """
    if not isinstance(counts, Mapping):
        raise ValueError(f"{where}: expected counts keyed a-f, got {counts!r}")
    unknown = sorted(set(counts) - set(ERROR_CATEGORIES))
    if unknown:
        raise ValueError(f"{where}: unknown categories {unknown}")
    if raters is not None and (isinstance(raters, bool) or not isinstance(raters, int) or raters < 1):
        raise ValueError(f"{where}: the number of raters must be a whole number of at least 1, got {raters!r}")
    total = Fraction(0)
    for c in ERROR_CATEGORIES:
        if c not in counts:
            raise ValueError(f"{where}: category '{c}' is missing")
        exact = exact_rater_mean(counts[c], raters or 1)
        if not isinstance(exact, Fraction) or exact < 0:
            over = f"a mean over {raters} raters (a multiple of 1/{raters})" if raters else "a whole number"
            raise ValueError(f"{where}: category '{c}': {counts[c]!r} is not {over} of at least 0")
        total += exact
    return total


def _count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{what} must be a non-negative integer, got {value!r}")
    return value


def _prf(tp: int, fp: int, fn: int) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "tp": tp, "fp": fp, "fn": fn}


def count_bias_by_human_errors(
    human_totals: Sequence[int], predicted_totals: Sequence[int], *, top_bucket: int = 4
) -> list[dict[str, float | int | str]]:
    """Over- or under-estimation of the number of significant errors, by human error count.

    Reports are grouped by their number of human-annotated significant errors: one bucket per
    count below ``top_bucket`` and one ``"<top_bucket>+"`` bucket for the rest. For each bucket
    the bias is ``predicted - human``: positive means the judge finds too many errors.

    Args:
        human_totals: Expert significant-error count per report.
        predicted_totals: Judge significant-error count for the same reports.
        top_bucket: The smallest count pooled into the open-ended top bucket (>= 1).

    Returns:
        One dict per bucket, in increasing order and always all of them: ``bucket`` (label),
        ``n`` (reports), ``mean_bias`` and ``median_bias`` (NaN for an empty bucket).

    Raises:
        ValueError: On sequences of different lengths or a count that is not a non-negative int.
    """
    import numpy as np

    if len(human_totals) != len(predicted_totals):
        raise ValueError(f"got {len(human_totals)} human totals but {len(predicted_totals)} predicted totals")
    if top_bucket < 1:
        raise ValueError(f"top_bucket must be >= 1, got {top_bucket}")
    labels = [str(k) for k in range(top_bucket)] + [f"{top_bucket}+"]
    biases: list[list[int]] = [[] for _ in labels]
    for row, (h, p) in enumerate(zip(human_totals, predicted_totals)):
        h = _count(h, f"row {row}: human total")
        p = _count(p, f"row {row}: predicted total")
        biases[min(h, top_bucket)].append(p - h)
    return [
        {
            "bucket": label,
            "n": len(values),
            "mean_bias": float(np.mean(values)) if values else _NAN,
            "median_bias": float(np.median(values)) if values else _NAN,
        }
        for label, values in zip(labels, biases)
    ]


@dataclass(frozen=True)
class Preferences:
    """How a score orders the candidate pairs the experts have a preference between.

    Attributes:
        pairs: Pairs of candidates of one study with different expert scores (both candidates scored).
        right: Pairs the score orders as the experts do.
        wrong: Pairs the score orders the other way.
        ties: Pairs the score rates equal, within its tie tolerance: no preference, neither right nor wrong.
        accuracy: right / (right + wrong); NaN when every pair is a tie or there is none.
    """

    pairs: int
    right: int
    wrong: int
    ties: int
    accuracy: float


def preference_outcome(rows: Sequence[tuple[str, float, float]], *, tie_tolerance: float = 0.0) -> Preferences:
    """Pairwise preference accuracy over (study, expert score, score) rows, each score oriented higher-is-better.

    Every two rows of one study whose expert scores differ are a pair: the experts prefer the one with the
    higher expert score (equal expert scores carry no preference and are left out). The score is right when it
    is higher for the preferred one, wrong when it is higher for the other, and tied when the two lie within
    `tie_tolerance` of each other.

    Raises:
        ValueError: On a NaN value (leave unscored candidates out first) or a negative tolerance.
    """
    if not tie_tolerance >= 0:
        raise ValueError(f"tie_tolerance must be >= 0, got {tie_tolerance}")
    studies: dict[str, list[tuple[float, float]]] = {}
    for study, expert, score in rows:
        if math.isnan(expert) or math.isnan(score):
            raise ValueError(f"study {study}: NaN among the scores; leave unscored candidates out first")
        studies.setdefault(study, []).append((expert, score))
    right = wrong = ties = 0
    for members in studies.values():
        for (expert_a, score_a), (expert_b, score_b) in combinations(members, 2):
            if expert_a == expert_b:
                continue
            if abs(score_a - score_b) <= tie_tolerance:
                ties += 1
            elif (score_a > score_b) == (expert_a > expert_b):
                right += 1
            else:
                wrong += 1
    decided = right + wrong
    return Preferences(decided + ties, right, wrong, ties, right / decided if decided else _NAN)
