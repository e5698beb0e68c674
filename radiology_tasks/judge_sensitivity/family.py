"""Judge sensitivity as a family: how a judge's score moves under injected errors and paraphrases."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.family import Family

if TYPE_CHECKING:
    import argparse

    from radiology_tasks.leaderboard.rules import Rescoring


class JudgeSensitivity(Family):
    """The judge_sensitivity family."""

    name = "judge_sensitivity"
    tasks_module = "radiology_tasks.judge_sensitivity.tasks"
    tasks = ("judge_sensitivity",)
    version = "1.4.0"
    templates = ("judge_sensitivity", "green_vert")

    def register(self) -> None:
        """Register the family's scorers and solvers with Inspect by name."""
        import radiology_tasks.judge_sensitivity.scorer  # noqa: F401
        import radiology_tasks.judge_sensitivity.solvers  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's tasks."""
        from radiology_tasks.judge_sensitivity.rescoring import RESCORING

        return RESCORING

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """The family's own `radiology-tasks` subcommands."""
        from radiology_tasks.judge_sensitivity.family_commands import add_commands

        add_commands(commands)


FAMILY = JudgeSensitivity()
