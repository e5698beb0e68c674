"""Flat rows (the project's own layout, and what every other layout is read into) mapped onto `ReportPair`."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from radiology_tasks.core.records import ERROR_CATEGORIES, ReportPair
from radiology_tasks.core.tables import DataError as DataError  # re-exported: callers import it from here too
from radiology_tasks.core.tables import table_records

# Columns with a meaning of their own; every other column is kept in `ReportPair.metadata`.
KNOWN_COLUMNS = frozenset(
    {
        "id",
        "reference",
        "candidate",
        "modality",
        "anatomy",
        "language",
        "indication",
        "images",
        "expert_score",
        "expert_score_min",
        "expert_score_max",
        "expert_raters",
        "qa",
    }
    | {f"significant_{c}" for c in ERROR_CATEGORIES}
    | {f"insignificant_{c}" for c in ERROR_CATEGORIES}
)


def read_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield `(row_number, row)` from a file in the flat layout (JSON Lines, CSV, or a JSON list of objects).

    Row numbers count data rows from 1; see `tables.csv_records` for how CSV cells are read.
    """
    return table_records(path)


def _number(row: Mapping[str, Any], field: str, source: str, number: int) -> float | None:
    value = row.get(field)
    if value is None:
        return None
    if isinstance(value, bool):
        raise DataError(source, number, field, f"expected a number, got {value!r}")
    try:
        result = float(value)
    except (TypeError, ValueError):
        raise DataError(source, number, field, f"expected a number, got {value!r}") from None
    except OverflowError:
        raise DataError(source, number, field, f"expected a finite number, got {value!r}") from None
    if math.isnan(result):
        return None
    if math.isinf(result):
        raise DataError(source, number, field, f"expected a finite number, got {value!r}")
    return result


def _count(row: Mapping[str, Any], field: str, source: str, number: int) -> int | None:
    value = row.get(field)
    whole: int | None = None
    # Whole numbers are taken as they are: going through float would round counts beyond 2**53.
    if isinstance(value, int) and not isinstance(value, bool):
        whole = value
    elif isinstance(value, str) and re.fullmatch(r"\s*[+-]?[0-9]+\s*", value):
        whole = int(value)
    else:
        parsed = _number(row, field, source, number)
        if parsed is None:
            return None
        if parsed.is_integer():
            whole = int(parsed)
    if whole is None or whole < 0:
        raise DataError(source, number, field, f"expected a non-negative whole number, got {value!r}")
    return whole


def _mean_count(row: Mapping[str, Any], field: str, source: str, number: int) -> Fraction | float | None:
    """A mean over raters: a layout's exact `Fraction` as it is, else a number (`ExpertAnnotation` reads it as the
    multiple of 1 / raters it stands for)."""
    given = row.get(field)
    value = given if isinstance(given, Fraction) else _number(row, field, source, number)
    if value is not None and value < 0:
        raise DataError(source, number, field, f"expected a non-negative number, got {given!r}")
    return value


def _error_counts(
    row: Mapping[str, Any], prefix: str, source: str, number: int, raters: int | None
) -> dict[str, Fraction | float] | None:
    """The counts (a)-(f) under `prefix`: whole numbers, or means over `raters` radiologists when that is given."""
    read = _count if raters is None else _mean_count
    counts: dict[str, Fraction | float | None] = {
        c: read(row, f"{prefix}_{c}", source, number) for c in ERROR_CATEGORIES
    }
    present = [c for c, v in counts.items() if v is not None]
    if not present:
        return None
    if len(present) != len(ERROR_CATEGORIES):
        missing = next(c for c in ERROR_CATEGORIES if counts[c] is None)
        raise DataError(source, number, f"{prefix}_{missing}", "error counts must be given for all of (a)-(f)")
    return {c: v for c, v in counts.items() if v is not None}


def _images(row: Mapping[str, Any], source: str, number: int, base: Path | None) -> list[str]:
    value = row.get("images")
    if value is None:
        return []
    if isinstance(value, str):
        names = value.split(";")
    elif isinstance(value, list) and all(isinstance(name, str) for name in value):
        names = value
    else:
        raise DataError(
            source, number, "images", f"expected a list of file names (or names separated by ';'), got {value!r}"
        )
    resolved = []
    for name in (n.strip() for n in names if n.strip()):
        # A URL stays as written: as a Path its "//" would collapse to "/". An absolute path stays one
        # when joined to the base directory.
        resolved.append(name if "://" in name or base is None else str(base / name))
    return resolved


def _text(row: Mapping[str, Any], field: str, source: str, number: int) -> str | None:
    value = row.get(field)
    if value is None:
        return None
    if not isinstance(value, str):
        if isinstance(value, (int, float)) and not isinstance(value, bool) and field == "id":
            return str(value)
        raise DataError(source, number, field, f"expected text, got {type(value).__name__}")
    return value


def pair_from_row(row: Mapping[str, Any], *, source: str, row_number: int, base_dir: Path | None = None) -> ReportPair:
    """Map one flat row (the layout of users' JSONL/CSV files) onto a `ReportPair`.

    Args:
        row: Column name to value. See README "Data format" for the columns.
        source: Where the row came from, for error messages.
        row_number: 1-based data row number, for error messages.
        base_dir: Directory that relative image paths are resolved against.

    Raises:
        DataError: naming the source, row and field of the first problem found.
    """
    report_id = _text(row, "id", source, row_number)
    if report_id is None or not report_id.strip():
        raise DataError(source, row_number, "id", "missing or empty")
    reference = _text(row, "reference", source, row_number)
    if reference is None or not reference.strip():
        raise DataError(source, row_number, "reference", "missing or empty reference report")
    candidate = _text(row, "candidate", source, row_number)
    if candidate is not None and not candidate.strip():
        raise DataError(source, row_number, "candidate", "empty candidate report")

    score = _number(row, "expert_score", source, row_number)
    scale_min = _number(row, "expert_score_min", source, row_number)
    scale_max = _number(row, "expert_score_max", source, row_number)
    raters = _count(row, "expert_raters", source, row_number)
    if raters == 0:
        raise DataError(source, row_number, "expert_raters", "expected at least 1 rater, got 0")
    significant = _error_counts(row, "significant", source, row_number, raters)
    insignificant = _error_counts(row, "insignificant", source, row_number, raters)
    expert: dict[str, Any] | None = None
    if score is not None or significant is not None or insignificant is not None:
        expert = {
            "score": score,
            "scale_min": 0.0 if scale_min is None else scale_min,
            "scale_max": 1.0 if scale_max is None else scale_max,
            "significant": significant,
            "insignificant": insignificant,
            "raters": raters,
        }
        if expert["scale_max"] <= expert["scale_min"]:
            raise DataError(
                source,
                row_number,
                "expert_score_max" if scale_max is not None else "expert_score_min",
                f"the scale [{expert['scale_min']}, {expert['scale_max']}] is empty: "
                "expert_score_max must exceed expert_score_min",
            )
        if score is not None and not expert["scale_min"] <= score <= expert["scale_max"]:
            raise DataError(
                source,
                row_number,
                "expert_score",
                f"{score} lies outside the scale [{expert['scale_min']}, {expert['scale_max']}]"
                " (set expert_score_min / expert_score_max)",
            )

    qa = row.get("qa") or []
    if isinstance(qa, str):
        try:
            qa = json.loads(qa)
        except json.JSONDecodeError:
            raise DataError(source, row_number, "qa", "expected a JSON list of question/answer objects") from None
    try:
        return ReportPair(
            id=report_id,
            reference=reference,
            candidate=candidate,
            modality=_text(row, "modality", source, row_number),
            anatomy=_text(row, "anatomy", source, row_number),
            language=_text(row, "language", source, row_number) or "en",
            indication=_text(row, "indication", source, row_number),
            images=_images(row, source, row_number, base_dir),
            expert=expert,
            qa=qa,
            metadata={k: v for k, v in row.items() if k not in KNOWN_COLUMNS and v is not None},
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        column, detail = column_of(first["loc"])
        raise DataError(source, row_number, column, f"{detail}{first['msg']}") from None


# Where `ReportPair` keeps the annotation columns of a flat row.
_EXPERT_COLUMNS = {
    "score": "expert_score",
    "scale_min": "expert_score_min",
    "scale_max": "expert_score_max",
    "raters": "expert_raters",
}


def column_of(location: Sequence[str | int]) -> tuple[str | None, str]:
    """The user's column for a place in `ReportPair`, and what inside that column is meant.

    Validation errors point into the record (`expert.significant.a`, `qa.0.answer`); users know their file's
    columns (`significant_a`, `qa`), so errors are reported on those.

    Returns:
        The column (None for the record as a whole) and a prefix for the message, e.g. ``"item 1, 'answer': "``.
    """
    if not location:
        return None, ""
    head, *rest = location
    if head == "expert":
        # A count that fits neither whole counts nor rater means is located through the union member's name.
        rest = [part for part in rest if part not in ("ErrorCounts", "MeanErrorCounts")]
        if len(rest) >= 2 and rest[0] in ("significant", "insignificant"):
            return f"{rest[0]}_{rest[1]}", ""
        column = _EXPERT_COLUMNS.get(str(rest[0]), "expert_score") if rest else "expert_score"
        return column, ""
    if head == "qa" and rest and isinstance(rest[0], int):
        key = f", '{rest[1]}'" if len(rest) > 1 else ""
        return "qa", f"item {rest[0] + 1}{key}: "
    return str(head), ""
