"""Inspect metrics of the judge-sensitivity task, over every variant's score (see `scorers.judge_sensitivity`).

Each sample's score carries ``metadata["variant"]`` (kind, category, n_errors, source_id, excluded) next to
the judge's scores and counts as `radiology_tasks.green_vert` records them. Only the judge's own numbers
count: a value filled in under ``-T unscored=worst`` and a variant whose judge answer could not be read are
left out, as the definitions in `scorers.judge_sensitivity.sensitivity` say.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypeVar

from inspect_ai.scorer import Metric, SampleScore, Value, metric

from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.judge_sensitivity.records import SensitivityRecord
from radiology_tasks.scorers.judge_sensitivity.sensitivity import (
    JudgedVariant,
    balance,
    count_recovery,
    detection_f1,
    discrimination,
    exclusions,
    monotonicity,
    robustness,
    score_trend,
)

SIGNIFICANT_KEY = "green_ec"
"""The score key holding the judge's count of clinically significant errors."""


def _number(sample: SampleScore, key: str) -> float | None:
    """The judge's own number under `key`, None when missing, NaN or filled in."""
    value = sample.score.value
    number = value.get(key) if isinstance(value, dict) else None
    if number is None or is_filled_in(sample.score.metadata, key):
        return None
    number = float(number)
    return None if math.isnan(number) else number


def judged_variants(scores: Sequence[SampleScore], main_key: str | None) -> list[JudgedVariant]:
    """The variants of a run as the metric arithmetic takes them.

    Args:
        scores: The samples' scores.
        main_key: The prompt's main score key (``vert``, ``green``, ...); None when no metric needs the score.
    """
    return [_judged(sample, main_key) for sample in scores]


def _judged(sample: SampleScore, main_key: str | None) -> JudgedVariant:
    record = SensitivityRecord.read(sample.score.metadata)
    variant = record.variant
    if variant is None:
        raise ValueError(f"sample {sample.sample_id}: its score records no variant")
    significant = _number(sample, SIGNIFICANT_KEY)
    return JudgedVariant(
        source_id=variant.source_id,
        kind=variant.kind,
        category=variant.category,
        n_errors=variant.n_errors,
        excluded=variant.excluded,
        significant=None if significant is None else int(significant),
        score=_number(sample, main_key) if main_key else None,
        predicted=record.predicted_significant,
    )


def discrimination_values(
    scores: Sequence[SampleScore], main_key: str, *, compare_scores: bool, brief: bool = False
) -> dict[str, float]:
    """What `discrimination_robustness` gives on these samples (its arguments as there)."""
    variants = judged_variants(scores, main_key)
    d, d_n = discrimination(variants, compare_scores=compare_scores)
    r, r_n = robustness(variants)
    shares = {"discrimination": d, "robustness": r, "balance": balance(d, r)}
    if brief:
        return {name: share for name, share in shares.items() if not math.isnan(share)}
    return {**shares, "discrimination_n": float(d_n), "robustness_n": float(r_n)}


@metric
def discrimination_robustness(main_key: str, *, compare_scores: bool, brief: bool = False) -> Metric:
    """Discrimination (error variants penalised), robustness (paraphrases left alone) and their balance.

    Args:
        main_key: The prompt's main score key.
        compare_scores: Whether the prompt states a score, so that an error variant scored strictly below
            the same reference's paraphrase counts as penalised too.
        brief: Give the three shares only, leaving out one that is undefined on these samples (a run's summary).

    Returns:
        A metric giving ``discrimination``, ``robustness``, ``balance`` (their harmonic mean), and
        ``discrimination_n`` / ``robustness_n``, the variants each share is taken over.
    """

    def compute(scores: list[SampleScore]) -> Value:
        return discrimination_values(scores, main_key, compare_scores=compare_scores, brief=brief)

    return compute


@metric
def score_monotonicity(main_key: str, max_n: int) -> Metric:
    """Whether the judge's score falls as errors are added.

    Args:
        main_key: The prompt's main score key.
        max_n: The largest number of injected errors.

    Returns:
        A metric giving ``monotonicity`` (share of complete (reference, error type) series whose score never
        rises from N to N + 1), ``monotonicity_n`` (complete series) and ``monotonicity_kendall_tau`` (score
        against N over all scored error variants).
    """

    def compute(scores: list[SampleScore]) -> Value:
        variants = judged_variants(scores, main_key)
        share, n = monotonicity(variants, max_n)
        return {"monotonicity": share, "monotonicity_n": float(n), "monotonicity_kendall_tau": score_trend(variants)}

    return compute


K = TypeVar("K")


def _with_counts(found: Mapping[K, tuple[float, int]], value_name: str, count_name: str) -> dict[str, float]:
    """Each group's figure and its count under the names the two patterns give the group's key."""
    result: dict[str, float] = {}
    for key, (value, count) in found.items():
        result[value_name.format(key)] = value
        result[count_name.format(key)] = float(count)
    return result


@metric
def count_recovered(main_key: str, max_n: int) -> Metric:
    """The judge's significant-error count against the injected count.

    Returns:
        A metric giving ``judge_count_n<N>`` (mean significant errors the judge counts in variants with N
        injected errors) and ``judge_count_n<N>_variants`` (how many variants), for N = 1..max_n.
    """

    def compute(scores: list[SampleScore]) -> Value:
        found = count_recovery(judged_variants(scores, main_key), max_n)
        return _with_counts(found, "judge_count_n{}", "judge_count_n{}_variants")

    return compute


@metric
def detection_by_type(main_key: str, categories: tuple[str, ...]) -> Metric:
    """Per-type error detection F1 as in the VERT paper's table 7 (count-level, appendix C).

    Returns:
        A metric giving ``detection_f1_<c>`` and ``injected_<c>`` (errors injected into scored variants) for
        each injected error type.
    """

    def compute(scores: list[SampleScore]) -> Value:
        found = detection_f1(judged_variants(scores, main_key), categories)
        return _with_counts(found, "detection_f1_{}", "injected_{}")

    return compute


@metric
def variant_exclusions() -> Metric:
    """Variants that could not be made, overall and by reason.

    Returns:
        A metric giving ``excluded`` and ``excluded_<reason>`` for each reason group
        (`scorers.judge_sensitivity.sensitivity.EXCLUSION_GROUPS`).
    """

    def compute(scores: list[SampleScore]) -> Value:
        counts = exclusions(judged_variants(scores, main_key=None))
        return {("excluded" if k == "excluded" else f"excluded_{k}"): float(v) for k, v in counts.items()}

    return compute
