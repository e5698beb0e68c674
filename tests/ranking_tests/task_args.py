"""The `-T` parameters of the ranking tests task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import JUDGE, without

EXPECTED: dict[str, dict[str, Any]] = {
    "ranking_tests": {
        "metric": "rouge_l",
        "data": "demo",
        "key": None,
        "direction": "auto",
        "tie_tolerance": 0.01,
        **without(JUDGE, "unscored"),
    },
}
