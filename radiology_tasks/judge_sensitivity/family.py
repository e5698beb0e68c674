"""Judge sensitivity as a family: how a judge's score moves under injected errors and paraphrases."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="judge_sensitivity",
    tasks_module="radiology_tasks.judge_sensitivity.tasks",
    tasks=("judge_sensitivity",),
    version="1.4.0",
    templates=("judge_sensitivity", "green_vert"),
    rescoring="radiology_tasks.judge_sensitivity.rescoring:RESCORING",
    commands="radiology_tasks.judge_sensitivity.family_commands:add_commands",
    registers=("radiology_tasks.judge_sensitivity.scorer", "radiology_tasks.judge_sensitivity.solvers"),
)
