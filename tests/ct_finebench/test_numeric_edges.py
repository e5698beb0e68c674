"""Edge cases of numeric grading: signs, ranges in other units, unit filling, leading connectors, [NULL] spellings.

Expected grades are worked out by hand from the relative error |c - r| / |r| (comment beside each).
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from radiology_tasks.scorers.numeric import grade_numeric, is_null_answer, quantities


def test_a_negative_number_keeps_its_sign() -> None:
    assert quantities("-15 HU")[0].values == (Fraction(-15),)
    assert grade_numeric("-20 HU", "20 HU") == 0.0  # |20 - (-20)| / 20 = 200%


@pytest.mark.parametrize(
    ("reference", "candidate", "grade"),
    [
        ("1.5 cm", "1-2 cm", 1.0),  # midpoint 15 mm vs 15 mm: 0%
        ("15 mm", "1 to 2 cm", 1.0),  # midpoint 1.5 cm = 15 mm: 0%
        ("12 mm", "12-14 mL", 0.0),  # a volume range for a length
    ],
)
def test_a_range_keeps_its_unit(reference: str, candidate: str, grade: float) -> None:
    assert grade_numeric(reference, candidate) == grade


def test_a_range_followed_by_a_size_gap_is_not_a_size() -> None:
    found = quantities("3-4 x 5 mm")
    assert [q.values for q in found] == [(Fraction(7, 2),), (Fraction(5),)]


def test_a_trailing_unitless_dimension_takes_the_unit_just_before_it() -> None:
    assert grade_numeric("12 x 8 x 5 mm", "1.2 cm x 8 mm x 5") == 1.0  # 5 is 5 mm, not 5 cm
    assert grade_numeric("1.2 x 0.8 cm", "12 mm x 8") == 1.0  # 8 is 8 mm, not 8 cm


@pytest.mark.parametrize("candidate", ["by 12 mm", "to 12 mm", "x 12 mm"])
def test_a_leading_connector_word_is_ignored(candidate: str) -> None:
    assert grade_numeric("12 mm", candidate) == 1.0


def test_a_unitless_reference_against_a_number_free_candidate_earns_zero() -> None:
    assert grade_numeric("0.8", "not measured") == 0.0


@pytest.mark.parametrize("candidate", [None, "", "   ", "[NULL]", "[null]", " [Null] "])
def test_null_answers_in_any_case_and_blank_answers_are_unanswered(candidate: str | None) -> None:
    assert is_null_answer(candidate)


@pytest.mark.parametrize("candidate", ["8 mm", "NULL", "null finding"])
def test_real_answers_are_not_null(candidate: str) -> None:
    assert not is_null_answer(candidate)
