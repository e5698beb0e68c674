"""CT-FineBench as a family: questions about fine-grained finding attributes, answered from the candidate report."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore


class CTFineBench(RescoredFamily):
    """The ct_finebench family."""

    name = "ct_finebench"
    tasks_module = "radiology_tasks.ct_finebench.tasks"
    tasks = ("ct_finebench",)
    version = "1.5.0"
    templates = ("ct_finebench",)
    lm_eval_configs = ("radiology_ct_finebench_qa.yaml",)
    layouts = ("radiology_tasks.ct_finebench.layout",)
    side_args = ("baselines",)
    mutation_tested = ("layout.py",)
    scorer_modules = ("radiology_tasks.ct_finebench.extraction", "radiology_tasks.ct_finebench.scorer")
    suite_module = "radiology_tasks.ct_finebench.suite"
    commands_module = "radiology_tasks.ct_finebench.commands"
    rescoring_module = "radiology_tasks.ct_finebench.rescoring"

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, as the task chooses them (from the samples' expert scores)."""
        from radiology_tasks.core.metrics import ExpertPresence
        from radiology_tasks.ct_finebench.run_metrics import ct_metrics

        return ct_metrics(ExpertPresence.of_samples(samples), task_args.get("baselines"))


FAMILY = CTFineBench()
