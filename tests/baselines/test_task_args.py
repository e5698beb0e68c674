"""A baselines run logs every `-T` parameter, with the values given and the defaults."""

from __future__ import annotations

from pathlib import Path

from tests.baselines.task_args import EXPECTED
from tests.task_runs import logged_task_args


def test_a_run_logs_every_parameter_with_the_values_given_and_the_defaults(tmp_path: Path) -> None:
    # As `inspect eval -T limit=2 -T seed=3 -T unscored=exclude` passes them after reading them as YAML.
    given = {"limit": 2, "seed": 3, "unscored": "exclude"}
    assert logged_task_args("baselines", given, tmp_path) == {**EXPECTED["baselines"], **given}
