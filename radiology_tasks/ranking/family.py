"""Ranking tests as a family: does a metric order a case's candidates the way clinical intuition expects?"""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.family import Family

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.rules import Rescoring


class Ranking(Family):
    """The ranking family: one task, `ranking`, over any metric that scores report pairs one at a time."""

    name = "ranking"
    tasks_module = "radiology_tasks.ranking.tasks"
    tasks = ("ranking",)
    version = "1.0.0"

    def register(self) -> None:
        """Register the family's scorer and solver with Inspect by name."""
        import radiology_tasks.ranking.tasks  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the ranking task."""
        from radiology_tasks.ranking.rescoring import RESCORING

        return RESCORING


FAMILY = Ranking()
