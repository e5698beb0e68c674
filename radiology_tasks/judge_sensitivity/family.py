"""Judge sensitivity as a family: how a judge's score moves under injected errors and paraphrases."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.judge_sensitivity.scorer import SensitivityPrompt


class JudgeSensitivity(RescoredFamily):
    """The judge_sensitivity family."""

    name = "judge_sensitivity"
    tasks_module = "radiology_tasks.judge_sensitivity.tasks"
    tasks = ("judge_sensitivity",)
    version = "1.6.0"
    templates = ("judge_sensitivity", "green_vert")
    mutation_tested = ("variant_sft.py", "variant_split.py", "variant_check.py")
    scorer_modules = ("radiology_tasks.judge_sensitivity.scorer", "radiology_tasks.judge_sensitivity.solvers")
    commands_module = "radiology_tasks.judge_sensitivity.family_commands"
    rescoring_module = "radiology_tasks.judge_sensitivity.rescoring"

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, for the error types and counts its variants hold."""
        from radiology_tasks.judge_sensitivity.metrics import judged_variants
        from radiology_tasks.judge_sensitivity.run_metrics import sensitivity_metrics

        errors = [v for v in judged_variants(samples, None) if v.kind == "error"]
        categories = tuple(dict.fromkeys(str(v.category) for v in errors))
        prompt = cast("SensitivityPrompt", task_args.get("prompt") or "vert")
        return sensitivity_metrics(prompt, categories, max((v.n_errors for v in errors), default=0))


FAMILY = JudgeSensitivity()
