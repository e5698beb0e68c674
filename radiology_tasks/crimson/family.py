"""CRIMSON as a family: one judge call per report pair lists and weighs the abnormal findings; the score is code's."""

from __future__ import annotations

from radiology_tasks.rescored import RescoredFamily


class Crimson(RescoredFamily):
    tasks = ("crimson",)
    version = "1.1.0"
    layouts = ("radiology_tasks.crimson.layouts.radpref",)
    mutation_tested = ("layouts/*.py",)


FAMILY = Crimson()
