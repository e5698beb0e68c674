"""CT-FineBench pure logic: numeric grading, the judge's JSON answers and their output contracts."""

from radiology_tasks.scorers.numeric import grade_numeric

__all__ = ["grade_numeric"]
