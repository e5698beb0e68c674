"""The `-T` parameters of the judge sensitivity task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA, JUDGE, READING, only

EXPECTED: dict[str, dict[str, Any]] = {
    "judge_sensitivity": {
        "prompt": "vert",
        "passes": 1,
        "categories": None,
        "max_errors": 3,
        "paraphrases": 1,
        "injector_attempts": 5,
        "injector_temperature": 0.0,
        "injector_max_tokens": None,
        **only(DATA, "data", "revision", "limit", "seed", "on_bad_rows", "layout"),
        **READING,
        **JUDGE,
    },
}
