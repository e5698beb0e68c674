"""The `-T` parameters of the GREEN and VERT tasks as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA, JUDGE, READING

EXAMPLES: dict[str, Any] = {
    "shots": 0,
    "shot_pool": None,
    "shot_seed": 0,
    "curated": "none",
    "error_descriptions": False,
}
EXPECTED: dict[str, dict[str, Any]] = {
    "green": {**DATA, **EXAMPLES, **READING, **JUDGE, "baselines": None},
    "vert": {"prompt": "vert", **DATA, **EXAMPLES, **READING, **JUDGE, "baselines": None},
}
