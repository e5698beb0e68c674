"""The metric families this package ships: one line per family, naming the module that declares it.

Adding a family is its own folder (tasks, scorer, templates, tests, README, and a `family.py` declaring a
`radiology_tasks.core.family.Family`) plus one line here; see CONTRIBUTING.md.
"""

FAMILY_MODULES = (
    "radiology_tasks.green_vert.family",
    "radiology_tasks.ct_finebench.family",
    "radiology_tasks.ran_score.family",
    "radiology_tasks.judge_sensitivity.family",
    "radiology_tasks.baselines.family",
    "radiology_tasks.suite.family",
    "radiology_tasks.report_generation.family",
    "radiology_tasks.crimson.family",
    "radiology_tasks.ranking_tests.family",
)
