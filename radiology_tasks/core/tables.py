"""Reading the data files users hold (CSV, JSON Lines, JSON) into records, and hashing them.

Every layout reads its files through these functions, whether the files came from the Hugging Face hub or
from a copy the user downloaded, so a dataset is read the same way from both.
"""

from __future__ import annotations

import csv
import hashlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from radiology_tasks.core.errors import InputError

Record = dict[str, Any]
NumberedRecord = tuple[int, Record]

TABLE_SUFFIXES = (".csv", ".jsonl", ".ndjson", ".json")


class DataError(InputError):
    """A row of input data that cannot be used, located by source, row and field.

    Attributes:
        source: File or dataset name.
        row: 1-based data row, or None when the problem is not one row's.
        field: The column at fault, if any.
        problem: What is wrong, without the location (`message` has both).
    """

    def __init__(self, source: str, row: int | None, field: str | None, problem: str) -> None:
        self.source = source
        self.row = row
        self.field = field
        self.problem = problem
        where = source if row is None else f"{source}, row {row}"
        if field:
            where += f", field '{field}'"
        super().__init__(f"{where}: {problem}")


def _raise_csv_field_limit() -> None:
    # Report cells can be long; the csv module's default 128 KiB per cell is not a limit of the format.
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def csv_records(path: Path) -> Iterator[NumberedRecord]:
    """Yield `(row number, record)` from a CSV file; row numbers count data rows (records) from 1.

    An empty cell reads as None. A row with more values than the header has columns is an error (empty
    extra cells, as trailing commas leave, are not). A byte-order mark, as spreadsheet programs write, is
    not part of the first column's name.
    """
    _raise_csv_field_limit()
    with path.open(encoding="utf-8-sig", newline="") as f:
        for number, row in enumerate(csv.DictReader(f), start=1):
            extra = [value for value in row.pop(None, []) if value.strip()]
            if extra:
                raise DataError(str(path), number, None, f"{len(extra)} more values than the header has columns")
            yield number, {k: (None if v == "" or v is None else v) for k, v in row.items()}


def jsonl_records(path: Path) -> Iterator[NumberedRecord]:
    """Yield `(row number, object)` from a JSON Lines file; blank lines are not rows."""
    with path.open(encoding="utf-8-sig") as f:
        number = 0
        for line in f:
            if not line.strip():
                continue
            number += 1
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(str(path), number, None, f"not valid JSON ({exc.msg})") from exc
            if not isinstance(row, dict):
                raise DataError(str(path), number, None, "a JSONL row must be a JSON object")
            yield number, row


def json_document(path: Path) -> Any:
    """The whole JSON value of a `.json` file."""
    try:
        with path.open(encoding="utf-8-sig") as f:
            return json.load(f)
    except json.JSONDecodeError as exc:
        raise DataError(str(path), None, None, f"not valid JSON (line {exc.lineno}: {exc.msg})") from exc


def table_records(path: Path) -> Iterator[NumberedRecord]:
    """Records of a CSV or JSON Lines file, or of a `.json` file holding a list of objects."""
    suffix = path.suffix.lower()
    if suffix == ".csv":
        return csv_records(path)
    if suffix in {".jsonl", ".ndjson"}:
        return jsonl_records(path)
    if suffix == ".json":
        document = json_document(path)
        if not isinstance(document, list) or not all(isinstance(item, dict) for item in document):
            raise DataError(str(path), None, None, "expected a JSON list of objects")
        return iter(enumerate(document, start=1))
    raise DataError(str(path), None, None, f"unsupported file type; use one of {', '.join(TABLE_SUFFIXES)}")


def column_names(path: Path) -> set[str]:
    """The columns (or keys) a file's records have: a CSV header, or the keys of the first JSON object(s).

    A `.json` document that is one object is described by its own keys and, when its values are objects, by
    the keys of the first value too (a file keyed by study id). Unreadable or empty files have no columns.
    """
    suffix = path.suffix.lower()
    try:
        if suffix == ".csv":
            _raise_csv_field_limit()
            with path.open(encoding="utf-8-sig", newline="") as f:
                return set(next(csv.reader(f), []))
        if suffix in {".jsonl", ".ndjson"}:
            first = next(jsonl_records(path), None)
            return set(first[1]) if first else set()
        if suffix == ".json":
            document = json_document(path)
            if isinstance(document, list):
                return set(document[0]) if document and isinstance(document[0], dict) else set()
            if isinstance(document, dict):
                first_value = next(iter(document.values()), None)
                return set(document) | (set(first_value) if isinstance(first_value, dict) else set())
    except (OSError, UnicodeDecodeError, DataError):
        return set()
    return set()


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
