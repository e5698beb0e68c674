"""The `-T` parameters of the CT-FineBench task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA, JUDGE, without

EXPECTED: dict[str, dict[str, Any]] = {
    "ct_finebench": {**without(DATA, "report_max_tokens"), "qa_mode": "batch", **JUDGE, "baselines": None},
}
