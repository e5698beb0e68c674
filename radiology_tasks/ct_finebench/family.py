"""CT-FineBench as a family: questions about fine-grained finding attributes, answered from the candidate report."""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="ct_finebench",
    tasks_module="radiology_tasks.ct_finebench.tasks",
    tasks=("ct_finebench",),
    version="1.1.0",
    templates=("ct_finebench",),
    lm_eval_configs=("radiology_ct_finebench_qa.yaml",),
    layouts=("radiology_tasks.ct_finebench.layout",),
    registers=("radiology_tasks.ct_finebench.extraction", "radiology_tasks.ct_finebench.scorer"),
)
