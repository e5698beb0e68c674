"""GREEN and VERT as a family: two judge tasks over report pairs, scored from error counts or a direct score."""

from __future__ import annotations

from radiology_tasks.core.orientation import LOWER_IS_BETTER
from radiology_tasks.rescored import RescoredFamily


class GreenVert(RescoredFamily):
    tasks = ("green", "vert")
    version = "1.6.0"
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
    # GREEN-EC counts the judge's clinically significant errors: the fewer, the better the report.
    score_orientations = {"green_ec": LOWER_IS_BETTER}


FAMILY = GreenVert()
