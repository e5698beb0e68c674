"""Grade a numeric CT-FineBench answer in code: read value and unit, convert, compare by relative error.

The bands follow the benchmark: relative error ``|c - r| / |r|`` below 10% earns 1.0, from 10% up to (not
including) 30% earns 0.5, 30% or more earns 0. Arithmetic is exact (`fractions.Fraction`), so "9 mm" against
"10 mm" is exactly 10% and lands in the 0.5 band instead of a float's 9.999...%.

How an answer is read:

- A quantity is a number with an optional unit: "12 mm", "1.2cm", "approximately 12 millimeters",
  "-15 HU", "1,2 cm" (decimal comma), "1,200 mL" (thousands). Words around it are ignored.
- Units and their conversions: length (mm, cm; millimetre/centimetre spellings), area (mm², cm²), volume
  (mL, cc, cm³, mm³, L), attenuation (HU, Hounsfield units), percent (%) and angle (degrees).
- Sizes with several dimensions: "12 x 8 mm", "12 mm x 8 mm", "1.2 × 0.8 × 0.5 cm", "12 by 8 mm". A value
  without a unit takes the unit written next to it in the same size.
- A range ("3-4 mm", "3 to 4 mm") is read as its midpoint.

Rules when the two answers do not line up:

- Which quantity of the candidate counts: the first one in the reference's dimension (length, volume...);
  failing that, the first number without a unit; failing that the candidate only gives quantities of
  another kind (a volume for a diameter, HU for a size) and earns 0.
- A number without a unit is read in the unit the other answer wrote ("8" against "8 mm" is 8 mm): questions
  often name the unit themselves ("... in millimetres?").
- Several dimensions: with the same number on both sides the dimensions are paired largest with largest (axis
  order differs between reports) and the worst pair decides. With different numbers, the largest dimensions
  are compared (the long axis is the size reports and follow-up rules use); a candidate giving fewer
  dimensions than the reference misses part of the measurement and earns at most 0.5.
- A reference of zero: only an exact zero earns 1.0.
- No candidate answer, the benchmark's ``[NULL]``, or a candidate answer without any number earns 0.
- A reference without any number is not a quantity: `grade_numeric` returns None and the answer is graded
  like a categorical one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

FULL_CREDIT_BELOW = Fraction(1, 10)
"""Relative errors below this earn 1.0."""

PARTIAL_CREDIT_BELOW = Fraction(3, 10)
"""Relative errors from `FULL_CREDIT_BELOW` up to below this earn 0.5; the rest earn 0."""

NULL_ANSWER = "[NULL]"
"""The benchmark's token for "the report does not say"."""


@dataclass(frozen=True)
class Unit:
    """A unit a CT report writes, as the dimension it measures and its factor to that dimension's base unit."""

    dimension: str
    factor: Fraction


_MM = Unit("length", Fraction(1))
_CM = Unit("length", Fraction(10))
_MM2 = Unit("area", Fraction(1))
_CM2 = Unit("area", Fraction(100))
_ML = Unit("volume", Fraction(1))
_MM3 = Unit("volume", Fraction(1, 1000))
_LITRE = Unit("volume", Fraction(1000))
_HU = Unit("attenuation", Fraction(1))
_PERCENT = Unit("percent", Fraction(1))
_DEGREE = Unit("angle", Fraction(1))

# Spellings (regex, case-insensitive) of each unit. Longer spellings are tried first, so "mm3" is not read
# as "mm" followed by a stray 3.
_SPELLINGS: list[tuple[str, Unit]] = [
    (r"cubic\s+millimet(?:er|re)s?|mm\^?3|mm³", _MM3),
    (r"cubic\s+centimet(?:er|re)s?|cm\^?3|cm³|cc", _ML),
    (r"square\s+millimet(?:er|re)s?|mm\^?2|mm²", _MM2),
    (r"square\s+centimet(?:er|re)s?|cm\^?2|cm²", _CM2),
    (r"millimet(?:er|re)s?|mm", _MM),
    (r"centimet(?:er|re)s?|cm", _CM),
    (r"millilit(?:er|re)s?|ml", _ML),
    (r"lit(?:er|re)s?|l", _LITRE),
    (r"hounsfield(?:\s+units?)?|h\.u\.|hu", _HU),
    (r"per\s*cent|%", _PERCENT),
    (r"degrees?|°", _DEGREE),
]
_UNIT_GROUPS = {f"u{index}": unit for index, (_, unit) in enumerate(_SPELLINGS)}
_UNIT = "|".join(f"(?P<u{index}>{spelling})" for index, (spelling, _) in enumerate(_SPELLINGS))

# A number: thousands with commas ("1,200"), a decimal point or a decimal comma of one or two digits ("1,2"),
# or a bare fraction (".5"). A minus sign counts only where nothing word-like precedes it, so the dash of
# "3-4" stays a range dash.
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d,])|\d+(?:\.\d+|,\d{1,2}(?!\d))?|\.\d+"
_QUANTITY = re.compile(
    rf"(?<![\w.,])(?P<sign>[-−])?(?P<number>{_DIGITS})\s*(?:(?:{_UNIT})(?![^\W\d_]))?",
    re.IGNORECASE,
)
# "12x8" and "12mmx8mm" are written without spaces; spaces around the "x" let the number pattern see both.
_GLUED_TIMES = re.compile(r"(?:(?<=\d)|(?<=mm)|(?<=cm))(?=[xX×]\s*\d)|(?<=[xX×])(?=\d)")
_DIMENSION_GAP = re.compile(r"\s*(?:x|×|\*|by)\s*", re.IGNORECASE)
_RANGE_GAP = re.compile(r"\s*(?:-|–|—|to)\s*", re.IGNORECASE)


@dataclass(frozen=True)
class _Value:
    number: Fraction
    unit: Unit | None


@dataclass(frozen=True)
class Quantity:
    """One quantity read from an answer: one value per dimension, each with the unit written for it.

    Attributes:
        values: The numbers, one per dimension of a size ("12 x 8 mm" has two).
        units: The unit of each value (None: no unit was written for it or next to it).
    """

    values: tuple[Fraction, ...]
    units: tuple[Unit | None, ...]

    @property
    def dimension(self) -> str | None:
        """What the quantity measures (``length``, ``volume``, ...), None when no unit is written."""
        return next((unit.dimension for unit in self.units if unit is not None), None)

    @property
    def written_unit(self) -> Unit | None:
        """The last unit written, the one a number without a unit on the other side is read in."""
        return next((unit for unit in reversed(self.units) if unit is not None), None)

    def in_base_units(self, default: Unit | None) -> list[Fraction]:
        """The values in their dimension's base unit, largest first; unit-less values are read in `default`."""
        return sorted((_in_base(value, unit or default) for value, unit in zip(self.values, self.units)), reverse=True)


def _in_base(value: Fraction, unit: Unit | None) -> Fraction:
    return value * unit.factor if unit else value


def _number(match: re.Match[str]) -> Fraction:
    digits = match.group("number")
    digits = digits.replace(",", "") if re.search(r",\d{3}", digits) else digits.replace(",", ".")
    value = Fraction(digits)
    return -value if match.group("sign") else value


def _unit(match: re.Match[str]) -> Unit | None:
    return next((unit for group, unit in _UNIT_GROUPS.items() if match.group(group)), None)


def _fill_units(values: list[_Value]) -> tuple[Unit | None, ...]:
    """Give unit-less values of one size the unit written after them (or, failing that, before them)."""
    units = [value.unit for value in values]
    following: Unit | None = None
    for index in range(len(units) - 1, -1, -1):
        following = units[index] or following
        units[index] = units[index] or following
    preceding: Unit | None = None
    for index, unit in enumerate(units):
        preceding = unit or preceding
        units[index] = unit or preceding
    return tuple(units)


def quantities(text: str) -> list[Quantity]:
    """Every quantity in `text`, in order: sizes with their dimensions, ranges as their midpoint.

    Args:
        text: An answer, e.g. ``"approximately 12 x 8 mm"``.

    Returns:
        The quantities found (empty when the text holds no number).
    """
    text = _GLUED_TIMES.sub(" ", text)
    matches = list(_QUANTITY.finditer(text))
    groups: list[tuple[str, list[_Value]]] = []
    previous_end: int | None = None
    for match in matches:
        value = _Value(_number(match), _unit(match))
        gap = text[previous_end : match.start()] if previous_end is not None else None
        if gap is not None and _DIMENSION_GAP.fullmatch(gap) and groups[-1][0] != "range":
            groups[-1] = ("size", [*groups[-1][1], value])
        elif gap is not None and _RANGE_GAP.fullmatch(gap) and len(groups[-1][1]) == 1 and groups[-1][0] != "range":
            groups[-1] = ("range", [*groups[-1][1], value])
        else:
            groups.append(("single", [value]))
        previous_end = match.end()
    found = []
    for kind, values in groups:
        units = _fill_units(values)
        if kind == "range":
            low, high = (_in_base(value.number, unit) for value, unit in zip(values, units))
            unit = units[-1]
            found.append(Quantity(((low + high) / 2 / (unit.factor if unit else 1),), (unit,)))
        else:
            found.append(Quantity(tuple(value.number for value in values), units))
    return found


def is_null_answer(candidate: str | None) -> bool:
    """Whether a candidate answer says nothing: None, blank, or the benchmark's ``[NULL]``."""
    return candidate is None or not candidate.strip() or candidate.strip().upper() == NULL_ANSWER


def relative_error(candidate: Fraction, reference: Fraction) -> Fraction | None:
    """``|c - r| / |r|``; for a zero reference 0 when the candidate is zero too, else None (no finite error)."""
    if reference == 0:
        return Fraction(0) if candidate == 0 else None
    return abs(candidate - reference) / abs(reference)


def band(error: Fraction | None) -> float:
    """The grade of a relative error: 1.0 below 10%, 0.5 below 30%, else (or None) 0.0."""
    if error is None:
        return 0.0
    if error < FULL_CREDIT_BELOW:
        return 1.0
    return 0.5 if error < PARTIAL_CREDIT_BELOW else 0.0


def _candidate_quantity(reference: Quantity, found: list[Quantity]) -> Quantity | None:
    """The candidate quantity compared with `reference`, or None when every one measures something else."""
    if reference.dimension is None:
        return found[0] if found else None
    same = [q for q in found if q.dimension == reference.dimension]
    unitless = [q for q in found if q.dimension is None]
    measured = same or unitless
    return measured[0] if measured else None


def grade_numeric(reference: str, candidate: str | None) -> float | None:
    """Grade a numeric answer against the reference answer by relative error (rules in the module docstring).

    Args:
        reference: The benchmark's answer, e.g. ``"12 x 8 mm"``.
        candidate: The answer extracted from the candidate report; None or ``[NULL]`` when it says nothing.

    Returns:
        1.0, 0.5 or 0.0; None when the reference holds no number (grade it as a categorical answer).
    """
    found_in_reference = quantities(reference)
    if not found_in_reference:
        return None
    truth = found_in_reference[0]
    if is_null_answer(candidate):
        return 0.0
    answer = _candidate_quantity(truth, quantities(candidate or ""))
    if answer is None:
        return 0.0
    expected = truth.in_base_units(answer.written_unit)
    given = answer.in_base_units(truth.written_unit)
    if len(expected) == len(given):
        errors = [relative_error(c, r) for c, r in zip(given, expected)]
        return min(band(error) for error in errors)
    grade = band(relative_error(given[0], expected[0]))
    return min(grade, 0.5) if len(given) < len(expected) else grade
