"""Registered dataset names that `-T data=NAME` accepts."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.rows import read_rows

Rows = Iterable[tuple[int, dict[str, Any]]]


@dataclass(frozen=True)
class DatasetEntry:
    """A dataset users can name; `load` yields numbered flat rows (the local-file layout).

    `file` is the bundled file a bundled dataset reads (None for hub datasets), which its fingerprint hashes.
    """

    name: str
    description: str
    load: Callable[..., Rows]
    base_dir: Path | None = None
    file: Path | None = None

    def rows(self, *, revision: str | None, reports: str | None) -> Rows:
        """The dataset's rows, fetched lazily."""
        return self.load(revision=revision, reports=reports)


def bundled_path(filename: str) -> Path:
    """Path of a file bundled in `radiology_tasks/data`."""
    return Path(str(files("radiology_tasks") / "data" / filename))


def _bundled_rows(filename: str, *, revision: str | None = None, reports: str | None = None) -> Rows:
    if revision is not None or reports is not None:
        raise InputError("bundled datasets take neither -T revision nor -T reports")
    return read_rows(bundled_path(filename))


def _hub_rows(function_name: str, **kwargs: Any) -> Rows:
    # Looked up when the rows are asked for: hub.py loads only for a hub dataset.
    from radiology_tasks.core import hub

    return getattr(hub, function_name)(**kwargs)


_ENTRIES = [
    DatasetEntry(
        "demo",
        "Bundled synthetic report pairs (CT, chest X-ray, MRI) with planted errors and expert-style scores",
        partial(_bundled_rows, "demo_reports.jsonl"),
        bundled_path("demo_reports.jsonl").parent,
        bundled_path("demo_reports.jsonl"),
    ),
    DatasetEntry(
        "ran-score-demo",
        "Bundled synthetic chest X-ray report pairs (English and Chinese) with team-written reference labels",
        partial(_bundled_rows, "ran_score_demo.jsonl"),
        bundled_path("ran_score_demo.jsonl").parent,
        bundled_path("ran_score_demo.jsonl"),
    ),
    DatasetEntry(
        "rate-eval",
        "RaTE-Eval paragraph level (Angelakeke/RaTE-Eval): reference, candidate, expert score 0-5",
        partial(_hub_rows, "rate_eval_rows"),
    ),
    DatasetEntry(
        "radeval-expert",
        "RadEval expert set (IAMJB/RadEvalExpertDataset): per-category error counts by radiologists",
        partial(_hub_rows, "radeval_expert_rows"),
    ),
    DatasetEntry(
        "ct-finebench",
        "CT-FineBench QA pairs (csyrf/CT-FineBench), joined by id with your -T reports=FILE",
        partial(_hub_rows, "ct_finebench_rows"),
    ),
]
DATASETS: dict[str, DatasetEntry] = {e.name: e for e in _ENTRIES}


def dataset_entry(name: str) -> DatasetEntry | None:
    """The registered dataset called `name`, or None."""
    return DATASETS.get(name)
