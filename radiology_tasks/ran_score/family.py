"""Ran Score as a family: 21 finding labels read from both reports, scored by corpus macro F1."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import BundledData, ReportMetrics
from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore


class RanScore(RescoredFamily):
    """The ran_score family."""

    name = "ran_score"
    tasks_module = "radiology_tasks.ran_score.tasks"
    tasks = ("ran_score",)
    version = "1.5.0"
    templates = ("ran_score",)
    suite_notes = {
        "ran_score": "ran_score is a corpus macro F1 over labels: run radiology_tasks/ran_score on the same rows and "
        "join its log with `radiology-tasks suite-report`",
    }
    lm_eval_configs = ("radiology_ran_score_extraction.yaml",)
    side_args = ("baselines",)
    default_data = "ran-score-demo"
    datasets = {
        "ran-score-demo": BundledData(
            "radiology_tasks.ran_score",
            "data/ran_score_demo.jsonl",
            "Bundled synthetic chest X-ray report pairs (English and Chinese) with team-written reference labels",
        )
    }
    scorer_modules = ("radiology_tasks.ran_score.scorer", "radiology_tasks.ran_score.solver")
    commands_module = "radiology_tasks.ran_score.commands"
    rescoring_module = "radiology_tasks.ran_score.rescoring"

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics, as the task chooses them, under the run's taxonomy and policy."""
        from radiology_tasks.core.unscored import check_policy
        from radiology_tasks.ran_score.metrics import GOLD_LABELS
        from radiology_tasks.ran_score.run_metrics import ran_metrics
        from radiology_tasks.ran_score.taxonomy import load_taxonomy

        return ran_metrics(
            load_taxonomy(task_args.get("taxonomy")),
            check_policy(task_args.get("unscored") or "worst"),
            with_gold=any((s.score.metadata or {}).get(GOLD_LABELS) is not None for s in samples),
            generate=bool(task_args.get("generate")),
            baselines=task_args.get("baselines"),
        )


FAMILY = RanScore()
