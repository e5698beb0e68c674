"""Pairwise preference accuracy: how often a metric orders two candidates of one reference as radiologists did.

The protocol of preference benchmarks such as RadPref ("CRIMSON: A Clinically-Grounded LLM-Based Metric for
Generative Radiology Report Evaluation"): for every two candidate reports of the same reference that the experts
rated differently, the metric agrees when it scores the preferred one higher. A tie of the metric is counted as
not agreeing (it states no preference), and reported. Pairs the experts rated equally carry no preference and
are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations


@dataclass(frozen=True)
class Preferences:
    """The outcome over every preference pair.

    Attributes:
        accuracy: Agreeing pairs over all pairs (NaN without a pair).
        pairs: Pairs with an expert preference and both scores present.
        agreeing: Pairs the metric orders as the experts did.
        ties: Pairs the metric scores equally.
    """

    accuracy: float
    pairs: int
    agreeing: int
    ties: int


def preference_accuracy(rows: Sequence[tuple[str, float, float]]) -> Preferences:
    """Pairwise preference accuracy over (group, expert score, metric score) rows, a group being one reference.

    Raises:
        ValueError: on a NaN score (leave unscored candidates out before calling).
    """
    groups: dict[str, list[tuple[float, float]]] = {}
    for group, expert, metric in rows:
        if expert != expert or metric != metric:
            raise ValueError(f"group {group}: NaN among the scores; leave unscored candidates out first")
        groups.setdefault(group, []).append((expert, metric))
    pairs = agreeing = ties = 0
    for members in groups.values():
        for (expert_a, metric_a), (expert_b, metric_b) in combinations(members, 2):
            if expert_a == expert_b:
                continue
            pairs += 1
            if metric_a == metric_b:
                ties += 1
            elif (expert_a > expert_b) == (metric_a > metric_b):
                agreeing += 1
    return Preferences(agreeing / pairs if pairs else float("nan"), pairs, agreeing, ties)
