"""Per-category error F1 from count-level matches (VERT appendix C), checked by hand."""

from __future__ import annotations

import pytest

from radiology_tasks.core.agreement import category_error_f1, checked_counts


def _counts(**nonzero: int) -> dict[str, int]:
    return {c: nonzero.get(c, 0) for c in "abcdef"}


HUMAN = [_counts(a=2, b=1), _counts(b=3, d=1), _counts()]
PREDICTED = [_counts(a=1, b=1, c=1), _counts(a=1, b=2, d=1), _counts()]


def test_hand_computed_example() -> None:
    table = category_error_f1(HUMAN, PREDICTED)
    # a: report 1 matches 1 and misses 1, report 2 adds 1 false -> tp 1, fp 1, fn 1.
    assert table["a"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "tp": 1, "fp": 1, "fn": 1}
    # b: 1 + 2 matched, 1 missed in report 2.
    assert table["b"]["tp"] == 3 and table["b"]["fp"] == 0 and table["b"]["fn"] == 1
    assert table["b"]["precision"] == 1.0
    assert table["b"]["recall"] == 0.75
    assert table["b"]["f1"] == pytest.approx(6 / 7, abs=1e-12)
    # c: one false positive, nothing to recall: both ratios with a zero numerator or denominator are 0.
    assert table["c"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 1, "fn": 0}
    assert table["d"] == {"precision": 1.0, "recall": 1.0, "f1": 1.0, "tp": 1, "fp": 0, "fn": 0}
    for c in "ef":
        assert table[c] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 0}
    # all: tp 5, fp 2, fn 2.
    assert table["all"]["tp"] == 5 and table["all"]["fp"] == 2 and table["all"]["fn"] == 2
    assert table["all"]["f1"] == pytest.approx(5 / 7, abs=1e-12)


def test_no_reports_gives_zeros() -> None:
    table = category_error_f1([], [])
    assert table["all"] == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "tp": 0, "fp": 0, "fn": 0}


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"a": 1, "b": 0, "c": 0, "d": 0, "e": 0}, "row 1: predicted counts: category 'f' is missing"),
        ({**_counts(), "g": 1}, r"row 1: predicted counts: unknown categories \['g'\]"),
        (_counts(c=-1), "row 1: predicted counts: category 'c' must be a non-negative integer"),
        (_counts(c=True), "category 'c' must be a non-negative integer"),
        (_counts(c=1.5), "category 'c' must be a non-negative integer"),
    ],
)
def test_bad_counts_name_the_row(bad: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        category_error_f1(HUMAN[:2], [PREDICTED[0], bad])


def test_length_mismatch() -> None:
    with pytest.raises(ValueError, match="3 human rows but 2 predicted rows"):
        category_error_f1(HUMAN, PREDICTED[:2])


def test_checked_counts_returns_category_order() -> None:
    assert list(checked_counts({"f": 1, "e": 0, "d": 0, "c": 0, "b": 2, "a": 0}, "x")) == list("abcdef")


def test_bad_human_counts_name_the_row_too() -> None:
    with pytest.raises(ValueError) as error:
        category_error_f1([HUMAN[0], _counts(e=-2)], PREDICTED[:2])
    assert str(error.value) == "row 1: human counts: category 'e' must be a non-negative integer, got -2"


def test_counts_that_are_not_a_mapping() -> None:
    with pytest.raises(ValueError) as error:
        checked_counts([1, 0, 0, 0, 0, 0], "sample 3: expert_significant")  # type: ignore[arg-type]
    assert str(error.value) == "sample 3: expert_significant: expected counts keyed a-f, got [1, 0, 0, 0, 0, 0]"
