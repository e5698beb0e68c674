"""The reports that construction reads: every column of each row, checked as a report pair."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from radiology_tasks.core.loading import resolve_data
from radiology_tasks.core.rows import DataError, pair_from_row
from radiology_tasks.core.task_data import DataOptions


def text_hash(text: str) -> str:
    """A short hash of a report's text: an edited report no longer matches its earlier output line."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class ReportRow:
    """One report to build from.

    Attributes:
        id: The report's id, as the loaders read it.
        reference: The report text.
        row: The row as read, every column kept (step 3 writes it back with its questions).
    """

    id: str
    reference: str
    row: dict[str, Any]

    @property
    def hash(self) -> str:
        """`text_hash` of the report text."""
        return text_hash(self.reference)


def read_reports(data: str, limit: int | None = None) -> list[ReportRow]:
    """Read the reports of a registered dataset or a JSONL/CSV file with ``id`` and ``reference`` columns.

    Args:
        data: Dataset name (``demo``) or file path.
        limit: Read only this many rows from the start.

    Raises:
        DataError: A row is not a usable report pair, or an id repeats (naming file, row and field).
        InputError: `data` is neither a dataset nor a file.
    """
    resolved = resolve_data(data)
    rows, source = resolved.rows(DataOptions()), resolved.label
    reports: list[ReportRow] = []
    seen: dict[str, int] = {}
    for number, row in rows:
        if limit is not None and len(reports) >= limit:
            break
        pair = pair_from_row(row, source=source, row_number=number)
        if pair.id in seen:
            raise DataError(source, number, "id", f"duplicate id '{pair.id}' (first seen in row {seen[pair.id]})")
        seen[pair.id] = number
        reports.append(ReportRow(pair.id, pair.reference, dict(row)))
    if not reports:
        raise DataError(source, None, None, "no reports")
    return reports
