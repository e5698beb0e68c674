"""`RescoredFamily`: a family whose logs the leaderboard re-scores, declared by naming its re-scoring module.

Kept apart from `radiology_tasks.core.family`, which names nothing of the leaderboard, and as light to import: every
`inspect` process imports the families' descriptors, and the leaderboard's modules are imported only when a
family's rules are asked for.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, ClassVar

from radiology_tasks.core.family import Family

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.rules import Rescoring


class RescoredFamily(Family):
    """A family whose logs can be submitted (the leaderboard's `Submittable`): the same rules for every task.

    Attributes:
        rescoring_module: The family's module whose ``RESCORING`` is the `Rescoring` of its tasks (often a
            `radiology_tasks.leaderboard.rules.FunctionRescoring` of that module's functions); by default
            ``<package>.rescoring``, by `Family`'s convention.
    """

    rescoring_module: str
    required_modules: ClassVar[Mapping[str, str]] = {**Family.required_modules, "rescoring_module": "rescoring"}

    def rescoring(self, task: str) -> Rescoring | None:
        """The rules of `task`: the re-scoring module's ``RESCORING`` for the family's tasks, None for another."""
        from radiology_tasks.leaderboard.rules import Rescoring

        if task not in self.tasks:
            return None
        rules = importlib.import_module(self.rescoring_module).RESCORING
        if not isinstance(rules, Rescoring):
            raise TypeError(f"{self.rescoring_module}.RESCORING is a {type(rules).__name__}, not a Rescoring")
        return rules
