"""The family README's parameter table is the rendering of the task's docstring."""

from __future__ import annotations

from pathlib import Path

from radiology_tasks.task_docs import refresh, registered_task_docs

README = Path(__file__).resolve().parents[2] / "radiology_tasks" / "report_generation" / "README.md"


def test_the_parameter_table_is_the_docstrings() -> None:
    text = README.read_text(encoding="utf-8")
    refreshed, stale = refresh(text, registered_task_docs(), str(README))
    assert stale == [] and refreshed == text
    assert "`report_max_tokens` | `1536`" in text
