"""Scores computed from a judge's counts: GREEN, GREEN-F1, GREEN-EC and the weighted formula.

Every ratio here is the unified form score = wM*M / (wM*M + wS*S + wI*I) over matched findings
M, clinically significant errors S and clinically insignificant errors I, with the weights:

    GREEN    (1, 1, 0)
    F1       (2, 1, 0)
    formula  (1, 2, 0.5)

The only undefined case is M = 0 with no weighted errors (0 / 0); `ZeroMatchedPolicy` decides it.
"""

from __future__ import annotations

from typing import Literal, cast

from radiology_tasks.core.records import ErrorCounts
from radiology_tasks.scorers.report_judge.parse import Assessment

ZeroMatchedPolicy = Literal["perfect_if_no_errors", "original"]
"""What a ratio is when there are no matched findings.

- ``perfect_if_no_errors`` (default): 1.0 when there are no weighted errors either (nothing to
  find and nothing wrong), otherwise 0.0.
- ``original``: 0.0 whenever M = 0, as the original GREEN code does.
"""

GREEN_WEIGHTS: tuple[float, float, float] = (1.0, 1.0, 0.0)
F1_WEIGHTS: tuple[float, float, float] = (2.0, 1.0, 0.0)
FORMULA_WEIGHTS: tuple[float, float, float] = (1.0, 2.0, 0.5)


def _check_count(name: str, value: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name} must be >= 0, got {value}")


def weighted_score(
    matched: int,
    significant: int,
    insignificant: int,
    *,
    w_matched: float,
    w_significant: float,
    w_insignificant: float,
    zero_matched: ZeroMatchedPolicy = "perfect_if_no_errors",
) -> float:
    """wM*M / (wM*M + wS*S + wI*I), the unified form of GREEN, F1 and the formula score.

    Args:
        matched: Matched findings M.
        significant: Clinically significant errors S.
        insignificant: Clinically insignificant errors I.
        w_matched: Weight of matched findings; must be > 0.
        w_significant: Weight of significant errors; must be >= 0.
        w_insignificant: Weight of insignificant errors; must be >= 0.
        zero_matched: Policy for M = 0, see `ZeroMatchedPolicy`.

    Returns:
        The score in [0, 1].
    """
    for name, value in (
        ("matched", matched),
        ("significant", significant),
        ("insignificant", insignificant),
    ):
        _check_count(name, value)
    if w_matched <= 0 or w_significant < 0 or w_insignificant < 0:
        raise ValueError(
            "weights must be w_matched > 0 and w_significant, w_insignificant >= 0; got "
            f"({w_matched}, {w_significant}, {w_insignificant})"
        )
    errors = w_significant * significant + w_insignificant * insignificant
    if matched == 0:
        if zero_matched == "original":
            return 0.0
        if zero_matched == "perfect_if_no_errors":
            return 1.0 if errors == 0 else 0.0
        raise ValueError(f"unknown zero_matched policy {zero_matched!r}")
    gain = w_matched * matched
    return gain / (gain + errors)


def green(matched: int, significant: int, *, zero_matched: ZeroMatchedPolicy = "perfect_if_no_errors") -> float:
    """GREEN = M / (M + S).

    With M = 0, ``perfect_if_no_errors`` gives 1.0 when S = 0 and 0.0 otherwise; ``original``
    gives 0.0 as the original GREEN implementation does.
    """
    return _weighted(GREEN_WEIGHTS, matched, significant, 0, zero_matched)


def green_f1(matched: int, significant: int, *, zero_matched: ZeroMatchedPolicy = "perfect_if_no_errors") -> float:
    """GREEN-F1 = 2M / (2M + S), with the same M = 0 policy as `green`."""
    return _weighted(F1_WEIGHTS, matched, significant, 0, zero_matched)


def _weighted(
    weights: tuple[float, float, float],
    matched: int,
    significant: int,
    insignificant: int,
    zero_matched: ZeroMatchedPolicy,
) -> float:
    """`weighted_score` under one score's (matched, significant, insignificant) weights."""
    w_matched, w_significant, w_insignificant = weights
    return weighted_score(
        matched,
        significant,
        insignificant,
        w_matched=w_matched,
        w_significant=w_significant,
        w_insignificant=w_insignificant,
        zero_matched=zero_matched,
    )


def green_ec(significant: int | ErrorCounts) -> int:
    """GREEN-EC: the total number of clinically significant errors (lower is better)."""
    if isinstance(significant, ErrorCounts):
        return cast(int, significant.total)  # the sum of its whole counts
    _check_count("significant", significant)
    return significant


def formula_score(
    matched: int,
    significant: int,
    insignificant: int,
    *,
    zero_matched: ZeroMatchedPolicy = "perfect_if_no_errors",
) -> float:
    """M / (M + 2S + 0.5I), the score the formula prompt asks the judge to compute.

    Used to check the judge's own arithmetic; the M = 0 policy is the one of `weighted_score`.
    """
    return _weighted(FORMULA_WEIGHTS, matched, significant, insignificant, zero_matched)


def assessment_scores(
    assessment: Assessment, *, zero_matched: ZeroMatchedPolicy = "perfect_if_no_errors"
) -> dict[str, float]:
    """All count-derived scores of one parsed judge answer.

    Returns:
        ``green``, ``green_f1`` and ``formula_check`` in [0, 1], and ``green_ec`` (the
        significant error total, as a float).
    """
    matched = assessment.matched
    significant = assessment.significant.total
    return {
        "green": green(matched, significant, zero_matched=zero_matched),
        "green_ec": float(green_ec(assessment.significant)),
        "green_f1": green_f1(matched, significant, zero_matched=zero_matched),
        "formula_check": formula_score(matched, significant, assessment.insignificant.total, zero_matched=zero_matched),
    }
