"""The metric suite's tables: inter-metric correlations, agreement with experts, and the pos/neg table.

Pure arithmetic on per-sample numbers (scipy does the statistics). A value of None or NaN means the metric gave
no number for that sample; each table uses, for every metric or pair of metrics, the samples where all the
numbers it needs are present, and says how many those were.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeGuard

from radiology_tasks.core.agreement import correlate
from radiology_tasks.core.family import higher_is_better

_POS_SUFFIXES = ("-pos", "-para")
_NEG_SUFFIXES = ("-neg", "-err")

Values = Mapping[str, Sequence[float | None]]
"""Score key -> one value per sample, every list in the same sample order."""


def _present(value: float | None) -> TypeGuard[float]:
    return value is not None and not math.isnan(value)


@dataclass(frozen=True)
class Correlation:
    """Kendall tau-b and Pearson r of two metrics over the samples where both have a value."""

    first: str
    second: str
    kendall: float
    pearson: float
    n: int


def correlation_matrix(values: Values) -> list[Correlation]:
    """Kendall tau-b and Pearson r between every two metrics (the diagonal included), with scipy.stats.

    A pair of metrics with fewer than two common samples, or a constant metric on them, has NaN correlations.

    Returns:
        One entry per ordered pair (first, second), rows in the order of `values`; the matrix is symmetric.
    """
    from scipy import stats

    keys = list(values)
    lengths = {len(values[key]) for key in keys}
    if len(lengths) > 1:
        raise ValueError(f"every metric needs one value per sample; got lengths {sorted(lengths)}")
    cells: list[Correlation] = []
    for first in keys:
        for second in keys:
            pairs = [(a, b) for a, b in zip(values[first], values[second]) if _present(a) and _present(b)]
            xs = [float(a) for a, _ in pairs]
            ys = [float(b) for _, b in pairs]
            if len(pairs) < 2 or len(set(xs)) < 2 or len(set(ys)) < 2:
                kendall = pearson = math.nan
            else:
                kendall = float(stats.kendalltau(xs, ys, variant="b").statistic)
                pearson = float(stats.pearsonr(xs, ys).statistic)
            cells.append(Correlation(first, second, kendall, pearson, len(pairs)))
    return cells


@dataclass(frozen=True)
class ExpertRow:
    """One metric's Kendall tau-b against the expert score, with its bootstrap percentile interval."""

    metric: str
    kendall_tau: float
    ci_low: float
    ci_high: float
    n: int
    sign: int


def expert_table(
    values: Values, expert: Sequence[float | None], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> list[ExpertRow]:
    """Each metric's Kendall tau-b against the expert score (`radiology_tasks.core.agreement.correlate`).

    Metrics where lower is better (`radiology_tasks.core.orientation`) are negated first, so a positive tau always
    means agreement.
    """
    rows: list[ExpertRow] = []
    for key, column in values.items():
        agreement = correlate(
            list(column),
            list(expert),
            higher_is_better=higher_is_better(key),
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
        )
        low, high = agreement.kendall_tau_ci
        rows.append(ExpertRow(key, agreement.kendall_tau, low, high, agreement.n_pairs, agreement.sign))
    return rows


@dataclass(frozen=True)
class SensitivityPairs:
    """Sample indices of matched pos/neg rows (same source report), and the rows left without a partner."""

    pairs: list[tuple[int, int]]
    unmatched: list[str]


def sensitivity_pairs(
    ids: Sequence[str], kinds: Sequence[str | None], sources: Sequence[str | None], *, by_id_suffix: bool = False
) -> SensitivityPairs:
    """Match each pos row with the neg row made from the same reference.

    Rows of `radiology-tasks sensitivity-set` carry ``kind`` (``pos``/``neg``) and ``source_id``. With
    `by_id_suffix`, rows without those are matched by id instead: ``<stem>-pos`` or ``<stem>-para`` with
    ``<stem>-neg`` or ``<stem>-err`` (the bundled demo's paraphrases and planted errors).

    Returns:
        (pos index, neg index) pairs in the order of the pos rows, and the ids of pos/neg rows without a partner.

    Raises:
        ValueError: when two rows claim the same kind for the same source.
    """
    found: dict[str, dict[str, int]] = {}
    for index, (sample_id, kind, source) in enumerate(zip(ids, kinds, sources, strict=True)):
        if kind not in ("pos", "neg") and by_id_suffix:
            for suffixes, name in ((_POS_SUFFIXES, "pos"), (_NEG_SUFFIXES, "neg")):
                suffix = next((s for s in suffixes if sample_id.endswith(s)), None)
                if suffix is not None:
                    kind, source = name, sample_id.removesuffix(suffix)
        if kind not in ("pos", "neg") or source is None:
            continue
        slot = found.setdefault(source, {})
        if kind in slot:
            raise ValueError(f"two {kind} rows for source '{source}': '{ids[slot[kind]]}' and '{sample_id}'")
        slot[kind] = index
    pairs = [(slot["pos"], slot["neg"]) for slot in found.values() if len(slot) == 2]
    unmatched = [ids[index] for slot in found.values() if len(slot) == 1 for index in slot.values()]
    return SensitivityPairs(sorted(pairs), unmatched)


@dataclass(frozen=True)
class PosNegRow:
    """How far one metric separates paraphrases (pos) from minimal clinically wrong edits (neg).

    ``pos_better`` is the share of pairs where the pos row scores better (higher, or lower for
    metrics where lower is better) and ``ties`` the share where both score the same.
    """

    metric: str
    pos_mean: float
    neg_mean: float
    gap: float
    pos_better: float
    ties: float
    n: int


def pos_neg_table(values: Values, pairs: Sequence[tuple[int, int]]) -> list[PosNegRow]:
    """Mean on pos, mean on neg, their gap (pos - neg) and the share of pairs where pos scores better.

    Each metric uses the pairs where both rows have a value; NaN everywhere when there is none.
    """
    import numpy as np

    rows: list[PosNegRow] = []
    for key, column in values.items():
        usable = [(a, b) for a, b in ((column[p], column[n]) for p, n in pairs) if _present(a) and _present(b)]
        if not usable:
            rows.append(PosNegRow(key, math.nan, math.nan, math.nan, math.nan, math.nan, 0))
            continue
        pos = np.array([float(p) for p, _ in usable])
        neg = np.array([float(n) for _, n in usable])
        better = pos > neg if higher_is_better(key) else neg > pos
        rows.append(
            PosNegRow(
                key,
                float(pos.mean()),
                float(neg.mean()),
                float(pos.mean() - neg.mean()),
                float(better.mean()),
                float((pos == neg).mean()),
                len(usable),
            )
        )
    return rows
