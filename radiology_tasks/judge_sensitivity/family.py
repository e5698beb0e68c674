"""Judge sensitivity as a family: how a judge's score moves under injected errors and paraphrases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.family import Family, ReportMetrics

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.judge_sensitivity.scorer import SensitivityPrompt
    from radiology_tasks.leaderboard.rules import Rescoring


class JudgeSensitivity(Family):
    """The judge_sensitivity family."""

    name = "judge_sensitivity"
    tasks_module = "radiology_tasks.judge_sensitivity.tasks"
    tasks = ("judge_sensitivity",)
    version = "1.6.0"
    templates = ("judge_sensitivity", "green_vert")

    def register(self) -> None:
        """Register the family's scorers and solvers with Inspect by name."""
        import radiology_tasks.judge_sensitivity.scorer  # noqa: F401
        import radiology_tasks.judge_sensitivity.solvers  # noqa: F401

    def rescoring(self, task: str) -> Rescoring | None:
        """The leaderboard's rules for the family's tasks."""
        from radiology_tasks.judge_sensitivity.rescoring import RESCORING

        return RESCORING

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, for the error types and counts its variants hold."""
        from radiology_tasks.judge_sensitivity.metrics import judged_variants
        from radiology_tasks.judge_sensitivity.run_metrics import sensitivity_metrics

        errors = [v for v in judged_variants(samples, None) if v.kind == "error"]
        categories = tuple(dict.fromkeys(str(v.category) for v in errors))
        prompt = cast("SensitivityPrompt", task_args.get("prompt") or "vert")
        return sensitivity_metrics(prompt, categories, max((v.n_errors for v in errors), default=0))

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """The family's own `radiology-tasks` subcommands."""
        from radiology_tasks.judge_sensitivity.family_commands import add_commands

        add_commands(commands)


FAMILY = JudgeSensitivity()
