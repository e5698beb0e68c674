"""Which way each per-report score points, declared once by the family that produces it.

Agreement with radiologists is only readable when a positive correlation means agreement: a score where higher
means a better report (VERT, BLEU) is correlated as it is, a score where higher means a worse one (an error count
such as GREEN-EC, RadCliQ) is negated first. Pairwise preference needs to know when two scores are equal: within
the score's tie tolerance, the metric states no preference.

A family declares the keys of its scores that are not higher-is-better, or whose ties need a tolerance, in its
`Family.orientations()`; every other key is higher-is-better with `DEFAULT_TIE_TOLERANCE`. Every agreement statistic
(the run summary, the report, the metric suite's tables, the ranking tests, the agreement table) reads it through
`radiology_tasks.core.family.orientation`.
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_TIE_TOLERANCE = 1e-9
"""Two scores closer than this are tied: only rounding separates them (scores here lie on scales of order 1)."""


@dataclass(frozen=True)
class Orientation:
    """How one per-report score is read.

    Attributes:
        higher_is_better: True when a higher score means a better report; False for error counts and other
            scores where lower is better.
        tie_tolerance: Scores of two reports that differ by no more than this are a tie.
    """

    higher_is_better: bool = True
    tie_tolerance: float = DEFAULT_TIE_TOLERANCE

    def __post_init__(self) -> None:
        if not self.tie_tolerance >= 0:
            raise ValueError(f"tie_tolerance must be >= 0, got {self.tie_tolerance}")

    @property
    def sign(self) -> int:
        """+1 when higher is better, -1 when the score is negated before it is compared with the experts."""
        return 1 if self.higher_is_better else -1


HIGHER_IS_BETTER = Orientation()
LOWER_IS_BETTER = Orientation(higher_is_better=False)
