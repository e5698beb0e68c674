"""GREEN and VERT as a family: two judge tasks over report pairs, scored from error counts or a direct score."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="green_vert",
    tasks_module="radiology_tasks.green_vert.tasks",
    tasks=("green", "vert"),
    version="1.4.0",
    templates=("green_vert",),
    rescoring="radiology_tasks.green_vert.rescoring:RESCORING",
    suite="radiology_tasks.green_vert.suite:SUITE",
    lm_eval_configs=(
        "radiology_green.yaml",
        "radiology_vert.yaml",
        "radiology_vert_formula.yaml",
        "radiology_vert_rubric.yaml",
    ),
    layouts=(
        "radiology_tasks.green_vert.layouts.rate_eval",
        "radiology_tasks.green_vert.layouts.radeval_expert",
        "radiology_tasks.green_vert.layouts.rexval",
    ),
    commands="radiology_tasks.green_vert.commands:add_commands",
    registers=("radiology_tasks.green_vert.scorer",),
    side_args=("baselines",),
)
