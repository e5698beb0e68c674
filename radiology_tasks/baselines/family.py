"""The baselines as a family: lexical and RadEval metrics, and the suite that runs several metrics at once."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.family import Family

if TYPE_CHECKING:
    import argparse

    from radiology_tasks.leaderboard.rules import Rescoring


class Baselines(Family):
    """The baselines family."""

    name = "baselines"
    tasks_module = "radiology_tasks.baselines.tasks"
    tasks = ("baselines", "metric_suite")
    version = "1.3.0"
    side_args = ("baselines",)

    def register(self) -> None:
        """Register the family's scorers and solvers with Inspect by name."""
        import radiology_tasks.baselines.scorer  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's task baselines."""
        if task != "baselines":
            return None
        from radiology_tasks.baselines.rescoring import RESCORING

        return RESCORING

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """The family's own `radiology-tasks` subcommands."""
        from radiology_tasks.baselines.commands import add_commands

        add_commands(commands)


FAMILY = Baselines()
