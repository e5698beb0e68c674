"""Report generation as a family: one task that writes the reports every judge task can then replay.

Its logs are not submitted to the leaderboard themselves (it does not implement `Submittable`): they are the
candidates of the judged runs that are (`-T candidates=LOG.eval`).
"""

from radiology_tasks.core.family import Family


class ReportGeneration(Family):
    """The report_generation family."""

    name = "report_generation"
    tasks_module = "radiology_tasks.report_generation.tasks"
    tasks = ("report_generation",)
    version = "1.1.0"

    def register(self) -> None:
        """Register the family's scorer with Inspect by name."""
        import radiology_tasks.report_generation.scorer  # noqa: F401


FAMILY = ReportGeneration()
