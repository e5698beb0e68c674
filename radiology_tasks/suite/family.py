"""The metric suite as a registered shared host: its task, version, report metrics and `suite-report` command."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.family import Family

if TYPE_CHECKING:
    from collections.abc import Mapping

    from radiology_tasks.core.orientation import Orientation


class Suite(Family):
    """The metric suite: a shared host, whose package families may import and which names no family."""

    tasks = ("metric_suite",)
    version = "1.5.0"
    shared_host = True
    mutation_tested = ("metrics.py",)
    scorer_modules = ("radiology_tasks.suite.radeval",)

    def orientations(self) -> Mapping[str, Orientation]:
        """The RadEval scores where lower is better (RadCliQ estimates errors), as each RadEval metric declares."""
        from radiology_tasks.core.orientation import LOWER_IS_BETTER
        from radiology_tasks.scorers.suite.radeval_adapter import RADEVAL_METRICS

        return {key: LOWER_IS_BETTER for metric in RADEVAL_METRICS.values() for key in metric.lower_is_better}


FAMILY = Suite()
