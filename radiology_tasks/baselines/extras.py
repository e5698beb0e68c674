"""``-T baselines=...`` for the judge tasks: the lexical metrics scored beside the judge, on the same samples."""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.scorer import Metric, Scorer

from radiology_tasks.baselines.metrics import corpus_lexical
from radiology_tasks.baselines.scorer import checked_lexical_keys, metric_names, with_baselines
from radiology_tasks.core.metrics import expert_agreement, mean_of
from radiology_tasks.core.unscored import UnscoredPolicy


def lexical_metrics(keys: Sequence[str], *, with_expert: bool) -> list[Metric]:
    """Mean of each lexical key, its agreement with the experts when the data has expert scores, corpus values."""
    metrics: list[Metric] = [mean_of(key) for key in keys]
    if with_expert:
        metrics += [expert_agreement(key) for key in keys]
    return [*metrics, corpus_lexical()]


def add_baselines(
    scorer: Scorer,
    metrics: list[Metric],
    baselines: str | list[str] | None,
    *,
    unscored: UnscoredPolicy,
    with_expert: bool,
) -> tuple[Scorer, list[Metric]]:
    """The task's scorer and metrics, with the lexical baselines added when ``-T baselines`` names some.

    The task's own scorer comes first in the combined score, so its metadata and its metrics are unchanged.

    Raises:
        InputError: for an empty list or an unknown metric name.
    """
    if baselines is None:
        return scorer, metrics
    keys = checked_lexical_keys(metric_names(baselines, "baselines"), "baselines")
    return with_baselines(scorer, keys, unscored), [*metrics, *lexical_metrics(keys, with_expert=with_expert)]
