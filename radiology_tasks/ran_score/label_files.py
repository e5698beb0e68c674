"""Label tables in the authors' layout: a CSV with `study_id` and one 0/1 column per label, in taxonomy order.

Reading is strict and stops at the first problem, whatever `-T on_bad_rows` says: labels are the standard a
score is computed against, so a skipped row would silently change the score. Every error names the file, the
row and the column.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.rows import DataError
from radiology_tasks.scorers.taxonomy import Taxonomy

STUDY_ID = "study_id"
"""The id column of a label table; joined with the data's `id`."""

_VALUES = {"0": 0, "1": 1, "0.0": 0, "1.0": 1}

LabelTable = dict[str, dict[str, int]]
"""study_id -> {label column: 0 or 1}."""


def _value(text: str | None, source: str, row: int, column: str) -> int:
    cell = (text or "").strip()
    if not cell:
        raise DataError(source, row, column, "missing value; every label must be 0 or 1")
    if cell not in _VALUES:
        hint = " (map uncertain labels to 0 or 1 first)" if cell in {"-1", "-1.0"} else ""
        raise DataError(source, row, column, f"expected 0 or 1, got {cell!r}{hint}")
    return _VALUES[cell]


def read_label_file(path: str, taxonomy: Taxonomy) -> LabelTable:
    """Read a label table, one row per study.

    Args:
        path: CSV file with `study_id` and a column for every label of `taxonomy` (other columns are ignored).
        taxonomy: Gives the label columns.

    Raises:
        InputError: for a missing file; `DataError` (naming file, row and column) for a missing column, a
            missing, empty or duplicate study_id, or a value other than 0/1.
    """
    source = Path(path).expanduser()
    if not source.is_file():
        raise InputError(f"label file not found: {source}")
    if source.suffix.lower() != ".csv":
        raise DataError(str(source), None, None, "label files are CSV (study_id and one 0/1 column per label)")
    table: LabelTable = {}
    first_row: dict[str, int] = {}
    with source.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        for column in [STUDY_ID, *taxonomy.columns]:
            if column not in header:
                raise DataError(str(source), None, column, "missing column")
        for number, row in enumerate(reader, start=1):
            study = (row.get(STUDY_ID) or "").strip()
            if not study:
                raise DataError(str(source), number, STUDY_ID, "missing or empty")
            if study in table:
                problem = f"duplicate id '{study}' (first in row {first_row[study]})"
                raise DataError(str(source), number, STUDY_ID, problem)
            table[study] = {column: _value(row.get(column), str(source), number, column) for column in taxonomy.columns}
            first_row[study] = number
    if not table:
        raise DataError(str(source), None, None, "no label rows")
    return table


def rows_for(table: LabelTable, ids: Iterable[str], source: str) -> LabelTable:
    """The rows of `table` for `ids`, in order.

    Raises:
        DataError: naming `source` and the first id without a row.
    """
    missing = [i for i in ids if i not in table]
    if missing:
        more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise DataError(source, None, STUDY_ID, f"no row for id '{missing[0]}'{more}")
    return {i: table[i] for i in ids}


def write_label_file(path: Path, rows: Iterable[tuple[str, Mapping[str, int]]], columns: list[str]) -> int:
    """Write a label table in the authors' layout; returns the number of rows written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([STUDY_ID, *columns])
        for study, labels in rows:
            writer.writerow([study, *(labels[c] for c in columns)])
            count += 1
    return count


GOLD_FIELD = "gold_labels"
"""The data field with radiologists' labels of the reference report: an object of label column -> 0/1."""


def gold_from_metadata(metadata: Mapping[str, object], taxonomy: Taxonomy, *, source: str) -> dict[str, int] | None:
    """The radiologists' reference labels a data row carries in `GOLD_FIELD`, keyed by label key; None without.

    Args:
        metadata: The row's extra columns (`ReportPair.metadata`); a CSV cell holds the object as JSON text.
        taxonomy: Gives the label columns; every one must be present.
        source: Where the row came from (``file, row n`` or the sample id), for messages.

    Raises:
        DataError: the field is not an object with a 0/1 value for every label column.
    """
    value = metadata.get(GOLD_FIELD)
    if value is None:
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise DataError(source, None, GOLD_FIELD, "expected a JSON object of label column -> 0/1") from None
    if not isinstance(value, Mapping):
        raise DataError(source, None, GOLD_FIELD, "expected an object of label column -> 0/1")
    unknown = sorted(set(value) - set(taxonomy.columns))
    if unknown:
        raise DataError(source, None, f"{GOLD_FIELD}.{unknown[0]}", "not a label column of the taxonomy")
    gold: dict[str, int] = {}
    for label in taxonomy.labels:
        cell = value.get(label.column)
        if not isinstance(cell, int) or isinstance(cell, bool) or cell not in (0, 1):
            raise DataError(source, None, f"{GOLD_FIELD}.{label.column}", f"expected 0 or 1, got {cell!r}")
        gold[label.key] = cell
    return gold
