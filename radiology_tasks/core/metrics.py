"""Inspect metrics over judged samples: agreement with radiologists, error F1, count bias, judge health.

The scorers give `Score.value` as a dict of floats (e.g. ``{"vert": 0.8, "green": 0.67}``) and follow the
convention of `radiology_tasks.core.unscored`: ``Score.metadata["unscored"]`` gives the reason for each
missing score, ``["filled_in"]`` the scores `-T unscored=worst` set to the bottom of their range. What the
experts said is in the metadata too: ``expert_score`` (normalised to [0, 1]), ``expert_significant`` and
``predicted_significant`` (error counts keyed ``a``-``f``), each possibly None.

Use these metrics in the list form of ``@scorer(metrics=[...])``: there Inspect passes the whole dict value
and the metadata. Every dict key returned here is prefixed so that several metrics of one scorer stay
distinct and readable in ``inspect eval``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal, cast

from inspect_ai.scorer import Metric, MetricProtocol, SampleScore, Value, aggregate, mean, metric

from radiology_tasks.core.agreement import (
    category_error_f1,
    checked_counts,
    correlate,
    count_bias_by_human_errors,
    expert_error_total,
)
from radiology_tasks.core.records import ERROR_CATEGORIES
from radiology_tasks.core.unscored import ANSWER_FORMAT_REASONS, is_filled_in, unscored_reason

EXPERT_SCORE = "expert_score"
EXPERT_SIGNIFICANT = "expert_significant"
EXPERT_RATERS = "expert_raters"
PREDICTED_SIGNIFICANT = "predicted_significant"

_NAN = float("nan")
_CORRELATIONS = ("kendall_tau", "spearman", "pearson")


ExpertTruth = Literal["score", "significant_errors"]


@metric
def expert_agreement(
    key: str,
    *,
    higher_is_better: bool = True,
    truth: ExpertTruth = "score",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> Metric:
    """Correlation of one judge score with the experts (Kendall tau-b, Spearman, Pearson).

    With ``truth="score"`` the judge is compared with the expert score; with ``truth="significant_errors"``
    with the experts' total of clinically significant errors (a mean over raters where the data has several:
    GREEN's ReXVal protocol), taken as the better the fewer, so a positive tau means agreement either way. That
    total is added up exactly (`radiology_tasks.core.agreement.expert_error_total`), so candidates whose raters
    counted the
    same total are tied however the errors were split over categories.

    Samples whose judge score is NaN/None, or was filled in by ``-T unscored=worst`` (not the judge's
    number), are counted in ``<key>_n_unscored``; samples without an expert score in ``<key>_n_no_expert``.
    Values are NaN when no sample has both.

    Args:
        key: Key of the dict `Score.value` to correlate (a plain float value is used as is).
        higher_is_better: False for error counts (e.g. ``green_ec``): the judge score is negated,
            so a positive tau means agreement with the experts.
        truth: What the experts said that the judge is compared with.
        n_resamples: Bootstrap resamples for the confidence intervals.
        confidence: Coverage of the bootstrap percentile intervals.
        seed: Seed of the bootstrap.

    Returns:
        A metric giving ``<key>_kendall_tau``, ``<key>_kendall_tau_ci_low``/``_ci_high``, the same
        for ``spearman`` and ``pearson``, ``<key>_n_pairs``, ``<key>_n_unscored``,
        ``<key>_n_no_expert`` and ``<key>_sign`` (-1 when the score was negated before correlating);
        with ``truth="significant_errors"`` the prefix is ``<key>_vs_errors_``.
    """
    prefix = key if truth == "score" else f"{key}_vs_errors"
    expert_value = _expert_score if truth == "score" else _expert_errors

    def compute(scores: list[SampleScore]) -> Value:
        judge: list[float] = []
        expert: list[float] = []
        n_unscored = n_no_expert = 0
        for sample in scores:
            value = _judge_value(sample, key)
            if value is None:
                n_unscored += 1
                continue
            said = expert_value(sample)
            if said is None:
                n_no_expert += 1
                continue
            judge.append(value)
            expert.append(said)
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
        return {f"{prefix}_{name}": number for name, number in flat.items()}

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
    """Share of samples whose judge answer could not be read, and the number of samples left unscored.

    Args:
        key: The score to count (the task's main score). A sample is unscored when its metadata gives a
            reason for `key` (or, without such metadata, when the value under `key` is NaN/None); it is a
            parse failure when that reason is one of `ANSWER_FORMAT_REASONS`. Without a key, a sample
            counts when every value is NaN/None.

    Returns:
        A metric giving ``parse_failure_rate`` (NaN when there are no samples) and ``unscored`` (every
        reason: judge answer unreadable, judge or generator failure, empty candidate).
    """

    def compute(scores: list[SampleScore]) -> Value:
        reasons = [_reason(sample, key) for sample in scores]
        unscored = sum(1 for reason in reasons if reason is not None)
        failures = sum(1 for reason in reasons if reason in ANSWER_FORMAT_REASONS)
        rate = failures / len(scores) if scores else _NAN
        return {"parse_failure_rate": rate, "unscored": float(unscored)}

    return compute


@metric
def judge_calls() -> Metric:
    """What the judge cost and how often it had to be asked again.

    Reads the judge metadata of `radiology_tasks.core.judge.JudgeResult.metadata`; samples without it
    (no judge call was made) count as zero calls.

    Returns:
        A metric giving ``retried`` and ``truncated`` (samples whose judge was asked more than once, or
        whose answer stopped at its token budget), and per sample ``judge_calls_per_sample``,
        ``judge_input_tokens_per_sample`` and ``judge_output_tokens_per_sample``.
    """

    def compute(scores: list[SampleScore]) -> Value:
        metadata = [_metadata(sample) for sample in scores]
        n = len(scores)

        def per_sample(field: str) -> float:
            return sum(float(m.get(field) or 0) for m in metadata) / n if n else _NAN

        return {
            "retried": float(sum(1 for m in metadata if m.get("judge_retried"))),
            "truncated": float(sum(1 for m in metadata if m.get("judge_truncated"))),
            "judge_calls_per_sample": per_sample("judge_calls"),
            "judge_input_tokens_per_sample": per_sample("judge_input_tokens"),
            "judge_output_tokens_per_sample": per_sample("judge_output_tokens"),
        }

    return compute


@metric
def report_truncated() -> Metric:
    """Generated reports cut at their token budget (``-T generate=true``; still judged, the generator's fault).

    Returns:
        A metric giving ``report_truncated``, the number of samples whose ``generation`` metadata is
        flagged ``truncated``.
    """

    def compute(scores: list[SampleScore]) -> Value:
        flagged = sum(1 for sample in scores if (_metadata(sample).get("generation") or {}).get("truncated"))
        return {"report_truncated": float(flagged)}

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


def _reason(sample: SampleScore, key: str | None) -> str | None:
    """Why `key` is missing from the sample (``invalid_response_format`` when only a NaN says so), or None."""
    if key is not None and "unscored" in _metadata(sample):
        return unscored_reason(_metadata(sample), key)
    value = sample.score.value
    if isinstance(value, Mapping):
        missing = (
            _is_nan_or_none(value.get(key)) if key is not None else all(_is_nan_or_none(v) for v in value.values())
        )
    else:
        missing = _is_nan_or_none(value)
    return (sample.score.reason or "invalid_response_format") if missing else None


def _judge_value(sample: SampleScore, key: str) -> float | None:
    """The judge's number under `key`, or None when the sample is unscored or the number was filled in."""
    if is_filled_in(_metadata(sample), key):
        return None
    value: object = sample.score.value
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


def _expert_errors(sample: SampleScore) -> float | None:
    """The experts' significant errors over (a)-(f), negated so that more errors rank lower; None without counts.

    The total is exact (means over raters are added as fractions) and becomes a float only here, once.
    """
    metadata = _metadata(sample)
    counts = metadata.get(EXPERT_SIGNIFICANT)
    if counts is None:
        return None
    total = expert_error_total(counts, metadata.get(EXPERT_RATERS), f"sample {sample.sample_id}: {EXPERT_SIGNIFICANT}")
    return -float(total)


def _count_pairs(scores: list[SampleScore]) -> tuple[list[dict[str, int]], list[dict[str, int]]]:
    """Expert and predicted significant-error counts of the samples that have both.

    Counts that are means over several raters are left out: matches per category are defined on whole counts.
    """
    human: list[dict[str, int]] = []
    predicted: list[dict[str, int]] = []
    for sample in scores:
        metadata = _metadata(sample)
        if (metadata.get(EXPERT_RATERS) or 1) > 1:
            continue
        expert_counts = metadata.get(EXPERT_SIGNIFICANT)
        judge_counts = metadata.get(PREDICTED_SIGNIFICANT)
        if expert_counts is not None and judge_counts is not None:
            human.append(checked_counts(expert_counts, f"sample {sample.sample_id}: {EXPERT_SIGNIFICANT}"))
            predicted.append(checked_counts(judge_counts, f"sample {sample.sample_id}: {PREDICTED_SIGNIFICANT}"))
    return human, predicted
