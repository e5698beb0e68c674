"""Resolving `-T data=...` into validated report pairs: registered datasets, local files, candidate joins."""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from radiology_tasks.core.catalog import DatasetEntry, dataset_entry
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.rows import DataError, pair_from_row, read_rows

logger = logging.getLogger(__name__)

OnBadRows = Literal["error", "skip"]


@dataclass(frozen=True)
class SkippedRow:
    """A row left out under `on_bad_rows="skip"`, with the reason."""

    source: str
    row: int | None
    field: str | None
    reason: str


@dataclass
class LoadedPairs:
    """The pairs a task runs on, where they came from, and what was skipped."""

    source: str
    pairs: list[ReportPair]
    rows_read: int
    skipped: list[SkippedRow] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary for the task's log metadata."""
        return {
            "source": self.source,
            "rows_read": self.rows_read,
            "rows_used": len(self.pairs),
            "rows_skipped": len(self.skipped),
            "skipped": [s.__dict__ for s in self.skipped],
        }


class _Collector:
    """Applies the bad-row policy: raise at once, or record the row as skipped."""

    def __init__(self, on_bad_rows: OnBadRows) -> None:
        if on_bad_rows not in ("error", "skip"):
            raise InputError(f"on_bad_rows must be 'error' or 'skip', got {on_bad_rows!r}")
        self.on_bad_rows = on_bad_rows
        self.skipped: list[SkippedRow] = []

    def bad(self, error: DataError) -> None:
        if self.on_bad_rows == "error":
            raise error
        logger.warning("skipping bad row: %s", error)
        self.skipped.append(SkippedRow(error.source, error.row, error.field, error.problem))


def _pairs_from_rows(
    rows: Iterable[tuple[int, dict[str, Any]]],
    source: str,
    collector: _Collector,
    base_dir: Path | None,
    require_candidate: bool,
) -> tuple[list[ReportPair], int]:
    pairs: list[ReportPair] = []
    seen: dict[str, int] = {}
    count = 0
    for number, row in rows:
        count += 1
        try:
            pair = pair_from_row(row, source=source, row_number=number, base_dir=base_dir)
            if pair.id in seen:
                raise DataError(source, number, "id", f"duplicate id '{pair.id}' (first seen in row {seen[pair.id]})")
            if require_candidate and pair.candidate is None:
                raise DataError(
                    source,
                    number,
                    "candidate",
                    "no candidate report; add the column, pass -T candidates=FILE, or use -T generate=true",
                )
        except DataError as error:
            collector.bad(error)
            continue
        seen[pair.id] = number
        pairs.append(pair)
    return pairs, count


def _join_candidates(pairs: list[ReportPair], path: Path, collector: _Collector) -> list[ReportPair]:
    """Take each pair's candidate from a separate file, joined by id."""
    source = str(path)
    candidates: dict[str, tuple[int, str]] = {}
    for number, row in read_rows(path):
        try:
            report_id = row.get("id")
            if report_id is None or not str(report_id).strip():
                raise DataError(source, number, "id", "missing or empty")
            report_id = str(report_id).strip()
            text = row.get("candidate")
            if not isinstance(text, str) or not text.strip():
                raise DataError(source, number, "candidate", "missing or empty candidate report")
            if report_id in candidates:
                raise DataError(
                    source, number, "id", f"duplicate id '{report_id}' (first seen in row {candidates[report_id][0]})"
                )
            if report_id not in {p.id for p in pairs}:
                raise DataError(source, number, "id", f"id '{report_id}' does not match any report in the data")
        except DataError as error:
            collector.bad(error)
            continue
        candidates[report_id] = (number, text)
    joined = []
    for pair in pairs:
        if pair.id not in candidates:
            collector.bad(DataError(source, None, "id", f"no candidate for report id '{pair.id}'"))
            continue
        joined.append(pair.model_copy(update={"candidate": candidates[pair.id][1]}))
    return joined


def load_pairs(
    data: str | None = None,
    *,
    candidates: str | None = None,
    reports: str | None = None,
    revision: str | None = None,
    on_bad_rows: OnBadRows = "error",
    require_candidate: bool = False,
) -> LoadedPairs:
    """Load report pairs from a registered dataset name or a local JSONL/CSV file.

    Args:
        data: Registered dataset name (see `radiology-tasks list`) or path to a JSONL/CSV file.
            None means the bundled demo set.
        candidates: Optional JSONL/CSV file with `id` and `candidate`, joined onto the data by id.
        reports: Report file that question-only datasets (CT-FineBench) are joined with.
        revision: Dataset revision for Hugging Face datasets.
        on_bad_rows: `error` stops at the first bad row; `skip` leaves it out and records it.
        require_candidate: Every pair must end up with a candidate report (replayed runs).

    Raises:
        DataError: for a bad row under `on_bad_rows="error"`, or a file that cannot be read.
        ValueError: for an unknown dataset name.
    """
    collector = _Collector(on_bad_rows)
    name = data or "demo"
    entry: DatasetEntry | None = dataset_entry(name)
    if entry is not None:
        rows, base_dir = entry.rows(revision=revision, reports=reports), entry.base_dir
        source = name
    else:
        path = Path(name).expanduser()
        if not path.is_file():
            raise InputError(
                f"'{name}' is neither a registered dataset nor an existing file; "
                "run `radiology-tasks list` to see the registered datasets"
            )
        if reports is not None:
            raise InputError("-T reports=... applies only to question datasets such as ct-finebench")
        rows, base_dir, source = read_rows(path), path.parent, str(path)
    pairs, rows_read = _pairs_from_rows(rows, source, collector, base_dir, require_candidate and candidates is None)
    if candidates is not None:
        pairs = _join_candidates(pairs, Path(candidates).expanduser(), collector)
    if not pairs:
        raise DataError(source, None, None, "no usable rows")
    return LoadedPairs(source=source, pairs=pairs, rows_read=rows_read, skipped=collector.skipped)
