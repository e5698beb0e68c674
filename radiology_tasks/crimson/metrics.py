"""CRIMSON's agreement with radiologists' preferences: pairwise preference accuracy as an Inspect metric."""

from __future__ import annotations

import math
from collections.abc import Sequence

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.scorers.crimson.preference import preference_accuracy
from radiology_tasks.scorers.crimson.reading import MAIN_KEY


def preference_rows(scores: Sequence[SampleScore]) -> list[tuple[str, float, float]]:
    """(reference, expert score, judge score) of each sample the judge scored and the experts rated."""
    rows = []
    for sample in scores:
        metadata = sample.score.metadata or {}
        value = sample.score.value
        number = value.get(MAIN_KEY) if isinstance(value, dict) else None
        expert = metadata.get("expert_score")
        if not isinstance(number, int | float) or isinstance(number, bool) or math.isnan(number) or expert is None:
            continue
        if is_filled_in(metadata, MAIN_KEY):
            continue
        rows.append((str(metadata.get("reference_key")), float(expert), float(number)))
    return rows


@metric
def preference_agreement(brief: bool = False) -> Metric:
    """How often the judge orders two candidates of one reference as the experts did (`scorers.crimson.preference`).

    Samples without an expert score, unscored, or filled in by ``-T unscored=worst`` are left out; a sample's
    reference is the ``reference_key`` its score records.

    Args:
        brief: Give only the accuracy, and nothing when no pair has an expert preference (a run's summary).

    Returns:
        A metric giving ``crimson_preference_accuracy`` (NaN without a pair), and unless `brief` the pairs counted
        (``crimson_preference_pairs``), those ordered as the experts did (``_agreeing``) and the judge's ties
        (``_ties``).
    """

    def compute(scores: list[SampleScore]) -> Value:
        outcome = preference_accuracy(preference_rows(scores))
        if brief:
            return {} if outcome.pairs == 0 else {"crimson_preference_accuracy": outcome.accuracy}
        return {
            "crimson_preference_accuracy": outcome.accuracy,
            "crimson_preference_pairs": float(outcome.pairs),
            "crimson_preference_agreeing": float(outcome.agreeing),
            "crimson_preference_ties": float(outcome.ties),
        }

    return compute
