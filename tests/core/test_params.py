"""`-T` parameter checks: what YAML can hand a task, and the one-line error each bad value gets."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.params import bool_param, choice_param, int_param, text_param


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_int_param_keeps_every_whole_number_and_its_text(number: int) -> None:
    assert int_param("limit", number) == number
    assert int_param("limit", str(number)) == number
    assert int_param("limit", f" {number} ") == number


@given(st.integers(min_value=-50, max_value=50), st.integers(min_value=-50, max_value=50))
def test_int_param_minimum_is_inclusive(number: int, minimum: int) -> None:
    if number >= minimum:
        assert int_param("limit", number, minimum=minimum) == number
    else:
        with pytest.raises(InputError) as error:
            int_param("limit", number, minimum=minimum)
        assert str(error.value) == f"-T limit must be at least {minimum}, got {number}"


def test_int_param_none_means_not_given_unless_required() -> None:
    assert int_param("limit", None, minimum=1) is None
    assert int_param("shots", 2, minimum=0, required=True) == 2
    with pytest.raises(InputError) as error:
        int_param("shots", None, minimum=0, required=True)
    assert str(error.value) == "-T shots must be a whole number, got None"


@pytest.mark.parametrize("value", ["abc", 1.5, 2.0, True, False, "1.5", "", "+-3", "1_000", [1, 2], {"a": 1}, "²"])
def test_int_param_refuses_what_is_not_a_whole_number(value: object) -> None:
    with pytest.raises(InputError) as error:
        int_param("limit", value)
    assert str(error.value) == f"-T limit must be a whole number, got {value!r}"
    assert isinstance(error.value, ValueError)


@pytest.mark.parametrize(
    ("value", "expected"),
    [(True, True), (False, False), ("true", True), ("False", False), (" YES ", True), ("no", False)]
    + [("on", True), ("off", False)],
)
def test_bool_param(value: object, expected: bool) -> None:
    assert bool_param("generate", value) is expected


@pytest.mark.parametrize("value", [None, 1, 0, "maybe", "", 1.0, ["true"]])
def test_bool_param_refuses_everything_else(value: object) -> None:
    with pytest.raises(InputError) as error:
        bool_param("generate", value)
    assert str(error.value) == f"-T generate must be true or false, got {value!r}"


def test_choice_param() -> None:
    assert choice_param("on_bad_rows", "skip", ("error", "skip")) == "skip"
    for bad in ("Skip", "ignore", None, 1, ["error", "skip"]):
        with pytest.raises(InputError) as error:
            choice_param("on_bad_rows", bad, ("error", "skip"))
        assert str(error.value) == f"-T on_bad_rows must be one of error, skip; got {bad!r}"


def test_text_param() -> None:
    assert text_param("data", None) is None
    assert text_param("data", "pairs.jsonl") == "pairs.jsonl"
    # An all-digit commit hash comes back from YAML as a number.
    assert text_param("revision", 4370268) == "4370268"


def test_text_param_refuses_lists_and_other_values() -> None:
    with pytest.raises(InputError) as error:
        text_param("data", ["a", "b.jsonl"])
    assert str(error.value) == (
        "-T data must be one value, got the list ['a', 'b.jsonl']; quote a value that holds commas: -T data=\"'a,b'\""
    )
    for bad in (1.5, True, {"a": 1}):
        with pytest.raises(InputError) as error:
            text_param("revision", bad)
        assert str(error.value) == (
            f"-T revision must be text, got {bad!r}; quote it to keep it as typed: -T revision=\"'...'\""
        )
