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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

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

if TYPE_CHECKING:
    from radiology_tasks.core.records import ReportPair

EXPERT_SCORE = "expert_score"
EXPERT_SIGNIFICANT = "expert_significant"
EXPERT_RATERS = "expert_raters"
PREDICTED_SIGNIFICANT = "predicted_significant"

_NAN = float("nan")
_CORRELATIONS = ("kendall_tau", "spearman", "pearson")
_BRIEF_AGREEMENT = ("kendall_tau", "kendall_tau_ci_low", "kendall_tau_ci_high")


ExpertTruth = Literal["score", "significant_errors"]


@dataclass(frozen=True)
class ExpertPresence:
    """What the experts said about a run's samples, as the metric lists need it.

    Attributes:
        score: Some sample has an expert score.
        counts: Some sample has the experts' significant-error counts.
        single_rater_counts: Some sample has such counts from a single rater (whole counts).
    """

    score: bool
    counts: bool
    single_rater_counts: bool

    @classmethod
    def of_pairs(cls, pairs: Sequence[ReportPair]) -> ExpertPresence:
        """From the pairs a task is built on."""
        experts = [p.expert for p in pairs if p.expert is not None]
        counted = [e for e in experts if e.significant is not None]
        return cls(
            score=any(e.score is not None for e in experts),
            counts=bool(counted),
            single_rater_counts=any((e.raters or 1) == 1 for e in counted),
        )

    @classmethod
    def of_samples(cls, samples: Sequence[SampleScore]) -> ExpertPresence:
        """From a log's samples (what the scorer recorded in each score's metadata)."""
        metadata = [_metadata(sample) for sample in samples]
        counted = [m for m in metadata if m.get(EXPERT_SIGNIFICANT) is not None]
        return cls(
            score=any(m.get(EXPERT_SCORE) is not None for m in metadata),
            counts=bool(counted),
            single_rater_counts=any((m.get(EXPERT_RATERS) or 1) == 1 for m in counted),
        )


@metric
def expert_agreement(
    key: str,
    *,
    higher_is_better: bool = True,
    truth: ExpertTruth = "score",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    brief: bool = False,
) -> Metric:
    """Correlation of one judge score with the experts (Kendall tau-b, Spearman, Pearson).

    With ``truth="score"`` the judge is compared with the expert score; with ``truth="significant_errors"``
    with the experts' total of clinically significant errors (a mean over raters where the data has several:
    GREEN's ReXVal protocol), taken as the better the fewer, so a positive tau means agreement either way. That
    total is added up exactly (`radiology_tasks.core.agreement.expert_error_total`), so candidates whose raters
    counted the
    same total are tied however the errors were split over categories.

    The bootstrap resamples the samples in the order of their ids, so the intervals do not depend on the order in
    which the samples finished. Samples whose judge score is NaN/None, or was filled in by ``-T unscored=worst``
    (not the judge's number), are counted in ``<key>_n_unscored``; samples without an expert score in
    ``<key>_n_no_expert``. Values are NaN when no sample has both.

    Args:
        key: Key of the dict `Score.value` to correlate (a plain float value is used as is).
        higher_is_better: False for error counts (e.g. ``green_ec``): the judge score is negated,
            so a positive tau means agreement with the experts.
        truth: What the experts said that the judge is compared with.
        n_resamples: Bootstrap resamples for the confidence intervals.
        confidence: Coverage of the bootstrap percentile intervals.
        seed: Seed of the bootstrap.
        brief: Give only Kendall's tau and its interval, leaving out a value that is undefined on these
            samples (a run's summary; `radiology-tasks report` says why it is missing).

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
        for sample in _in_id_order(scores):
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
        if brief:
            return {f"{prefix}_{name}": flat[name] for name in _BRIEF_AGREEMENT if not math.isnan(flat[name])}
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
def mean_interval(key: str, *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0) -> Metric:
    """Seeded bootstrap percentile interval of the mean of one key of the dict `Score.value`.

    Resamples the samples that have a number under `key` (NaN is skipped, as in `mean_of`) with
    `scipy.stats.bootstrap`. An interval needs two such samples: with fewer the metric gives nothing, and
    `radiology-tasks report` says why.

    Args:
        key: Key of the dict `Score.value`.
        n_resamples: Bootstrap resamples.
        confidence: Coverage of the interval, in (0, 1).
        seed: Seed of the bootstrap generator.

    Returns:
        A metric giving ``<key>_ci_low`` and ``<key>_ci_high``, or an empty dict with fewer than two numbers.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples}")

    def compute(scores: list[SampleScore]) -> Value:
        values = [v for v in (_plain_value(sample, key) for sample in _in_id_order(scores)) if v is not None]
        if len(values) < MIN_INTERVAL_SAMPLES:
            return {}
        low, high = bootstrap_mean_interval(values, n_resamples=n_resamples, confidence=confidence, seed=seed)
        return {f"{key}_ci_low": low, f"{key}_ci_high": high}

    return compute


MIN_INTERVAL_SAMPLES = 2
"""Numbers a bootstrap interval of a mean needs."""


def bootstrap_mean_interval(
    values: list[float], *, n_resamples: int = 1000, confidence: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile bootstrap interval of the mean of `values` (at least two), seeded; a constant gives (c, c)."""
    import numpy as np
    from scipy.stats import bootstrap

    data = np.asarray(values, dtype=float)
    if np.all(data == data[0]):
        return float(data[0]), float(data[0])
    result = bootstrap(
        (data,),
        np.mean,
        n_resamples=n_resamples,
        confidence_level=confidence,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def bootstrap_statistic_interval(
    scores: list[SampleScore],
    statistic: Callable[[list[SampleScore]], float],
    *,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of a corpus statistic (an F1 over all samples, say) over resampled samples.

    The samples are resampled in the order of their ids with a seeded generator; resamples on which the statistic
    is NaN are left out. None with fewer than `MIN_INTERVAL_SAMPLES` samples or no defined resample.
    """
    import numpy as np

    if len(scores) < MIN_INTERVAL_SAMPLES:
        return None
    ordered = _in_id_order(scores)
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(n_resamples):
        drawn = rng.integers(0, len(ordered), len(ordered))
        value = statistic([ordered[i] for i in drawn])
        if not math.isnan(value):
            values.append(value)
    if not values:
        return None
    tail = (1.0 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


@metric
def unscored_share(key: str) -> Metric:
    """Share of samples whose score under `key` is missing or was filled in (any reason; see `parse_failure_rate`).

    Args:
        key: The task's main score.

    Returns:
        A metric giving ``unscored_share`` (nothing when there are no samples).
    """

    def compute(scores: list[SampleScore]) -> Value:
        if not scores:
            return {}
        missing = sum(1 for sample in scores if _reason(sample, key) is not None)
        return {"unscored_share": missing / len(scores)}

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
def judge_calls(brief: bool = False) -> Metric:
    """What the judge cost and how often it had to be asked again.

    Reads the judge metadata of `radiology_tasks.core.judge.JudgeResult.metadata`; samples without it
    (no judge call was made) count as zero calls.

    Args:
        brief: Give only the calls and the tokens (input and output together) per sample: a run's summary.

    Returns:
        A metric giving ``retried`` and ``truncated`` (samples whose judge was asked more than once, or
        whose answer stopped at its token budget), and per sample ``judge_calls_per_sample``,
        ``judge_input_tokens_per_sample`` and ``judge_output_tokens_per_sample``; with `brief`,
        ``judge_calls_per_sample`` and ``judge_tokens_per_sample`` only (nothing when there are no samples).
    """

    def compute(scores: list[SampleScore]) -> Value:
        metadata = [_metadata(sample) for sample in scores]
        n = len(scores)

        def per_sample(field: str) -> float:
            return sum(float(m.get(field) or 0) for m in metadata) / n if n else _NAN

        if brief:
            if not n:
                return {}
            tokens = per_sample("judge_input_tokens") + per_sample("judge_output_tokens")
            return {"judge_calls_per_sample": per_sample("judge_calls"), "judge_tokens_per_sample": tokens}

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


def _in_id_order(scores: list[SampleScore]) -> list[SampleScore]:
    """The scores ordered by sample id: Inspect hands metrics the samples in the order they finished, and a seeded
    bootstrap must resample the same sequence whenever it is recomputed (from the log, by the report)."""
    return sorted(scores, key=lambda sample: str(sample.sample_id))


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


def _plain_value(sample: SampleScore, key: str) -> float | None:
    """The number under `key` as the means read it (filled-in values included), or None when it is NaN/None."""
    value: object = sample.score.value
    if isinstance(value, Mapping):
        value = value.get(key)
    if _is_nan_or_none(value):
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"sample {sample.sample_id}: score '{key}' is not a number: {value!r}")
    return float(value)


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


def undefined_reason(metric: str, key: str, samples: Sequence[SampleScore]) -> str:
    """Why the metric registered as `metric` gives NaN under `key` on these samples, in a sentence.

    Knows the metrics of this module; for any other it says that the samples lack what the statistic needs.
    """
    name = metric.split("/")[-1]
    n = len(samples)
    if n == 0:
        return "the run has no samples"
    if name == "expert_agreement":
        return _agreement_reason(key, samples)
    if name == "mean_of":
        return f"no sample has a number under {key.removesuffix('_mean')} (every one is unscored)"
    if name == "category_f1":
        return _f1_reason(key, samples)
    if name == "error_count_bias":
        bucket = key.removeprefix("bias_")
        return f"no expert-rated report has {bucket} significant error(s), so there is no bias to average"
    return f"{name} has no value for {key} on these {n} samples (none of the kind it needs)"


def _agreement_reason(key: str, samples: Sequence[SampleScore]) -> str:
    """Why a correlation (or its interval) with the experts is undefined: too few pairs or a constant side."""
    for statistic in _CORRELATIONS:
        for suffix in ("_ci_low", "_ci_high", ""):
            if key.endswith(f"_{statistic}{suffix}"):
                prefix = key.removesuffix(f"_{statistic}{suffix}")
                interval = bool(suffix)
                break
        else:
            continue
        break
    else:
        return f"{key} is not a correlation this metric gives"
    errors = prefix.endswith("_vs_errors")
    score_key = prefix.removesuffix("_vs_errors")
    truth = _expert_errors if errors else _expert_score
    judge: list[float] = []
    expert: list[float] = []
    for sample in samples:
        value = _judge_value(sample, score_key) if isinstance(sample.score.value, Mapping) else None
        said = truth(sample)
        if value is not None and said is not None:
            judge.append(value)
            expert.append(said)
    what = "the experts' error counts" if errors else "an expert score"
    if len(judge) < 2:
        return f"only {len(judge)} sample(s) have both a judge {score_key} and {what}; a correlation needs 2"
    if len(set(judge)) == 1:
        return f"the judge gave all {len(judge)} expert-rated samples the same {score_key} ({judge[0]:g})"
    if len(set(expert)) == 1:
        return f"the experts gave all {len(expert)} samples the same value, so nothing can be ranked against them"
    if interval:
        return f"every bootstrap resample of the {len(judge)} pairs was constant on one side"
    return f"{statistic} is undefined on these {len(judge)} pairs"


def _f1_reason(key: str, samples: Sequence[SampleScore]) -> str:
    human, _ = _count_pairs(list(samples))
    if not human:
        return "no sample has both whole expert error counts (a single rater) and the judge's counts"
    return f"{key} is undefined on these {len(human)} reports"
