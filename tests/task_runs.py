"""Run a registered task offline and read back the `-T` arguments its log recorded."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval


def logged_task_args(task: str, task_args: dict[str, Any], tmp_path: Path, **roles: Any) -> dict[str, Any]:
    """`log.eval.task_args` of a run of `radiology_tasks/<task>` with `task_args` (model roles as given)."""
    (log,) = inspect_eval(
        f"radiology_tasks/{task}",
        task_args=task_args,
        model="none",
        model_roles=roles or None,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    return dict(log.eval.task_args)
