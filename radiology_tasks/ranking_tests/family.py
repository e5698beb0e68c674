"""Ranking tests as a family: does a metric order a case's candidates the way clinical intuition expects?"""

from __future__ import annotations

from radiology_tasks.rescored import RescoredFamily


class Ranking(RescoredFamily):
    """The ranking-tests family: one task, `ranking_tests`, over any metric that scores report pairs one at a time."""

    tasks = ("ranking_tests",)
    version = "1.1.0"
    # The prompts of the judges whose runs the leaderboard re-scores (GREEN and VERT); a run records the template
    # hashes of the metric it tests.
    templates = ("green_vert",)
    mutation_tested = ("cases.py", "outcome.py", "metrics.py")
    scorer_modules = ("radiology_tasks.ranking_tests.scorer", "radiology_tasks.ranking_tests.solver")


FAMILY = Ranking()
