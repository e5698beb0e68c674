"""The shared `-T` parameters every task that takes them has, as Inspect logs them, written out in full.

Each family pins its own tasks' parameters in `tests/<family>/task_args.py` (`EXPECTED`, built from these),
and `tests/test_task_args.py` checks that every registered family has done so and that the pins hold. Written out,
not derived from the option classes, so a renamed, dropped or re-defaulted parameter fails.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from typing import Any

DATA: dict[str, Any] = {
    "data": None,
    "candidates": None,
    "reports": None,
    "revision": None,
    "limit": None,
    "seed": None,
    "on_bad_rows": "error",
    "layout": None,
    "track": None,
    "image_root": None,
    "expert_scale": None,
    "generate": False,
    "report_max_tokens": 1536,
    "images": "all",
    "missing_images": "error",
}
"""`radiology_tasks.core.data_options.DataOptions`."""
JUDGE: dict[str, Any] = {"constrain": "auto", "judge_max_tokens": None, "judge_retries": 1, "unscored": "worst"}
"""`radiology_tasks.core.judge_options.JudgeOptions`."""
READING: dict[str, Any] = {"zero_matched": "perfect_if_no_errors", "missing_categories": "zero", "detail": "full"}
"""The shared GREEN/VERT judge's reading options (`radiology_tasks.report_judge.options`)."""


def without(values: dict[str, Any], *names: str) -> dict[str, Any]:
    """`values` without `names`."""
    return {k: v for k, v in values.items() if k not in names}


def only(values: dict[str, Any], *names: str) -> dict[str, Any]:
    """`values` restricted to `names`."""
    return {k: v for k, v in values.items() if k in names}


def parameters(function: Callable[..., Any]) -> dict[str, Any]:
    """A task function's parameters and defaults, in order: what Inspect matches `-T` names against and logs."""
    return {p.name: p.default for p in inspect.signature(function).parameters.values()}


def pinned(family: str) -> dict[str, dict[str, Any]]:
    """The parameters the family's own tests pin for each of its tasks (`EXPECTED` in `tests/<family>/task_args.py`).

    Raises:
        AssertionError: naming the family, when its tests pin none.
    """
    try:
        module = importlib.import_module(f"tests.{family}.task_args")
    except ModuleNotFoundError as error:
        missing = f"family {family}: no tests/{family}/task_args.py pins its tasks' -T parameters"
        raise AssertionError(missing) from error
    expected: dict[str, dict[str, Any]] = module.EXPECTED
    return expected
