"""Ran Score as a family: 21 finding labels read from both reports, scored by corpus macro F1."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="ran_score",
    tasks_module="radiology_tasks.ran_score.tasks",
    tasks=("ran_score",),
    version="1.3.0",
    templates=("ran_score",),
    rescoring="radiology_tasks.ran_score.rescoring:RESCORING",
    suite_notes={
        "ran_score": "ran_score is a corpus macro F1 over labels: run radiology_tasks/ran_score on the same rows and "
        "join its log with `radiology-tasks suite-report`",
    },
    lm_eval_configs=("radiology_ran_score_extraction.yaml",),
    commands="radiology_tasks.ran_score.commands:add_commands",
    registers=("radiology_tasks.ran_score.scorer", "radiology_tasks.ran_score.solver"),
    side_args=("baselines",),
    default_data="ran-score-demo",
)
