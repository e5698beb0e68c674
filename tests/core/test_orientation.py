"""How a per-report score is read: its direction and the tolerance within which two scores tie."""

from __future__ import annotations

import math

import pytest

from radiology_tasks.core.orientation import DEFAULT_TIE_TOLERANCE, HIGHER_IS_BETTER, LOWER_IS_BETTER, Orientation


def test_the_default_is_higher_is_better_with_a_rounding_tolerance() -> None:
    assert Orientation() == HIGHER_IS_BETTER
    assert HIGHER_IS_BETTER.higher_is_better is True and HIGHER_IS_BETTER.sign == 1
    assert HIGHER_IS_BETTER.tie_tolerance == DEFAULT_TIE_TOLERANCE == 1e-9


def test_a_lower_is_better_score_is_negated() -> None:
    assert LOWER_IS_BETTER.higher_is_better is False and LOWER_IS_BETTER.sign == -1
    assert LOWER_IS_BETTER.tie_tolerance == DEFAULT_TIE_TOLERANCE


def test_a_zero_tolerance_is_accepted_and_a_negative_or_nan_one_refused() -> None:
    assert Orientation(tie_tolerance=0.0).tie_tolerance == 0.0
    with pytest.raises(ValueError, match=r"^tie_tolerance must be >= 0, got -0\.5$"):
        Orientation(tie_tolerance=-0.5)
    with pytest.raises(ValueError, match=r"^tie_tolerance must be >= 0, got nan$"):
        Orientation(tie_tolerance=math.nan)
