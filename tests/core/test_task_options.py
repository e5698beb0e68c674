"""Shared task parameters: option classes declared once, a task's signature built from them, objects passed whole."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.params import int_param
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.core.task_options import (
    bundle,
    logged_options,
    option,
    option_docs,
    shared,
    shared_docs,
    shared_fields,
    shared_parameters,
)


@dataclass(frozen=True)
class Knobs:
    """A small option class for the decorator's own tests."""

    size: int = option(3, "How big.")
    colour: str = option("red", "Which colour.")
    depth: int | None = option(None, "How deep. Not set: shallow.")

    def __post_init__(self) -> None:
        object.__setattr__(self, "size", int_param("size", self.size, minimum=1, required=True))


@shared_parameters(knobs=shared(Knobs, without=["colour"]))
def toy(name: str = "x", *, knobs: Knobs) -> tuple[str, Knobs]:
    """A task-shaped function.

    Args:
        name: Its own parameter.
    """
    return name, knobs


OWN = ("name", inspect.Parameter.POSITIONAL_OR_KEYWORD, "x")


def _listed(function: Callable[..., object], *keyword_only: tuple[str, object]) -> bool:
    """Whether `function`'s signature is its own parameter, then these keyword-only (name, default) pairs."""
    parameters = inspect.signature(function).parameters.values()
    expected = [OWN, *((name, inspect.Parameter.KEYWORD_ONLY, default) for name, default in keyword_only)]
    return [(p.name, p.kind, p.default) for p in parameters] == expected


def test_the_signature_lists_own_parameters_then_the_shared_fields_keyword_only() -> None:
    assert _listed(toy, ("size", 3), ("depth", None))
    parameters = list(inspect.signature(toy).parameters.values())
    assert [p.annotation for p in parameters[1:]] == [int, int | None]


def test_the_body_gets_one_checked_object_built_from_the_values() -> None:
    assert toy() == ("x", Knobs())
    assert toy("y", size="5", depth=2) == ("y", Knobs(size=5, depth=2))
    assert toy(size="5")[1].size == 5  # as YAML gives it: text, converted once


@dataclass(frozen=True)
class Lamp:
    """A second option class, for a bundle."""

    watts: int = option(40, "How bright.")


@dataclass(frozen=True)
class Fittings:
    """The record a bundled task body receives: one field per option class."""

    knobs: Knobs
    lamp: Lamp


@shared_parameters(fittings=bundle(Fittings))
def fitted(name: str = "x", *, fittings: Fittings) -> tuple[str, Fittings]:
    """A task-shaped function taking its option classes as one record.

    Args:
        name: Its own parameter.
    """
    return name, fittings


def test_a_bundle_gives_every_field_of_its_option_classes_and_the_body_one_record() -> None:
    assert _listed(fitted, ("size", 3), ("colour", "red"), ("depth", None), ("watts", 40))
    assert fitted() == ("x", Fittings(Knobs(), Lamp()))
    assert fitted("y", size="5", watts=60) == ("y", Fittings(Knobs(size=5), Lamp(watts=60)))
    assert shared_docs(fitted) == {**option_docs(Knobs), "watts": "How bright."}
    assert shared_fields(fitted, Lamp) == ("watts",) and shared_fields(fitted, Knobs) == ("size", "colour", "depth")
    with pytest.raises(InputError, match="^-T size must be a whole number, got 'two'$"):
        fitted(size="two")


def test_a_bad_value_is_the_option_classes_one_line_error() -> None:
    with pytest.raises(InputError, match="^-T size must be a whole number, got 'two'$"):
        toy(size="two")


def test_a_field_the_task_does_not_take_is_refused() -> None:
    with pytest.raises(TypeError, match="colour"):
        toy(colour="blue")


def test_a_body_without_the_keyword_only_parameter_is_refused() -> None:
    def positional(name: str = "x", knobs: Knobs | None = None) -> None: ...

    with pytest.raises(TypeError, match="needs a keyword-only parameter 'knobs'"):
        shared_parameters(knobs=shared(Knobs))(positional)


def test_a_name_both_own_and_shared_is_refused() -> None:
    def clash(size: int = 1, *, knobs: Knobs) -> None: ...

    with pytest.raises(TypeError, match="'size' is both its own and a shared one"):
        shared_parameters(knobs=shared(Knobs))(clash)


def test_shared_fields_are_checked_and_kept_in_declaration_order() -> None:
    assert shared(Knobs, only=["depth", "size"]).fields == ("size", "depth")
    assert shared(Knobs).fields == ("size", "colour", "depth")
    with pytest.raises(ValueError, match="Knobs has no field width"):
        shared(Knobs, only=["width"])
    with pytest.raises(ValueError, match="Knobs has no field width"):
        shared(Knobs, without=["width"])


def test_the_docs_of_the_shared_fields_a_task_takes() -> None:
    assert shared_docs(toy) == {"size": "How big.", "depth": "How deep. Not set: shallow."}
    assert shared_docs(test_the_docs_of_the_shared_fields_a_task_takes) == {}


def test_every_shared_field_is_documented() -> None:
    for options in (DataOptions, JudgeOptions):
        names = [name for name in inspect.signature(options).parameters]
        assert sorted(option_docs(options)) == sorted(names), options.__name__


def test_generate_with_candidates_is_refused_when_the_options_are_built() -> None:
    with pytest.raises(InputError, match="^-T generate=true has the model under test write the reports"):
        DataOptions(candidates="c.jsonl", generate="true")
    assert DataOptions(candidates="c.jsonl", generate="false").generate is False
    assert DataOptions(generate="yes", report_max_tokens="64").report_max_tokens == 64
    with pytest.raises(InputError, match="^-T report_max_tokens must be at least 1, got 0$"):
        DataOptions(report_max_tokens=0)


def test_logged_options_rebuild_what_the_run_was_built_with() -> None:
    logged = {"size": "5", "colour": "blue", "depth": None, "prompt": "vert"}
    assert logged_options(Knobs, logged) == Knobs(size=5, colour="blue")
    # A field an older log lacks, or records as None, keeps the option class's default.
    assert logged_options(Knobs, {"colour": "blue"}) == Knobs(colour="blue")
    assert logged_options(JudgeOptions, {"unscored": "exclude", "judge_max_tokens": None}) == JudgeOptions(
        unscored="exclude"
    )
    with pytest.raises(InputError, match="-T size must be at least 1"):
        logged_options(Knobs, {"size": 0})
