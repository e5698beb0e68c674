"""Ranking tests as a family: does a metric order a case's candidates the way clinical intuition expects?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.rescored import RescoredFamily

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from inspect_ai.scorer import SampleScore


class Ranking(RescoredFamily):
    """The ranking-tests family: one task, `ranking_tests`, over any metric that scores report pairs one at a time."""

    name = "ranking_tests"
    tasks_module = "radiology_tasks.ranking_tests.tasks"
    tasks = ("ranking_tests",)
    version = "1.1.0"
    # The prompts of the judges whose runs the leaderboard re-scores (GREEN and VERT); a run records the template
    # hashes of the metric it tests.
    templates = ("green_vert",)
    mutation_tested = ("cases.py", "outcome.py", "metrics.py")
    scorer_modules = ("radiology_tasks.ranking_tests.scorer", "radiology_tasks.ranking_tests.solver")
    rescoring_module = "radiology_tasks.ranking_tests.rescoring"

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The run's summary and report metrics; a judge's cost only when the tested metric has a judge."""
        from radiology_tasks.ranking_tests.run_metrics import ranking_metrics
        from radiology_tasks.scorers.lexical import LEXICAL_KEYS

        return ranking_metrics(judged=str(task_args.get("metric") or "rouge_l") not in LEXICAL_KEYS)


FAMILY = Ranking()
