"""The `-T` parameters of the report generation task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA, without

EXPECTED: dict[str, dict[str, Any]] = {"report_generation": without(DATA, "candidates", "generate")}
