"""GREEN and VERT as a family: two judge tasks over report pairs, scored from error counts or a direct score."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.family import Family, ReportMetrics, SuiteMetric

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.core.orientation import Orientation
    from radiology_tasks.leaderboard.rules import Rescoring
    from radiology_tasks.report_judge.scorer import JudgePrompt


class GreenVert(Family):
    """The green_vert family."""

    name = "green_vert"
    tasks_module = "radiology_tasks.green_vert.tasks"
    tasks = ("green", "vert")
    version = "1.6.0"
    templates = ("green_vert",)
    lm_eval_configs = (
        "radiology_green.yaml",
        "radiology_vert.yaml",
        "radiology_vert_formula.yaml",
        "radiology_vert_rubric.yaml",
    )
    layouts = (
        "radiology_tasks.green_vert.layouts.rate_eval",
        "radiology_tasks.green_vert.layouts.radeval_expert",
        "radiology_tasks.green_vert.layouts.rexval",
    )
    side_args = ("baselines",)

    def register(self) -> None:
        """Register the family's scorers and solvers with Inspect by name."""
        import radiology_tasks.report_judge.scorer  # noqa: F401

    def orientations(self) -> Mapping[str, Orientation]:
        """GREEN-EC counts the judge's clinically significant errors: the fewer, the better the report."""
        from radiology_tasks.core.orientation import LOWER_IS_BETTER

        return {"green_ec": LOWER_IS_BETTER}

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's tasks."""
        from radiology_tasks.green_vert.rescoring import RESCORING

        return RESCORING

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """The family's judges for `metric_suite`."""
        from radiology_tasks.green_vert.suite import SUITE

        return SUITE

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, as `judge_task` chooses them (from the samples' expert data)."""
        from radiology_tasks.core.metrics import ExpertPresence
        from radiology_tasks.green_vert.run_metrics import judge_metrics
        from radiology_tasks.report_judge.scorer import score_keys

        prompt = "green" if task == "green" else task_args.get("prompt") or "vert"
        return judge_metrics(
            score_keys(cast("JudgePrompt", prompt)),
            ExpertPresence.of_samples(samples),
            generate=bool(task_args.get("generate")),
            baselines=task_args.get("baselines"),
        )

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """The family's own `radiology-tasks` subcommands."""
        from radiology_tasks.green_vert.commands import add_commands

        add_commands(commands)


FAMILY = GreenVert()
