"""The `-T` parameters of the Ran Score task as Inspect logs them, pinned
(`tests/task_args.py` says why; `tests/test_task_args.py` checks them)."""

from __future__ import annotations

from typing import Any

from tests.task_args import DATA, JUDGE, without

EXPECTED: dict[str, dict[str, Any]] = {
    "ran_score": {
        **without(DATA, "report_max_tokens"),
        "taxonomy": None,
        "extraction": "batch",
        "reference_labels": None,
        "candidate_labels": None,
        "gold_labels": None,
        "label_cache": None,
        **JUDGE,
        "baselines": None,
    },
}
