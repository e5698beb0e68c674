"""Inspect metrics of the baselines family: corpus BLEU/chrF, inter-metric correlations, the pos/neg table.

The arithmetic is in `scorers.baselines`; these functions only collect the per-sample numbers. A number that
``-T unscored=worst`` filled in is not the metric's own and is left out, like a NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.scorers.baselines.suite_tables import correlation_matrix, pos_neg_table, sensitivity_pairs
from radiology_tasks.scorers.lexical import LEXICAL_KEYS, corpus_scores

STATISTICS = "lexical_statistics"
SENSITIVITY = "sensitivity"


def sample_value(sample: SampleScore, key: str) -> float | None:
    """The metric's own number under `key`, or None (missing, NaN, not a number, or filled in)."""
    metadata = sample.score.metadata or {}
    value = sample.score.value
    if not isinstance(value, Mapping) or is_filled_in(metadata, key):
        return None
    number = value.get(key)
    if isinstance(number, bool) or not isinstance(number, int | float) or math.isnan(number):
        return None
    return float(number)


def _statistics(metadata: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Lexical statistics at the top of the metadata, or where `with_baselines` put them."""
    if STATISTICS in metadata:
        return metadata[STATISTICS]
    nested = metadata.get("baselines")
    return nested.get(STATISTICS) if isinstance(nested, Mapping) else None


@metric
def corpus_lexical() -> Metric:
    """Corpus BLEU-n and corpus chrF over the scored samples (sacrebleu's corpus statistics, on [0, 1]).

    ROUGE-L and ``bleu_rexrank`` have no corpus value here: their mean over the samples (``<key>_mean``) is theirs,
    and is the number the ReXrank leaderboard reports for its BLEU.

    Returns:
        A metric giving ``corpus_bleu_<n>`` and ``corpus_chrf`` for the keys the samples were scored on, and
        ``corpus_pairs`` (the samples that count: unscored ones have no statistics).
    """

    def compute(scores: list[SampleScore]) -> Value:
        rows = [s for s in (_statistics(sample.score.metadata or {}) for sample in scores) if s is not None]
        keys = [key for key in LEXICAL_KEYS if rows and key in rows[0]]
        return {**corpus_scores(rows, keys), "corpus_pairs": float(len(rows))}

    return compute


def _pair_name(first: str, second: str) -> str:
    return f"{first}_vs_{second}"


@metric
def metric_correlations(keys: list[str]) -> Metric:
    """Kendall tau-b and Pearson r between every two score keys, over the samples where both have a number.

    Returns:
        A metric giving ``<a>_vs_<b>_kendall``, ``<a>_vs_<b>_pearson`` and ``<a>_vs_<b>_n`` for each pair of keys
        (a before b in `keys`).
    """

    def compute(scores: list[SampleScore]) -> Value:
        values = {key: [sample_value(sample, key) for sample in scores] for key in keys}
        flat: dict[str, float] = {}
        position = {key: i for i, key in enumerate(keys)}
        for cell in correlation_matrix(values):
            if position[cell.first] < position[cell.second]:
                name = _pair_name(cell.first, cell.second)
                flat |= {f"{name}_kendall": cell.kendall, f"{name}_pearson": cell.pearson, f"{name}_n": float(cell.n)}
        return flat

    return compute


def sensitivity_of(sample: SampleScore) -> tuple[str | None, str | None]:
    """The sample's pos/neg kind and source id, as the suite scorer recorded them."""
    info = (sample.score.metadata or {}).get(SENSITIVITY) or {}
    return info.get("kind"), info.get("source_id")


@metric
def pos_neg(keys: list[str], by_id_suffix: bool = False) -> Metric:
    """The pos/neg table: mean on paraphrases, mean on minimal wrong edits, the gap, how often pos scores better.

    Args:
        keys: Score keys to tabulate.
        by_id_suffix: Also match rows by id (``<stem>-para``/``-pos`` with ``<stem>-err``/``-neg``).

    Returns:
        A metric giving ``<key>_pos_mean``, ``<key>_neg_mean``, ``<key>_gap`` (pos - neg) and ``<key>_pos_better``
        (share of pairs where pos scores better) per key, and ``pos_neg_pairs``.
    """

    def compute(scores: list[SampleScore]) -> Value:
        kinds, sources = zip(*(sensitivity_of(sample) for sample in scores)) if scores else ((), ())
        ids = [str(sample.sample_id) for sample in scores]
        matched = sensitivity_pairs(ids, list(kinds), list(sources), by_id_suffix=by_id_suffix)
        values = {key: [sample_value(sample, key) for sample in scores] for key in keys}
        flat: dict[str, float] = {"pos_neg_pairs": float(len(matched.pairs))}
        for row in pos_neg_table(values, matched.pairs):
            flat |= {
                f"{row.metric}_pos_mean": row.pos_mean,
                f"{row.metric}_neg_mean": row.neg_mean,
                f"{row.metric}_gap": row.gap,
                f"{row.metric}_pos_better": row.pos_better,
            }
        return flat

    return compute
