"""Numeric answers graded in code: units, conversions, the 10% / 30% bands, sizes, phrasing, missing answers.

Every expected grade is worked out by hand from the relative error |c - r| / |r| in the comment beside it.
"""

from __future__ import annotations

import pytest

from radiology_tasks.scorers.ct_finebench import grade_numeric


@pytest.mark.parametrize(
    ("reference", "candidate", "grade"),
    [
        ("8 mm", "0.8 cm", 1.0),  # 8 mm = 8 mm
        ("1.2 cm", "12 mm", 1.0),
        ("5 mL", "5 cc", 1.0),
        ("1500 mL", "1.5 L", 1.0),
        ("2 cm³", "2000 mm3", 1.0),  # 2 mL = 2000 mm³
        ("4 cm²", "400 mm^2", 1.0),
        ("3 cm", "30 millimetres", 1.0),
        ("-20 HU", "-21 Hounsfield units", 1.0),  # 1/20 = 5%
        ("45 HU", "45 H.U.", 1.0),
        ("30%", "30 percent", 1.0),
        ("120 degrees", "120°", 1.0),
        ("1,200 mL", "1.2 litres", 1.0),  # thousands separator
        ("12 mm", "1,2 cm", 1.0),  # decimal comma
    ],
)
def test_units_convert_before_comparing(reference: str, candidate: str, grade: float) -> None:
    assert grade_numeric(reference, candidate) == grade


@pytest.mark.parametrize(
    ("candidate", "grade"),
    [
        ("10 mm", 1.0),  # 0%
        ("9.01 mm", 1.0),  # 9.9%
        ("10.99 mm", 1.0),  # 9.9%
        ("9 mm", 0.5),  # exactly 10%: the full-credit band ends below 10%
        ("11 mm", 0.5),  # exactly 10%
        ("1.1 cm", 0.5),  # 11 mm, exactly 10% after conversion
        ("0.9 cm", 0.5),  # 9 mm, exactly 10% (a float would make this 9.999...%)
        ("7.01 mm", 0.5),  # 29.9%
        ("12.99 mm", 0.5),  # 29.9%
        ("7 mm", 0.0),  # exactly 30%: the partial band ends below 30%
        ("13 mm", 0.0),  # exactly 30%
        ("0.7 cm", 0.0),  # 7 mm, 30%
        ("25 mm", 0.0),  # 150%
    ],
)
def test_each_band_boundary(candidate: str, grade: float) -> None:
    assert grade_numeric("10 mm", candidate) == grade


@pytest.mark.parametrize(
    ("reference", "candidate", "grade"),
    [
        ("-100 HU", "-85 HU", 0.5),  # 15/100
        ("-100 HU", "-135 HU", 0.0),  # 35/100
        ("0 HU", "0 HU", 1.0),  # a zero reference: only an exact zero is right
        ("0 HU", "2 HU", 0.0),
        ("0.8", "0.8", 1.0),  # a ratio, no unit on either side
        ("0.8", "0.95", 0.5),  # 0.15/0.8 = 18.75%
    ],
)
def test_negative_zero_and_unitless_references(reference: str, candidate: str, grade: float) -> None:
    assert grade_numeric(reference, candidate) == grade


@pytest.mark.parametrize(
    ("reference", "candidate", "grade"),
    [
        ("12 x 8 mm", "12 x 8 mm", 1.0),
        ("12 x 8 mm", "8 x 12 mm", 1.0),  # axes paired largest with largest
        ("12 x 8 mm", "1.2 x 0.8 cm", 1.0),
        ("12 x 8 mm", "12 mm x 8 mm", 1.0),
        ("12 x 8 mm", "1.2 cm x 8 mm", 1.0),  # each dimension in its own unit
        ("12 x 8 mm", "12x8mm", 1.0),
        ("12 x 8 mm", "12 by 8 mm", 1.0),
        ("12 x 8 mm", "12 × 8 mm", 1.0),
        ("12 x 8 mm", "12 x 6 mm", 0.5),  # 12 vs 12: 0%; 6 vs 8: 25% -> the worst pair decides
        ("12 x 8 mm", "12 x 5 mm", 0.0),  # 5 vs 8: 37.5%
        ("12 x 8 mm", "12 mm", 0.5),  # long axis right (0%), short axis missing: at most 0.5
        ("12 x 8 mm", "15 mm", 0.5),  # long axis 25% off -> 0.5, and the cap keeps it there
        ("12 x 8 mm", "20 mm", 0.0),  # long axis 66.7% off
        ("12 x 8 mm", "12 x 8 x 5 mm", 1.0),  # more dimensions: long axes compared, 0%
        ("12 mm", "12 x 8 mm", 1.0),  # the reference gives the long axis only
        ("1.2 x 0.8 x 0.5 cm", "12 x 8 x 5 mm", 1.0),
        ("1.2 x 0.8 x 0.5 cm", "12 x 8 x 7 mm", 0.0),  # 7 vs 5: 40%
    ],
)
def test_sizes_with_several_dimensions(reference: str, candidate: str, grade: float) -> None:
    assert grade_numeric(reference, candidate) == grade


@pytest.mark.parametrize(
    ("reference", "candidate", "grade"),
    [
        ("8 mm", "8 mL", 0.0),  # a volume for a diameter
        ("8 mm", "8 HU", 0.0),
        ("8 mm", "8", 1.0),  # a bare number is read in the reference's unit: 8 mm
        ("1.2 cm", "12", 0.0),  # read as 12 cm: 900% off
        ("12", "12 mm", 1.0),  # a bare reference is read in the candidate's unit
        ("12", "1.2 cm", 0.0),  # read as 12 cm against 1.2 cm
        ("8 mm", "density 40 HU, size 8 mm", 1.0),  # the quantity in the reference's dimension counts
        ("6 mm", "2 nodules, the largest 6 mm", 1.0),  # the bare count is skipped for the length
        ("8 mm", "8 mm, previously 5 mm", 1.0),  # the first length
        ("5 mm", "8 mm, previously 5 mm", 0.0),  # the first length (8 mm) is the answer given: 60%
    ],
)
def test_unit_mismatches_and_several_quantities(reference: str, candidate: str, grade: float) -> None:
    assert grade_numeric(reference, candidate) == grade


@pytest.mark.parametrize(
    ("candidate", "grade"),
    [
        ("approximately 12 millimeters", 1.0),
        ("about 1.2cm", 1.0),
        ("measures 12mm", 1.0),
        ("~12 mm in long axis", 1.0),
        ("12-14 mm", 1.0),  # a range reads as its midpoint: 13 vs 12 = 8.3%
        ("12 to 16 mm", 0.5),  # midpoint 14 vs 12 = 16.7%
        ("1.3 centimetres", 1.0),  # 13 vs 12 = 8.3%
    ],
)
def test_phrasing(candidate: str, grade: float) -> None:
    assert grade_numeric("12 mm", candidate) == grade


def test_about_5_3_cm() -> None:
    assert grade_numeric("53 mm", "about 5.3 cm") == 1.0
    assert grade_numeric("5.3 cm", "approximately 4.5 cm") == 0.5  # 0.8/5.3 = 15.1%


@pytest.mark.parametrize("candidate", [None, "[NULL]", " [null] ", "", "   ", "not measured", "small"])
def test_missing_or_quantity_free_candidates_earn_zero(candidate: str | None) -> None:
    assert grade_numeric("8 mm", candidate) == 0.0


@pytest.mark.parametrize("reference", ["small", "right upper lobe", "spiculated", "T7 vertebra", ""])
def test_a_reference_without_a_number_is_not_graded_here(reference: str) -> None:
    assert grade_numeric(reference, "8 mm") is None
    assert grade_numeric(reference, None) is None
