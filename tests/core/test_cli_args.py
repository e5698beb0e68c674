"""The argument types and the option-object builder the subcommands share."""

from __future__ import annotations

import argparse
from dataclasses import dataclass

import pytest

from radiology_tasks.core.cli_args import non_negative_int, options_from_args, positive_int, share


@dataclass(frozen=True)
class _Card:
    name: str | None = None
    seed: int = 0


def test_options_take_each_field_from_the_argument_of_its_name() -> None:
    args = argparse.Namespace(name="sys-a", seed=7, unrelated="x")

    assert options_from_args(_Card, args) == _Card(name="sys-a", seed=7)


def test_a_renamed_field_reads_the_argument_it_is_renamed_to() -> None:
    args = argparse.Namespace(name="not this", system="sys-b", seed=3)

    assert options_from_args(_Card, args, name="system") == _Card(name="sys-b", seed=3)


def test_renaming_a_field_the_options_lack_is_refused() -> None:
    with pytest.raises(ValueError, match="_Card has no field alias, nickname$"):
        options_from_args(_Card, argparse.Namespace(name=None, seed=0), nickname="system", alias="name")


def test_a_field_the_arguments_lack_names_it() -> None:
    with pytest.raises(AttributeError, match="seed"):
        options_from_args(_Card, argparse.Namespace(name=None))


@pytest.mark.parametrize(
    ("parse", "text", "value"),
    [(positive_int, "1", 1), (non_negative_int, "0", 0), (share, "0", 0.0), (share, "1", 1.0)],
)
def test_argument_types_take_the_ends_of_their_range(parse: object, text: str, value: float) -> None:
    assert callable(parse)
    assert parse(text) == value


@pytest.mark.parametrize(
    ("parse", "text"), [(positive_int, "0"), (non_negative_int, "-1"), (share, "-0.01"), (share, "1.01")]
)
def test_argument_types_refuse_values_out_of_range(parse: object, text: str) -> None:
    assert callable(parse)
    with pytest.raises(argparse.ArgumentTypeError, match=text):
        parse(text)
