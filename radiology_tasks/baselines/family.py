"""The baselines as a family: lexical metrics against the reference, offline, no judge."""

from __future__ import annotations

from radiology_tasks.rescored import RescoredFamily


class Baselines(RescoredFamily):
    tasks = ("baselines",)
    version = "1.5.0"
    side_args = ("baselines",)
    run_metrics_module = "radiology_tasks.suite.run_metrics"


FAMILY = Baselines()
