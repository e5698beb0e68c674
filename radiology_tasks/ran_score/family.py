"""Ran Score as a family: 21 finding labels read from both reports, scored by corpus macro F1."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="ran_score",
    tasks_module="radiology_tasks.ran_score.tasks",
    tasks=("ran_score",),
    version="1.1.0",
    templates=("ran_score",),
    lm_eval_configs=("radiology_ran_score_extraction.yaml",),
    registers=("radiology_tasks.ran_score.scorer", "radiology_tasks.ran_score.solver"),
)
