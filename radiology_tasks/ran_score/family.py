"""Ran Score as a family: 21 finding labels read from both reports, scored by corpus macro F1."""

from __future__ import annotations

from radiology_tasks.core.family import BundledData
from radiology_tasks.rescored import RescoredFamily


class RanScore(RescoredFamily):
    tasks = ("ran_score",)
    version = "1.5.0"
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


FAMILY = RanScore()
