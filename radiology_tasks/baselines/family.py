"""The baselines as a family: lexical and RadEval metrics, and the suite that runs several metrics at once."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="baselines",
    tasks_module="radiology_tasks.baselines.tasks",
    tasks=("baselines", "metric_suite"),
    version="1.3.0",
    rescoring="radiology_tasks.baselines.rescoring:RESCORING",
    commands="radiology_tasks.baselines.commands:add_commands",
    registers=("radiology_tasks.baselines.scorer",),
    side_args=("baselines",),
)
