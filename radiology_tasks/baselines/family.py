"""The baselines as a family: lexical and RadEval metrics, and the suite that runs several metrics at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import Family, ReportMetrics

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.core.orientation import Orientation
    from radiology_tasks.leaderboard.rules import Rescoring


class Baselines(Family):
    """The baselines family."""

    name = "baselines"
    tasks_module = "radiology_tasks.baselines.tasks"
    tasks = ("baselines", "metric_suite")
    version = "1.5.0"
    side_args = ("baselines",)

    def register(self) -> None:
        """Register the family's scorers and solvers with Inspect by name."""
        import radiology_tasks.baselines.scorer  # noqa: F401

    def orientations(self) -> Mapping[str, Orientation]:
        """The RadEval scores where lower is better (RadCliQ estimates errors), as each RadEval metric declares."""
        from radiology_tasks.core.orientation import LOWER_IS_BETTER
        from radiology_tasks.scorers.baselines.radeval_adapter import RADEVAL_METRICS

        return {key: LOWER_IS_BETTER for metric in RADEVAL_METRICS.values() for key in metric.lower_is_better}

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's task baselines."""
        if task != "baselines":
            return None
        from radiology_tasks.baselines.rescoring import RESCORING

        return RESCORING

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, for the score keys its samples hold (in the order scored)."""
        from radiology_tasks.baselines.run_metrics import suite_metrics
        from radiology_tasks.core.metrics import ExpertPresence
        from radiology_tasks.scorers.lexical import is_lexical

        first = samples[0].score.value if samples else {}
        keys = [str(key) for key in first] if isinstance(first, Mapping) else []
        if not keys:
            raise ValueError("the run's samples hold no score keys to report")
        return suite_metrics(
            keys,
            experts=ExpertPresence.of_samples(samples),
            lexical=any(is_lexical(key) for key in keys),
            sensitivity=task_args.get("sensitivity") if task == "metric_suite" else None,
        )

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """The family's own `radiology-tasks` subcommands."""
        from radiology_tasks.baselines.commands import add_commands

        add_commands(commands)


FAMILY = Baselines()
