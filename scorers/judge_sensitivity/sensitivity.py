"""How a judge treats error variants and paraphrases of the same references: the metric arithmetic.

Every function takes the judged variants (`JudgedVariant`) of one run. A variant is *made* when the
injector's answer passed every check (otherwise it is *excluded*, counted by `exclusions`), and *scored*
when the judge's answer gives the numbers a metric needs; an unreadable judge answer, or a number the task
filled in under ``-T unscored=worst``, leaves the variant out of the metric's numerator and denominator.

- discrimination: among scored error variants, the share the judge penalises: it counts at least one
  clinically significant error, or (prompts that state a score) its score is strictly below its mean score
  for the same reference's scored paraphrases. An error variant is scored when its significant-error count
  is readable and, for prompts that state a score, its score too.
- robustness: among paraphrases with a readable significant-error count, the share with none.
- balance: the harmonic mean of the two (0 when both are 0).
- monotonicity: among (reference, error type) series that have a scored variant for every N = 1..max_n,
  the share whose score never rises from N to N + 1; and Kendall's tau-b of score against N over every
  scored error variant (negative for a judge that scores more errors lower).
- count recovery: the mean significant-error count the judge gives variants with N injected errors.
- detection F1 per error type: the VERT paper's count-level F1 (its appendix C and table 7), the injected
  errors being the human counts.

Every function accepts an empty list and returns NaN where a share has no denominator.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from radiology_tasks.core.agreement import category_error_f1
from radiology_tasks.core.records import ERROR_CATEGORIES

VariantKind = Literal["error", "paraphrase"]

ExclusionGroup = Literal[
    "too_few_sentences", "invalid_answer", "failed_check", "implausible", "unreadable_check", "injector_failure"
]
"""Why a variant was not made, by the last attempt's outcome:

- ``too_few_sentences``: the reference has fewer sentences than errors asked for (no call is made).
- ``invalid_answer``: the injector's answer is empty, not JSON, of another shape, or cut at its budget.
- ``failed_check``: the answer fails a code check (`scorers.judge_sensitivity.checks.CheckProblem`).
- ``implausible``: the checker judged the variant implausible (or, for a paraphrase, not faithful).
- ``unreadable_check``: the checker's answer could not be read.
- ``injector_failure``: the injector's request was refused or rejected, or did not fit its context.
"""

EXCLUSION_GROUPS: tuple[ExclusionGroup, ...] = (
    "too_few_sentences",
    "invalid_answer",
    "failed_check",
    "implausible",
    "unreadable_check",
    "injector_failure",
)

_NAN = float("nan")


@dataclass(frozen=True)
class JudgedVariant:
    """One variant and what the judge said about it.

    Attributes:
        source_id: The reference it was made from.
        kind: ``error`` or ``paraphrase``.
        category: The injected error type (``a``-``f``), None for a paraphrase.
        n_errors: Injected errors (0 for a paraphrase).
        excluded: Why the variant was not made, None when it was.
        significant: The judge's count of clinically significant errors, None when not readable.
        score: The judge's main score (its own number, never a filled-in one), None when not given.
        predicted: The judge's significant-error counts per type, None when not readable.
    """

    source_id: str
    kind: VariantKind
    category: str | None
    n_errors: int
    excluded: str | None = None
    significant: int | None = None
    score: float | None = None
    predicted: dict[str, int] | None = None


def _share(hits: int, total: int) -> float:
    return hits / total if total else _NAN


def _made(variants: Sequence[JudgedVariant], kind: VariantKind) -> list[JudgedVariant]:
    return [v for v in variants if v.kind == kind and v.excluded is None]


def paraphrase_scores(variants: Sequence[JudgedVariant]) -> dict[str, float]:
    """Each reference's mean judge score over its scored paraphrases."""
    scores: dict[str, list[float]] = defaultdict(list)
    for variant in _made(variants, "paraphrase"):
        if variant.score is not None:
            scores[variant.source_id].append(variant.score)
    return {source: sum(values) / len(values) for source, values in scores.items()}


def discrimination(variants: Sequence[JudgedVariant], *, compare_scores: bool) -> tuple[float, int]:
    """Share of scored error variants the judge penalises, and how many were scored.

    Args:
        variants: The run's variants.
        compare_scores: Whether the prompt states a score, so that a score strictly below the same
            reference's paraphrase score also counts as a penalty (and a readable score is required).
    """
    baseline = paraphrase_scores(variants) if compare_scores else {}
    penalised = scored = 0
    for variant in _made(variants, "error"):
        if variant.significant is None or (compare_scores and variant.score is None):
            continue
        scored += 1
        score = variant.score
        below = score is not None and variant.source_id in baseline and score < baseline[variant.source_id]
        if variant.significant >= 1 or below:
            penalised += 1
    return _share(penalised, scored), scored


def robustness(variants: Sequence[JudgedVariant]) -> tuple[float, int]:
    """Share of paraphrases (readable significant-error count) with no significant error, and how many."""
    counted = [v for v in _made(variants, "paraphrase") if v.significant is not None]
    return _share(sum(1 for v in counted if v.significant == 0), len(counted)), len(counted)


def balance(discrimination_share: float, robustness_share: float) -> float:
    """Harmonic mean of discrimination and robustness (NaN if either is NaN, 0 if both are 0)."""
    if math.isnan(discrimination_share) or math.isnan(robustness_share):
        return _NAN
    total = discrimination_share + robustness_share
    return 2 * discrimination_share * robustness_share / total if total else 0.0


def monotonicity(variants: Sequence[JudgedVariant], max_n: int) -> tuple[float, int]:
    """Share of complete (reference, error type) series whose score never rises with N, and their number.

    A series is complete when each N in 1..`max_n` has a scored variant; NaN when `max_n` < 2 or no series
    is complete.
    """
    series: dict[tuple[str, str | None], dict[int, float]] = defaultdict(dict)
    for variant in _made(variants, "error"):
        if variant.score is not None:
            series[(variant.source_id, variant.category)][variant.n_errors] = variant.score
    wanted = range(1, max_n + 1)
    complete = [s for s in series.values() if max_n >= 2 and all(n in s for n in wanted)]
    steady = sum(1 for s in complete if all(s[n + 1] <= s[n] for n in range(1, max_n)))
    return _share(steady, len(complete)), len(complete)


def score_trend(variants: Sequence[JudgedVariant]) -> float:
    """Kendall's tau-b of the judge's score against N over every scored error variant (NaN if undefined)."""
    from scipy.stats import kendalltau

    pairs = [(v.n_errors, v.score) for v in _made(variants, "error") if v.score is not None]
    if len(pairs) < 2:
        return _NAN
    with warnings.catch_warnings():
        # A constant input has no defined tau; scipy warns and returns NaN, which is the answer here.
        warnings.simplefilter("ignore")
        tau = kendalltau([n for n, _ in pairs], [s for _, s in pairs]).statistic
    return float(tau)


def count_recovery(variants: Sequence[JudgedVariant], max_n: int) -> dict[int, tuple[float, int]]:
    """For each N in 1..`max_n`: the mean significant-error count the judge gives, and how many variants."""
    counts: dict[int, list[int]] = defaultdict(list)
    for variant in _made(variants, "error"):
        if variant.significant is not None:
            counts[variant.n_errors].append(variant.significant)
    return {n: (_share(sum(counts[n]), len(counts[n])), len(counts[n])) for n in range(1, max_n + 1)}


def detection_f1(variants: Sequence[JudgedVariant], categories: Sequence[str]) -> dict[str, tuple[float, int]]:
    """Per injected error type: count-level F1 of the judge's per-type counts, and the errors injected.

    Computed over the error variants whose per-type counts are readable; an error type with no such
    variant has F1 NaN.
    """
    judged = [v for v in _made(variants, "error") if v.predicted is not None]
    injected: list[dict[str, int]] = [
        {c: (v.n_errors if c == v.category else 0) for c in ERROR_CATEGORIES} for v in judged
    ]
    predicted = [v.predicted for v in judged if v.predicted is not None]
    table = category_error_f1(injected, predicted) if judged else {}
    result: dict[str, tuple[float, int]] = {}
    for category in categories:
        total = sum(counts[category] for counts in injected)
        result[category] = (float(table[category]["f1"]) if total else _NAN, total)
    return result


def exclusions(variants: Sequence[JudgedVariant]) -> dict[str, int]:
    """How many variants were not made: ``excluded`` overall and one count per `ExclusionGroup`."""
    counts: dict[str, int] = {group: 0 for group in EXCLUSION_GROUPS}
    for variant in variants:
        if variant.excluded is not None:
            counts[variant.excluded] = counts.get(variant.excluded, 0) + 1
    return {"excluded": sum(counts.values()), **counts}
