"""Inspect metrics of the metric suite (and of `baselines`): inter-metric correlations and the pos/neg table.

Corpus BLEU/chrF (`corpus_lexical`) is shared with the judge tasks and lives in `radiology_tasks.lexical`.

The arithmetic is in `scorers.suite`; these functions only collect the per-sample numbers. A number that
``-T unscored=worst`` filled in is not the metric's own and is left out, like a NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.scorers.suite.suite_tables import correlation_matrix, pos_neg_table, sensitivity_pairs

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
