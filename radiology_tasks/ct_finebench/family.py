"""CT-FineBench as a family: questions about fine-grained finding attributes, answered from the candidate report."""

from __future__ import annotations

from radiology_tasks.rescored import RescoredFamily


class CTFineBench(RescoredFamily):
    tasks = ("ct_finebench",)
    version = "1.5.0"
    lm_eval_configs = ("radiology_ct_finebench_qa.yaml",)
    layouts = ("radiology_tasks.ct_finebench.layout",)
    side_args = ("baselines",)
    mutation_tested = ("layout.py",)
    scorer_modules = ("radiology_tasks.ct_finebench.extraction", "radiology_tasks.ct_finebench.scorer")


FAMILY = CTFineBench()
