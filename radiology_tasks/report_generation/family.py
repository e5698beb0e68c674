"""Report generation as a family: one task that writes the reports every judge task can then replay.

Its logs are not submitted to the leaderboard themselves (no rescoring): they are the candidates of the judged
runs that are (`-T candidates=LOG.eval`).
"""

from radiology_tasks.core.family import Family

FAMILY = Family(
    name="report_generation",
    tasks_module="radiology_tasks.report_generation.tasks",
    tasks=("report_generation",),
    version="1.1.0",
    registers=("radiology_tasks.report_generation.scorer",),
)
