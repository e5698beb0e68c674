"""CRIMSON as a family: one judge call per report pair lists and weighs the abnormal findings; the score is code's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.family import Family, SuiteMetric

if TYPE_CHECKING:
    from collections.abc import Mapping

    from radiology_tasks.leaderboard.rules import Rescoring


class Crimson(Family):
    """The crimson family."""

    name = "crimson"
    tasks_module = "radiology_tasks.crimson.tasks"
    tasks = ("crimson",)
    version = "1.0.0"
    templates = ("crimson",)

    def register(self) -> None:
        """Register the family's scorer with Inspect by name."""
        import radiology_tasks.crimson.scorer  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's task."""
        from radiology_tasks.crimson.rescoring import RESCORING

        return RESCORING

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """CRIMSON's judge for `metric_suite` and the other tasks that score with the families' suite judges."""
        from radiology_tasks.crimson.suite import SUITE

        return SUITE


FAMILY = Crimson()
