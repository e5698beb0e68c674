"""Families built inside a test: name, tasks and leaderboard rules given when the family is made."""

from __future__ import annotations

from collections.abc import Mapping

from radiology_tasks.core.family import Family, SuiteMetric
from radiology_tasks.core.orientation import Orientation
from radiology_tasks.leaderboard.rules import Rescoring


class ToyFamily(Family):
    """A family whose description is passed in, for tests that register it with `add_family`."""

    def __init__(
        self,
        name: str,
        tasks: tuple[str, ...],
        *,
        rules: Mapping[str, Rescoring] | None = None,
        suite: Mapping[str, SuiteMetric] | None = None,
        suite_notes: Mapping[str, str] | None = None,
        orientations: Mapping[str, Orientation] | None = None,
        tasks_module: str = __name__,
        version: str = "1.0.0",
    ) -> None:
        self.name, self.tasks, self.tasks_module, self.version = name, tasks, tasks_module, version
        self._rules = dict(rules or {})
        self._suite = dict(suite or {})
        self._orientations = dict(orientations or {})
        self.suite_notes = dict(suite_notes or {})

    def rescoring(self, task: str) -> Rescoring | None:
        """The rules given for `task`, or None."""
        return self._rules.get(task)

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """The suite metrics given."""
        return self._suite

    def orientations(self) -> Mapping[str, Orientation]:
        """The orientations given."""
        return self._orientations
