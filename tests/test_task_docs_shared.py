"""The parameter tables take a shared parameter's description from its option class, unless the task says more."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from radiology_tasks.core.task_options import option, shared, shared_parameters
from radiology_tasks.task_docs import TaskDocError, task_doc


@dataclass(frozen=True)
class Knobs:
    size: int = option(3, "How big.")
    depth: int | None = option(None, "How deep.")


@shared_parameters(knobs=shared(Knobs))
def described(name: str = "x", *, knobs: Knobs) -> None:
    """A task-shaped function.

    Args:
        name: Its own parameter.
        depth: How deep, here in metres.
    """


@shared_parameters(knobs=shared(Knobs))
def repeating(*, knobs: Knobs) -> None:
    """A task-shaped function that copies a shared description.

    Args:
        size: How big.
    """


@shared_parameters(knobs=shared(Knobs, only=["size"]))
def describing_what_it_lacks(*, knobs: Knobs) -> None:
    """A task-shaped function documenting a shared field it does not take.

    Args:
        depth: How deep.
    """


def test_a_shared_parameter_is_described_by_its_class_unless_the_task_says_more() -> None:
    doc = task_doc("toy/described", described)
    assert [(p.name, p.default, p.description) for p in doc.parameters] == [
        ("name", "x", "Its own parameter."),
        ("size", 3, "How big."),
        ("depth", None, "How deep, here in metres."),
    ]


def test_an_entry_copying_the_class_description_is_refused() -> None:
    with pytest.raises(TaskDocError, match="^task toy/repeating: the Args: entry 'size' repeats its option class's"):
        task_doc("toy/repeating", repeating)


def test_an_entry_for_a_shared_field_the_task_does_not_take_names_no_parameter() -> None:
    with pytest.raises(TaskDocError, match="the Args: entry 'depth' names no parameter of the task"):
        task_doc("toy/describing_what_it_lacks", describing_what_it_lacks)
