"""The `-T` parameters of the metric suite's task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA, JUDGE, without

EXPECTED: dict[str, dict[str, Any]] = {
    "metric_suite": {
        "metrics": "bleu,chrf,rouge_l",
        **without(DATA, "generate", "report_max_tokens", "images", "missing_images"),
        "sensitivity": None,
        "qa_mode": "batch",
        **JUDGE,
    },
}
