"""Inspect metrics over judged samples: agreement with radiologists, error F1, count bias, judge health.

The scorers give `Score.value` as a dict of floats (e.g. ``{"vert": 0.8, "green": 0.67}``) and follow the
convention of `radiology_tasks.core.unscored`: ``Score.metadata["unscored"]`` gives the reason for each
missing score, ``["filled_in"]`` the scores `-T unscored=worst` set to the bottom of their range. What the
experts said is in the metadata too, as `expert_metadata` writes it: ``expert_score`` (normalised to [0, 1]),
``expert_significant`` and ``expert_insignificant`` (error counts keyed ``a``-``f``, means over
``expert_raters`` raters where there are several), ``expert_group`` (the study, so that candidates of one study can
be compared), each possibly None; a judge that counts errors adds ``predicted_significant``.

Every agreement statistic here reads each score's orientation from `radiology_tasks.core.orientation`, so a
positive correlation, or a right preference, always means agreement with the experts.

Use these metrics in the list form of ``@scorer(metrics=[...])``: there Inspect passes the whole dict value
and the metadata. Every dict key returned here is prefixed so that several metrics of one scorer stay
distinct and readable in ``inspect eval``.
"""

from __future__ import annotations

import hashlib
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
    preference_outcome,
)
from radiology_tasks.core.family import orientation
from radiology_tasks.core.records import ERROR_CATEGORIES
from radiology_tasks.core.studies import study_key
from radiology_tasks.core.unscored import ANSWER_FORMAT_REASONS, is_filled_in, unscored_reason

if TYPE_CHECKING:
    from radiology_tasks.core.records import ReportPair

EXPERT_SCORE = "expert_score"
EXPERT_SIGNIFICANT = "expert_significant"
EXPERT_INSIGNIFICANT = "expert_insignificant"
EXPERT_RATERS = "expert_raters"
EXPERT_GROUP = "expert_group"
PREDICTED_SIGNIFICANT = "predicted_significant"
LEGACY_GROUP = "reference_key"
"""Where CRIMSON logs written before `EXPERT_GROUP` existed record the candidate's reference."""

_NAN = float("nan")
_CORRELATIONS = ("kendall_tau", "spearman", "pearson")
_BRIEF_AGREEMENT = ("kendall_tau", "kendall_tau_ci_low", "kendall_tau_ci_high")


ExpertTruth = Literal["score", "significant_errors", "total_errors"]
"""What the experts said that a score is correlated with: their score, their mean clinically significant errors
(GREEN's ReXVal protocol), or their mean errors of any significance (ReXVal's own protocol)."""

TRUTH_PREFIXES: dict[ExpertTruth, str] = {
    "score": "",
    "significant_errors": "_vs_errors",
    "total_errors": "_vs_total_errors",
}
"""What follows the score key in the names of an agreement statistic, per expert truth."""


def expert_metadata(pair: ReportPair | None) -> dict[str, Any]:
    """What the experts said about the pair's candidate, as every scorer records it in its score metadata.

    Rater means are held as exact fractions and logged as floats; readers add them up exactly again with
    ``expert_raters`` (`radiology_tasks.core.agreement.expert_error_total`). None for a candidate the experts did not
    rate (a generated one, or one given with ``-T candidates``): every field is then None.
    """
    expert = pair.expert if pair is not None else None
    return {
        EXPERT_SCORE: expert.normalized_score if expert else None,
        EXPERT_SIGNIFICANT: expert.significant.model_dump() if expert and expert.significant else None,
        EXPERT_INSIGNIFICANT: expert.insignificant.model_dump() if expert and expert.insignificant else None,
        EXPERT_RATERS: expert.raters if expert else None,
        EXPERT_GROUP: _study_digest(pair) if pair is not None and expert else None,
    }


def _study_digest(pair: ReportPair) -> str:
    """A short name of the pair's study: pairs of one study (`radiology_tasks.core.studies.study_key`) share it."""
    return hashlib.sha256(study_key(pair).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class ExpertPresence:
    """What the experts said about a run's samples, as the metric lists need it.

    Attributes:
        score: Some sample has an expert score.
        counts: Some sample has the experts' significant-error counts.
        single_rater_counts: Some sample has such counts from a single rater (whole counts).
        total_counts: Some sample has both the significant and the insignificant counts (ReXVal), so a total.
        preferences: Two candidates of one study have different expert scores, so the experts prefer one.
    """

    score: bool
    counts: bool
    single_rater_counts: bool
    total_counts: bool = False
    preferences: bool = False

    @classmethod
    def of_pairs(cls, pairs: Sequence[ReportPair]) -> ExpertPresence:
        """From the pairs a task is built on."""
        return cls.of_metadata([expert_metadata(pair) for pair in pairs])

    @classmethod
    def of_samples(cls, samples: Sequence[SampleScore]) -> ExpertPresence:
        """From a log's samples (what the scorer recorded in each score's metadata)."""
        return cls.of_metadata([_metadata(sample) for sample in samples])

    @classmethod
    def of_metadata(cls, metadata: Sequence[Mapping[str, Any]]) -> ExpertPresence:
        """From the expert fields of each sample (`expert_metadata`)."""
        counted = [m for m in metadata if m.get(EXPERT_SIGNIFICANT) is not None]
        scores_by_group: dict[str, set[float]] = {}
        for m in metadata:
            group, score = _group(m), m.get(EXPERT_SCORE)
            if group is not None and isinstance(score, int | float) and not math.isnan(score):
                scores_by_group.setdefault(group, set()).add(float(score))
        return cls(
            score=any(m.get(EXPERT_SCORE) is not None for m in metadata),
            counts=bool(counted),
            single_rater_counts=any((m.get(EXPERT_RATERS) or 1) == 1 for m in counted),
            total_counts=any(m.get(EXPERT_INSIGNIFICANT) is not None for m in counted),
            preferences=any(len(scores) > 1 for scores in scores_by_group.values()),
        )

    def truths(self) -> list[ExpertTruth]:
        """The expert truths a score can be correlated with on these samples."""
        present = {"score": self.score, "significant_errors": self.counts, "total_errors": self.total_counts}
        return [truth for truth in TRUTH_PREFIXES if present[truth]]


def agreement_metrics(key: str, experts: ExpertPresence, *, brief: bool = False) -> list[Metric]:
    """Every agreement statistic of the score `key` that the experts' data allows, in one list.

    Kendall tau-b, Spearman and Pearson against each expert truth present (`ExpertPresence.truths`), and pairwise
    preference accuracy where two candidates of one study were rated differently. With `brief`, only tau against
    the expert score (a run's summary), or nothing when there is none.
    """
    if brief:
        return [expert_agreement(key, brief=True)] if experts.score else []
    metrics: list[Metric] = [expert_agreement(key, truth=truth) for truth in experts.truths()]
    if experts.preferences:
        metrics.append(preference_agreement(key))
    return metrics


@metric
def expert_agreement(
    key: str,
    *,
    higher_is_better: bool | None = None,
    truth: ExpertTruth = "score",
    n_resamples: int = 1000,
    confidence: float = 0.95,
    seed: int = 0,
    brief: bool = False,
) -> Metric:
    """Correlation of one score with the experts (Kendall tau-b, Spearman, Pearson).

    With ``truth="score"`` the score is compared with the expert score; with ``truth="significant_errors"`` with
    the experts' total of clinically significant errors (a mean over raters where the data has several: GREEN's
    ReXVal protocol), and with ``truth="total_errors"`` with their total of errors of any significance (ReXVal's
    own protocol); errors are taken as the better the fewer, so a positive tau means agreement either way. Totals
    are added up exactly (`radiology_tasks.core.agreement.expert_error_total`), so candidates whose raters
    counted the same total are tied however the errors were split over categories or significance.

    The bootstrap resamples the samples in the order of their ids, so the intervals do not depend on the order in
    which the samples finished. Samples whose score is NaN/None, or was filled in by ``-T unscored=worst``
    (not the metric's number), are counted in ``<key>_n_unscored``; samples without the expert truth in
    ``<key>_n_no_expert``. Values are NaN when no sample has both.

    Args:
        key: Key of the dict `Score.value` to correlate (a plain float value is used as is).
        higher_is_better: Whether a higher score means a better report; None (the default) takes what the
            score's family declares (`radiology_tasks.core.orientation`). Lower-is-better scores are negated,
            so a positive tau means agreement with the experts.
        truth: What the experts said that the score is compared with.
        n_resamples: Bootstrap resamples for the confidence intervals.
        confidence: Coverage of the bootstrap percentile intervals.
        seed: Seed of the bootstrap.
        brief: Give only Kendall's tau and its interval, leaving out a value that is undefined on these
            samples (a run's summary; `radiology-tasks report` says why it is missing).

    Returns:
        A metric giving ``<key>_kendall_tau``, ``<key>_kendall_tau_ci_low``/``_ci_high``, the same
        for ``spearman`` and ``pearson``, ``<key>_n_pairs``, ``<key>_n_unscored``,
        ``<key>_n_no_expert`` and ``<key>_sign`` (-1 when the score was negated before correlating);
        with ``truth="significant_errors"`` the prefix is ``<key>_vs_errors_``, with ``truth="total_errors"``
        ``<key>_vs_total_errors_``.
    """
    prefix = f"{key}{TRUTH_PREFIXES[truth]}"
    higher = orientation(key).higher_is_better if higher_is_better is None else higher_is_better

    def compute(scores: list[SampleScore]) -> Value:
        pairs = agreement_pairs(scores, key, truth, higher_is_better=True)
        flat = _agreement_values(
            pairs, higher=higher, n_resamples=n_resamples, confidence=confidence, seed=seed, brief=brief
        )
        if brief:
            return {f"{prefix}_{name}": flat[name] for name in _BRIEF_AGREEMENT if not math.isnan(flat[name])}
        return {f"{prefix}_{name}": number for name, number in flat.items()}

    return compute


def _agreement_values(
    pairs: AgreementPairs, *, higher: bool, n_resamples: int, confidence: float, seed: int, brief: bool
) -> dict[str, float]:
    """The correlations of `pairs` with their intervals (NaN without a pair; `brief`: tau-b's interval alone), then
    the pair counts and the sign."""
    flat = {name: _NAN for name in _correlation_names()}
    if pairs.judge:
        agreement = correlate(
            pairs.judge,
            pairs.expert,
            higher_is_better=higher,
            n_resamples=n_resamples,
            confidence=confidence,
            seed=seed,
            kendall_interval_only=brief,
        ).as_dict()
        flat = {name: agreement[name] for name in _correlation_names()}
    return flat | {
        "n_pairs": float(len(pairs.judge)),
        "n_unscored": float(pairs.n_unscored),
        "n_no_expert": float(pairs.n_no_expert),
        "sign": 1.0 if higher else -1.0,
    }


@dataclass(frozen=True)
class AgreementPairs:
    """A score and an expert truth side by side, over the samples that have both, in sample id order.

    Attributes:
        ids: The samples' ids.
        judge: The score of each sample, oriented so that higher is better (lower-is-better scores negated).
        expert: The experts' truth, oriented so that higher is better (error totals negated).
        n_unscored: Samples whose score is missing or was filled in by ``-T unscored=worst``.
        n_no_expert: Samples with a score but without the expert truth.
    """

    ids: list[str]
    judge: list[float]
    expert: list[float]
    n_unscored: int
    n_no_expert: int


def agreement_pairs(
    scores: Sequence[SampleScore], key: str, truth: ExpertTruth, *, higher_is_better: bool | None = None
) -> AgreementPairs:
    """The samples' score `key` beside the expert `truth`, where both are present (what every agreement uses).

    Args:
        scores: The samples.
        key: The score key.
        truth: The expert truth.
        higher_is_better: Orientation of the score; None takes its family's declaration
            (`radiology_tasks.core.orientation`). True leaves the score as it is.
    """
    sign = 1.0 if (orientation(key).higher_is_better if higher_is_better is None else higher_is_better) else -1.0
    expert_value = _TRUTH_VALUES[truth]
    ids: list[str] = []
    judge: list[float] = []
    expert: list[float] = []
    n_unscored = n_no_expert = 0
    for sample in _in_id_order(list(scores)):
        value = _judge_value(sample, key)
        if value is None:
            n_unscored += 1
            continue
        said = expert_value(sample)
        if said is None:
            n_no_expert += 1
            continue
        ids.append(str(sample.sample_id))
        judge.append(sign * value)
        expert.append(said)
    return AgreementPairs(ids, judge, expert, n_unscored, n_no_expert)


@metric
def preference_agreement(key: str, *, brief: bool = False) -> Metric:
    """How often the score `key` orders two candidates of one study as the experts did (pairwise preference).

    The experts prefer, of two candidates of one study (``expert_group``), the one with the higher expert score
    (the mean rating over the raters: RadPref's protocol); two candidates with the same expert score carry no
    preference and are left out. The score agrees (right) when it ranks the preferred candidate better, disagrees
    (wrong) when it ranks the other better, and states no preference (a tie, counted apart) when the two lie within
    the score's tie tolerance (`radiology_tasks.core.orientation`). Samples unscored or filled in by
    ``-T unscored=worst`` take no part.

    Args:
        key: Key of the dict `Score.value`.
        brief: Give only the accuracy, and nothing when no pair has an expert preference (a run's summary).

    Returns:
        A metric giving ``<key>_preference_accuracy`` (right / (right + wrong); NaN when there is no such pair),
        and unless `brief` ``<key>_preference_pairs`` (pairs with an expert preference and both scores),
        ``<key>_preference_right``, ``<key>_preference_wrong`` and ``<key>_preference_ties``.
    """
    declared = orientation(key)

    def compute(scores: list[SampleScore]) -> Value:
        outcome = preference_outcome(preference_rows(scores, key), tie_tolerance=declared.tie_tolerance)
        if brief:
            return {} if outcome.right + outcome.wrong == 0 else {f"{key}_preference_accuracy": outcome.accuracy}
        return {
            f"{key}_preference_accuracy": outcome.accuracy,
            f"{key}_preference_pairs": float(outcome.pairs),
            f"{key}_preference_right": float(outcome.right),
            f"{key}_preference_wrong": float(outcome.wrong),
            f"{key}_preference_ties": float(outcome.ties),
        }

    return compute


def preference_rows(scores: Sequence[SampleScore], key: str) -> list[tuple[str, float, float]]:
    """(study, expert score, score oriented higher-is-better) of each sample scored under `key` and rated by the
    experts, in sample id order."""
    sign = orientation(key).sign
    rows = []
    for sample in _in_id_order(list(scores)):
        value, expert, group = _judge_value(sample, key), _expert_score(sample), _group(_metadata(sample))
        if value is not None and expert is not None and group is not None:
            rows.append((group, expert, sign * value))
    return rows


def _group(metadata: Mapping[str, Any]) -> str | None:
    """The study a sample's candidate belongs to (older CRIMSON logs: its reference), or None."""
    group = metadata.get(EXPERT_GROUP, metadata.get(LEGACY_GROUP))
    return None if group is None else str(group)


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


def _expert_total_errors(sample: SampleScore) -> float | None:
    """The experts' errors of any significance over (a)-(f), negated; None unless both kinds of count are there.

    Significant and insignificant totals are added as exact fractions, so equal totals stay equal.
    """
    metadata = _metadata(sample)
    significant, insignificant = metadata.get(EXPERT_SIGNIFICANT), metadata.get(EXPERT_INSIGNIFICANT)
    if significant is None or insignificant is None:
        return None
    raters = metadata.get(EXPERT_RATERS)
    where = f"sample {sample.sample_id}: "
    total = expert_error_total(significant, raters, where + EXPERT_SIGNIFICANT) + expert_error_total(
        insignificant, raters, where + EXPERT_INSIGNIFICANT
    )
    return -float(total)


_TRUTH_VALUES: dict[ExpertTruth, Callable[[SampleScore], float | None]] = {
    "score": _expert_score,
    "significant_errors": _expert_errors,
    "total_errors": _expert_total_errors,
}


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
    if name == "preference_agreement":
        return _preference_reason(key, samples)
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
    truth: ExpertTruth = "score"
    for name, suffix in TRUTH_PREFIXES.items():
        if suffix and prefix.endswith(suffix):
            truth = name
    score_key = prefix.removesuffix(TRUTH_PREFIXES[truth])
    judge: list[float] = []
    expert: list[float] = []
    for sample in samples:
        value = _judge_value(sample, score_key) if isinstance(sample.score.value, Mapping) else None
        said = _TRUTH_VALUES[truth](sample)
        if value is not None and said is not None:
            judge.append(value)
            expert.append(said)
    what = {
        "score": "an expert score",
        "significant_errors": "the experts' error counts",
        "total_errors": "the experts' counts of significant and insignificant errors",
    }[truth]
    if len(judge) < 2:
        return f"only {len(judge)} sample(s) have both a judge {score_key} and {what}; a correlation needs 2"
    if len(set(judge)) == 1:
        return f"the judge gave all {len(judge)} expert-rated samples the same {score_key} ({judge[0]:g})"
    if len(set(expert)) == 1:
        return f"the experts gave all {len(expert)} samples the same value, so nothing can be ranked against them"
    if interval:
        return f"no bootstrap resample was drawn for the {len(judge)} pairs (n_resamples 0)"
    return f"{statistic} is undefined on these {len(judge)} pairs"


def _preference_reason(key: str, samples: Sequence[SampleScore]) -> str:
    """Why the preference accuracy is undefined: no pair with an expert preference, or every such pair tied."""
    score_key = key.removesuffix("_preference_accuracy")
    rows = preference_rows(samples, score_key)
    outcome = preference_outcome(rows, tie_tolerance=orientation(score_key).tie_tolerance)
    if outcome.pairs:
        return f"the {score_key} scores tie on all {outcome.pairs} pairs the experts rated differently"
    return (
        f"no two of the {len(rows)} samples with a {score_key} score and an expert score belong to one study with "
        "different expert scores, so there is no preference to agree with"
    )


def _f1_reason(key: str, samples: Sequence[SampleScore]) -> str:
    human, _ = _count_pairs(list(samples))
    if not human:
        return "no sample has both whole expert error counts (a single rater) and the judge's counts"
    return f"{key} is undefined on these {len(human)} reports"
