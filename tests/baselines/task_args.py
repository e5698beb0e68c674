"""The `-T` parameters of the baselines task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA

EXPECTED: dict[str, dict[str, Any]] = {"baselines": {"baselines": "bleu,chrf,rouge_l", **DATA, "unscored": "worst"}}
