"""Ran Score arithmetic: per-label precision, recall and F1 over all reports, and their macro and micro averages.

As in the authors' evaluation, each label's scores are those of scikit-learn's
`precision_recall_fscore_support` with ``zero_division=0`` (counted here directly, and tested equal): a label
that no report has positive, in the reference or in the candidate, scores F1 = 0 and still counts in the macro
average. The Ran Score is the unweighted mean of the per-label F1 values;
micro scores pool every label decision of every report.

Labels that could not be had (an unreadable judge answer) are handled before the arithmetic, label by label:

- an unknown reference label leaves that (report, label) decision out, whatever the policy: the reference
  is the standard, so there is nothing to compare against;
- an unknown candidate label is counted as wrong (``count_unknown_as_wrong``: the candidate is taken to say
  the opposite of the reference, `-T unscored=worst`) or left out (`-T unscored=exclude`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

Labels = Mapping[str, int | None]
"""One report's labels: 0, 1, or None where unknown."""

_NAN = float("nan")


@dataclass
class Decisions:
    """The (reference, candidate) label pairs each label is scored on, and what was left out or filled in.

    Attributes:
        truth: Reference labels per label key.
        predicted: Candidate labels per label key (aligned with `truth`).
        left_out: Decisions left out per label key (reference unknown, or candidate unknown under exclude).
        filled_in: Decisions counted as wrong because the candidate label was unknown (worst).
    """

    truth: dict[str, list[int]] = field(default_factory=dict)
    predicted: dict[str, list[int]] = field(default_factory=dict)
    left_out: dict[str, int] = field(default_factory=dict)
    filled_in: dict[str, int] = field(default_factory=dict)


def collect_decisions(
    reports: Sequence[tuple[Labels, Labels]], keys: Sequence[str], *, count_unknown_as_wrong: bool
) -> Decisions:
    """Pair up reference and candidate labels, label by label, applying the unknown-label policy.

    Args:
        reports: ``(reference labels, candidate labels)`` per report, keyed by label.
        keys: The labels to score, in order.
        count_unknown_as_wrong: An unknown candidate label counts as the opposite of the reference (worst);
            otherwise that decision is left out (exclude).
    """
    decisions = Decisions(
        truth={k: [] for k in keys},
        predicted={k: [] for k in keys},
        left_out=dict.fromkeys(keys, 0),
        filled_in=dict.fromkeys(keys, 0),
    )
    for reference, candidate in reports:
        for key in keys:
            truth, guess = reference.get(key), candidate.get(key)
            if truth is None or (guess is None and not count_unknown_as_wrong):
                decisions.left_out[key] += 1
                continue
            if guess is None:
                guess = 1 - truth
                decisions.filled_in[key] += 1
            decisions.truth[key].append(int(truth))
            decisions.predicted[key].append(int(guess))
    return decisions


@dataclass(frozen=True)
class LabelScore:
    """One label's scores over all compared reports (NaN when no report could be compared)."""

    precision: float
    recall: float
    f1: float
    support: int
    compared: int


@dataclass(frozen=True)
class F1Table:
    """Per-label scores and their averages.

    Attributes:
        per_label: Scores per label key, in the order given.
        macro_precision, macro_recall, macro_f1: Unweighted means over labels (NaN if any label is NaN).
        micro_precision, micro_recall, micro_f1: From every compared decision pooled.
        absent: Labels positive in no compared reference and no compared candidate (F1 = 0 by convention).
    """

    per_label: dict[str, LabelScore]
    macro_precision: float
    macro_recall: float
    macro_f1: float
    micro_precision: float
    micro_recall: float
    micro_f1: float
    absent: list[str]


def binary_scores(truth: Sequence[int], predicted: Sequence[int]) -> tuple[float, float, float, int]:
    """Precision, recall, F1 and support of the positive class, 0 where a ratio has nothing to divide by.

    The same figures as scikit-learn's ``precision_recall_fscore_support(labels=[1], zero_division=0)`` (the tests
    compare them), counted directly: the leaderboard recomputes them on every bootstrap resample.
    """
    tp = sum(1 for t, p in zip(truth, predicted, strict=True) if t and p)
    fp = sum(1 for t, p in zip(truth, predicted, strict=True) if p and not t)
    fn = sum(1 for t, p in zip(truth, predicted, strict=True) if t and not p)
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0
    return precision, recall, f1, tp + fn


def _mean(values: Sequence[float]) -> float:
    return _NAN if not values or any(math.isnan(v) for v in values) else sum(values) / len(values)


def f1_table(decisions: Decisions) -> F1Table:
    """Per-label precision, recall, F1 and support, with macro and micro averages."""
    per_label: dict[str, LabelScore] = {}
    for key, truth in decisions.truth.items():
        predicted = decisions.predicted[key]
        if not truth:
            per_label[key] = LabelScore(_NAN, _NAN, _NAN, 0, 0)
            continue
        precision, recall, f1, support = binary_scores(truth, predicted)
        per_label[key] = LabelScore(precision, recall, f1, support, len(truth))
    pooled_truth = [t for values in decisions.truth.values() for t in values]
    pooled_predicted = [p for values in decisions.predicted.values() for p in values]
    micro = binary_scores(pooled_truth, pooled_predicted) if pooled_truth else (_NAN, _NAN, _NAN, 0)
    absent = [
        key
        for key, score in per_label.items()
        if score.compared and not any(decisions.truth[key]) and not any(decisions.predicted[key])
    ]
    return F1Table(
        per_label=per_label,
        macro_precision=_mean([s.precision for s in per_label.values()]),
        macro_recall=_mean([s.recall for s in per_label.values()]),
        macro_f1=_mean([s.f1 for s in per_label.values()]),
        micro_precision=micro[0],
        micro_recall=micro[1],
        micro_f1=micro[2],
        absent=absent,
    )
