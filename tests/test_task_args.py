"""The `-T` names and defaults of every task, as Inspect logs them (`log.eval.task_args`): old commands and old
logs keep working, and the leaderboard reads these. Each family pins its own tasks' parameters in its tests
(`tests/<family>/task_args.py`), written out in full there; this checks that every registered family has, that
every registered task is pinned, and that the pins and the shared parameters' defaults hold."""

from __future__ import annotations

from typing import Any

import pytest

from radiology_tasks.core.family import Family, families
from tests.task_args import DATA, JUDGE, READING, parameters, pinned


@pytest.mark.parametrize("family", families(), ids=lambda family: family.name)
def test_every_task_takes_the_parameters_its_family_pins(family: Family) -> None:
    """What Inspect matches `-T` names against and logs with defaults applied: the task function's signature."""
    found = {name: parameters(function) for name, function in family.task_functions().items()}
    assert found == pinned(family.name)


def test_a_shared_parameter_has_the_same_default_in_every_task_that_takes_it() -> None:
    shared: dict[str, Any] = {**DATA, **JUDGE, **READING}
    for family in families():
        for name, function in family.task_functions().items():
            taken = {p: default for p, default in parameters(function).items() if p in shared}
            # A task may read a dataset of its own when `-T data` is not given.
            assert {p: d for p, d in taken.items() if p != "data"} == {p: shared[p] for p in taken if p != "data"}, (
                f"{family.name}/{name}"
            )


def test_a_family_without_pins_is_named() -> None:
    with pytest.raises(AssertionError, match="^family nonesuch: no tests/nonesuch/task_args.py pins its tasks'"):
        pinned("nonesuch")
