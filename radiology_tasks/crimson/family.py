"""CRIMSON as a family: one judge call per report pair lists and weighs the abnormal findings; the score is code's."""

from __future__ import annotations

from radiology_tasks.rescored import RescoredFamily


class Crimson(RescoredFamily):
    """The crimson family."""

    name = "crimson"
    tasks_module = "radiology_tasks.crimson.tasks"
    tasks = ("crimson",)
    version = "1.1.0"
    templates = ("crimson",)
    layouts = ("radiology_tasks.crimson.layouts.radpref",)
    mutation_tested = ("layouts/*.py",)
    scorer_modules = ("radiology_tasks.crimson.scorer",)
    suite_module = "radiology_tasks.crimson.suite"
    rescoring_module = "radiology_tasks.crimson.rescoring"
    run_metrics_module = "radiology_tasks.crimson.run_metrics"


FAMILY = Crimson()
