"""CT-FineBench as a family: questions about fine-grained finding attributes, answered from the candidate report."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="ct_finebench",
    tasks_module="radiology_tasks.ct_finebench.tasks",
    tasks=("ct_finebench",),
    version="1.3.0",
    templates=("ct_finebench",),
    rescoring="radiology_tasks.ct_finebench.rescoring:RESCORING",
    suite="radiology_tasks.ct_finebench.suite:SUITE",
    lm_eval_configs=("radiology_ct_finebench_qa.yaml",),
    layouts=("radiology_tasks.ct_finebench.layout",),
    commands="radiology_tasks.ct_finebench.commands:add_commands",
    registers=("radiology_tasks.ct_finebench.extraction", "radiology_tasks.ct_finebench.scorer"),
    side_args=("baselines",),
)
