"""Report generation as a family: one task that writes the reports every judge task can then replay.

Its logs are not submitted to the leaderboard themselves (it does not implement `Submittable`): they are the
candidates of the judged runs that are (`-T candidates=LOG.eval`).
"""

from __future__ import annotations

from radiology_tasks.core.family import Family


class ReportGeneration(Family):
    tasks = ("report_generation",)
    generation_tasks = ("report_generation",)
    version = "1.3.0"


FAMILY = ReportGeneration()
