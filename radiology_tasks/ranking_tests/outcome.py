"""Whether a metric's scores put a case's candidates in the expected order: pure arithmetic, no Inspect.

Each expected relation between two candidates is judged on the difference of their scores, taken in the metric's
direction (for a lower-is-better score such as an error count the difference is negated), against a tolerance:

- ``A > B`` expected: right when A is better by more than the tolerance, wrong when worse by more, a tie otherwise;
- ``A = B`` expected: right when the two differ by at most the tolerance, wrong otherwise.

A case is wrong when any relation is wrong, a tie when none is wrong and some ``>`` relation is a tie, right when
every relation is right. A tie is neither: the metric did not tell the candidates apart. The CRIMSON authors'
RadJudge check counts a ``>`` by any margin as passed and an ``=`` within 0.01 (exclusive) as passed, and a tie on
``>`` as failed; `-T tie_tolerance=0` gives their ``>`` rule (an exact tie stays a tie here).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Literal

from radiology_tasks.core.errors import InputError
from radiology_tasks.ranking_tests.cases import Relation

Outcome = Literal["right", "wrong", "tie"]
OUTCOMES: tuple[Outcome, ...] = ("right", "wrong", "tie")

ROUNDING = 1e-9
"""Slack for floating-point rounding: 0.51 - 0.5 is a hair above 0.01, and is still meant to be 0.01 apart."""


def relation_outcome(
    relation: Relation, scores: Mapping[str, float], *, higher_is_better: bool, tolerance: float
) -> Outcome:
    """The outcome of one expected relation under the candidates' scores.

    Raises:
        ValueError: for a score that is missing or not a number (an unscored candidate has no outcome).
    """
    better, worse = scores[relation.better], scores[relation.worse]
    if math.isnan(better) or math.isnan(worse):
        raise ValueError(f"{relation}: a candidate has no score")
    margin = (better - worse) if higher_is_better else (worse - better)
    within = tolerance + ROUNDING
    if relation.tie:
        return "right" if abs(margin) <= within else "wrong"
    if margin > within:
        return "right"
    return "wrong" if margin < -within else "tie"


def case_outcome(outcomes: Sequence[Outcome]) -> Outcome:
    """A case's outcome from its relations' outcomes: wrong beats tie beats right."""
    if not outcomes:
        raise ValueError("a case needs at least one expected relation")
    if "wrong" in outcomes:
        return "wrong"
    return "tie" if "tie" in outcomes else "right"


def tolerance_param(value: object) -> float:
    """Check ``-T tie_tolerance``: a finite number, zero or more."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < float("inf"):
        raise InputError(f"-T tie_tolerance must be a number >= 0; got {value!r}")
    return float(value)
