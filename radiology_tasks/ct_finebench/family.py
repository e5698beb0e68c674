"""CT-FineBench as a family: questions about fine-grained finding attributes, answered from the candidate report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import Family, ReportMetrics, SuiteMetric

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.leaderboard.rules import Rescoring


class CTFineBench(Family):
    """The ct_finebench family."""

    name = "ct_finebench"
    tasks_module = "radiology_tasks.ct_finebench.tasks"
    tasks = ("ct_finebench",)
    version = "1.5.0"
    templates = ("ct_finebench",)
    lm_eval_configs = ("radiology_ct_finebench_qa.yaml",)
    layouts = ("radiology_tasks.ct_finebench.layout",)
    side_args = ("baselines",)

    def register(self) -> None:
        """Register the family's scorers and solvers with Inspect by name."""
        import radiology_tasks.ct_finebench.extraction  # noqa: F401
        import radiology_tasks.ct_finebench.scorer  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's tasks."""
        from radiology_tasks.ct_finebench.rescoring import RESCORING

        return RESCORING

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """The family's judges for `metric_suite`."""
        from radiology_tasks.ct_finebench.suite import SUITE

        return SUITE

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, as the task chooses them (from the samples' expert scores)."""
        from radiology_tasks.core.metrics import ExpertPresence
        from radiology_tasks.ct_finebench.run_metrics import ct_metrics

        return ct_metrics(ExpertPresence.of_samples(samples), task_args.get("baselines"))

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """The family's own `radiology-tasks` subcommands."""
        from radiology_tasks.ct_finebench.commands import add_commands

        add_commands(commands)


FAMILY = CTFineBench()
