"""GREEN and VERT as a family: two judge tasks over report pairs, scored from error counts or a direct score."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore

    from radiology_tasks.core.orientation import Orientation
    from radiology_tasks.report_judge.scorer import JudgePrompt


class GreenVert(RescoredFamily):
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
    mutation_tested = ("layouts/*.py", "fewshot.py")
    scorer_modules = ("radiology_tasks.report_judge.scorer",)
    suite_module = "radiology_tasks.green_vert.suite"
    commands_module = "radiology_tasks.green_vert.commands"
    rescoring_module = "radiology_tasks.green_vert.rescoring"

    def orientations(self) -> Mapping[str, Orientation]:
        """GREEN-EC counts the judge's clinically significant errors: the fewer, the better the report."""
        from radiology_tasks.core.orientation import LOWER_IS_BETTER

        return {"green_ec": LOWER_IS_BETTER}

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


FAMILY = GreenVert()
