"""Inspect metrics comparing judge scores with radiologists (agreement, error F1, count bias).

The judge scorers give `Score.value` as a dict of floats (e.g. ``{"vert": 0.8, "green": 0.67}``)
and put what the experts said in `Score.metadata`: ``expert_score`` (normalised to [0, 1]),
``expert_significant`` and ``predicted_significant`` (error counts keyed ``a``-``f``), each
possibly None. A sample the judge could not score has NaN values.

Use these metrics in the list form of ``@scorer(metrics=[...])``: there Inspect passes the whole
dict value and the metadata. Inspect drops samples whose entire value is a bare NaN
(`Score.unscored()`) before calling any metric, so only unscored samples that keep the dict
shape (every key NaN) are visible to `parse_failure_rate`. Every dict key returned here is
prefixed so that several metrics of one scorer stay distinct and readable in ``inspect eval``.

`mean_of` gives the mean of one key in that list form; Inspect's own per-key form,
``metrics=[{"vert": [mean()]}]``, does the same and reports NaN values as unscored.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

from inspect_ai.scorer import Metric, MetricProtocol, SampleScore, Value, aggregate, mean, metric

from radiology_tasks.core.records import ERROR_CATEGORIES
from scorers.agreement import category_error_f1, checked_counts, correlate, count_bias_by_human_errors

EXPERT_SCORE = "expert_score"
EXPERT_SIGNIFICANT = "expert_significant"
PREDICTED_SIGNIFICANT = "predicted_significant"

_NAN = float("nan")
_CORRELATIONS = ("kendall_tau", "spearman", "pearson")


@metric
def expert_agreement(
    key: str,
    *,
    higher_is_better: bool = True,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Metric:
    """Correlation of one judge score with the expert score (Kendall tau-b, Spearman, Pearson).

    Samples whose judge score is NaN/None are counted in ``<key>_n_unscored``; samples without an
    expert score in ``<key>_n_no_expert``. Values are NaN when no sample has both.

    Args:
        key: Key of the dict `Score.value` to correlate (a plain float value is used as is).
        higher_is_better: False for error counts (e.g. ``green_ec``): the judge score is negated,
            so a positive tau means agreement with the experts.
        n_resamples: Bootstrap resamples for the confidence intervals.
        confidence: Coverage of the bootstrap percentile intervals.
        seed: Seed of the bootstrap.

    Returns:
        A metric giving ``<key>_kendall_tau``, ``<key>_kendall_tau_ci_low``/``_ci_high``, the same
        for ``spearman`` and ``pearson``, ``<key>_n_pairs``, ``<key>_n_unscored``,
        ``<key>_n_no_expert`` and ``<key>_sign`` (-1 when the score was negated before correlating).
    """

    def compute(scores: list[SampleScore]) -> Value:
        judge: list[float] = []
        expert: list[float] = []
        n_unscored = n_no_expert = 0
        for sample in scores:
            value = _judge_value(sample, key)
            if value is None:
                n_unscored += 1
                continue
            truth = _expert_score(sample)
            if truth is None:
                n_no_expert += 1
                continue
            judge.append(value)
            expert.append(truth)
        flat = {name: _NAN for name in _correlation_names()}
        if judge:
            agreement = correlate(
                judge,
                expert,
                higher_is_better=higher_is_better,
                n_resamples=n_resamples,
                confidence=confidence,
                seed=seed,
            ).as_dict()
            flat = {name: agreement[name] for name in _correlation_names()}
        flat |= {
            "n_pairs": float(len(judge)),
            "n_unscored": float(n_unscored),
            "n_no_expert": float(n_no_expert),
            "sign": 1.0 if higher_is_better else -1.0,
        }
        return {f"{key}_{name}": number for name, number in flat.items()}

    return compute


@metric
def mean_of(key: str) -> Metric:
    """Mean of one key of the dict `Score.value`, skipping samples where it is NaN.

    Delegates to Inspect's `aggregate` (which skips NaN) and only renames the result so that
    the means of several keys read ``vert_mean``, ``green_mean``, ... in ``inspect eval``.

    Args:
        key: Key of the dict `Score.value`; a sample whose value lacks it is an error.

    Returns:
        A metric giving ``<key>_mean`` (NaN when no sample has a number under `key`).
    """
    of_key = cast(MetricProtocol, aggregate(key, mean()))

    def compute(scores: list[SampleScore]) -> Value:
        return {f"{key}_mean": float(cast(float, of_key(scores)))}

    return compute


@metric
def parse_failure_rate(key: str | None = None) -> Metric:
    """Share of samples the judge could not score, and their number.

    Args:
        key: Count a sample as unscored when this key of its dict value is NaN/None. Without a
            key, a sample is unscored when its value is NaN or a dict whose values are all NaN/None.

    Returns:
        A metric giving ``parse_failure_rate`` (NaN when there are no samples) and ``unscored``.
    """

    def compute(scores: list[SampleScore]) -> Value:
        unscored = sum(1 for sample in scores if _is_unscored(sample, key))
        rate = unscored / len(scores) if scores else _NAN
        return {"parse_failure_rate": rate, "unscored": float(unscored)}

    return compute


@metric
def category_f1() -> Metric:
    """Per-category error F1 of the judge's significant-error counts against the experts' (appendix C).

    Uses the samples whose metadata has both ``expert_significant`` and ``predicted_significant``.

    Returns:
        A metric giving ``f1_a`` ... ``f1_f``, ``f1_all`` (micro over categories) and
        ``f1_n_reports``; the F1 values are NaN when no sample has both counts.
    """

    def compute(scores: list[SampleScore]) -> Value:
        human, predicted = _count_pairs(scores)
        names = [*ERROR_CATEGORIES, "all"]
        if not human:
            f1 = {f"f1_{name}": _NAN for name in names}
        else:
            table = category_error_f1(human, predicted)
            f1 = {f"f1_{name}": float(table[name]["f1"]) for name in names}
        return {**f1, "f1_n_reports": float(len(human))}

    return compute


@metric
def error_count_bias(top_bucket: int = 4) -> Metric:
    """Mean over-estimation of the number of significant errors, by the experts' count (section 5.2).

    Uses the samples whose metadata has both ``expert_significant`` and ``predicted_significant``;
    the totals over categories (a)-(f) are compared.

    Args:
        top_bucket: Expert counts from this value up share one ``<top_bucket>+`` bucket.

    Returns:
        A metric giving ``bias_0``, ``bias_1``, ..., ``bias_<top_bucket>+`` (mean predicted minus
        expert count; NaN for an empty bucket) and ``n_0``, ... (reports per bucket).
    """

    def compute(scores: list[SampleScore]) -> Value:
        human, predicted = _count_pairs(scores)
        buckets = count_bias_by_human_errors(
            [sum(counts.values()) for counts in human],
            [sum(counts.values()) for counts in predicted],
            top_bucket=top_bucket,
        )
        flat: dict[str, float] = {}
        for bucket in buckets:
            flat[f"bias_{bucket['bucket']}"] = float(bucket["mean_bias"])
        for bucket in buckets:
            flat[f"n_{bucket['bucket']}"] = float(bucket["n"])
        return flat

    return compute


def _correlation_names() -> list[str]:
    return [f"{name}{suffix}" for name in _CORRELATIONS for suffix in ("", "_ci_low", "_ci_high")]


def _is_nan_or_none(value: object) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def _is_unscored(sample: SampleScore, key: str | None) -> bool:
    value = sample.score.value
    if isinstance(value, Mapping):
        if key is not None:
            return _is_nan_or_none(value.get(key))
        return all(_is_nan_or_none(v) for v in value.values())
    return _is_nan_or_none(value)


def _judge_value(sample: SampleScore, key: str) -> float | None:
    """The judge's number under `key`, or None when the sample is unscored."""
    value = sample.score.value
    if isinstance(value, Mapping):
        if key not in value:
            raise ValueError(f"sample {sample.sample_id}: score has no key '{key}' (keys: {', '.join(value)})")
        value = value[key]
    if _is_nan_or_none(value):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"sample {sample.sample_id}: score '{key}' is not a number: {value!r}")
    return float(value)


def _metadata(sample: SampleScore) -> dict[str, Any]:
    return sample.score.metadata or {}


def _expert_score(sample: SampleScore) -> float | None:
    value = _metadata(sample).get(EXPERT_SCORE)
    if _is_nan_or_none(value):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"sample {sample.sample_id}: {EXPERT_SCORE} is not a number: {value!r}")
    return float(value)


def _count_pairs(scores: list[SampleScore]) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """Expert and predicted significant-error counts of the samples that have both."""
    human: list[dict[str, int]] = []
    predicted: list[dict[str, int]] = []
    for sample in scores:
        metadata = _metadata(sample)
        expert_counts = metadata.get(EXPERT_SIGNIFICANT)
        judge_counts = metadata.get(PREDICTED_SIGNIFICANT)
        if expert_counts is not None and judge_counts is not None:
            human.append(checked_counts(expert_counts, f"sample {sample.sample_id}: {EXPERT_SIGNIFICANT}"))
            predicted.append(checked_counts(judge_counts, f"sample {sample.sample_id}: {PREDICTED_SIGNIFICANT}"))
    return human, predicted
