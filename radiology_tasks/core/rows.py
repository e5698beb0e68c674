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

from radiology_tasks.core.records import ERROR_CATEGORIES, SECTIONS, PriorStudy, ReportPair
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
        "section",
        "age",
        "sex",
        "comparison",
        "views",
        "key_image",
        "prior_images",
        "prior_report",
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


def _names(row: Mapping[str, Any], field: str, source: str, number: int, what: str) -> list[str | None] | None:
    """A list column as written: a JSON list, or one text cell with `;` between the entries (None: not given);
    an empty entry is None."""
    value = row.get(field)
    if value is None:
        return None
    if isinstance(value, str):
        return [name.strip() or None for name in value.split(";")]
    if isinstance(value, list) and all(name is None or isinstance(name, str) for name in value):
        return [name.strip() or None if isinstance(name, str) else None for name in value]
    raise DataError(source, number, field, f"expected a list of {what} (or names separated by ';'), got {value!r}")


def _file(name: str, base: Path | None) -> str:
    # A URL stays as written: as a Path its "//" would collapse to "/". An absolute path stays one when joined to
    # the base directory.
    return name if "://" in name or base is None else str(base / name)


def _images(row: Mapping[str, Any], field: str, source: str, number: int, base: Path | None) -> list[str]:
    """The image files of an `images`-like column, resolved against `base` (empty entries dropped)."""
    names = _names(row, field, source, number, "file names") or []
    return [_file(name, base) for name in names if name is not None]


def _views(row: Mapping[str, Any], source: str, number: int, images: int) -> list[str | None]:
    """The `views` column: one view per image, in the images' order (an empty entry for an image with none)."""
    views = _names(row, "views", source, number, "views")
    if views is None or all(view is None for view in views):
        return []
    if len(views) != images:
        raise DataError(source, number, "views", f"{len(views)} views for {images} images; give one per image")
    return views


def _label(row: Mapping[str, Any], field: str, source: str, number: int) -> str | None:
    """A short fact about the patient as written (`age` may be a number: 77 and 77.0 read as `77`)."""
    value = row.get(field)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        if isinstance(value, float) and math.isnan(value):
            return None
        return str(int(value)) if float(value).is_integer() else str(value)
    text = _text(row, field, source, number)
    return text.strip() or None if text is not None else None


def _section(row: Mapping[str, Any], source: str, number: int) -> str:
    section = _text(row, "section", source, number)
    if section is None:
        return SECTIONS[0]
    if section not in SECTIONS:
        raise DataError(source, number, "section", f"expected one of {', '.join(SECTIONS)}, got {section!r}")
    return section


def study_inputs(row: Mapping[str, Any], *, source: str, row_number: int, base_dir: Path | None) -> dict[str, Any]:
    """What a flat row gives the model under test besides the indication and findings: the section to write, the
    patient's age and sex, the comparison, the images with their views and key image, and the prior study.

    Raises:
        DataError: naming the column at fault.
    """
    number = row_number
    images = _images(row, "images", source, number, base_dir)
    key = _text(row, "key_image", source, number)
    key_image = _file(key.strip(), base_dir) if key and key.strip() else None
    if key_image is not None and key_image not in images:
        raise DataError(source, number, "key_image", f"{key!r} is not one of the study's images")
    prior_images = _images(row, "prior_images", source, number, base_dir)
    prior_report = _text(row, "prior_report", source, number)
    prior_report = prior_report if prior_report and prior_report.strip() else None
    return {
        "section": _section(row, source, number),
        "age": _label(row, "age", source, number),
        "sex": _label(row, "sex", source, number),
        "comparison": _label(row, "comparison", source, number),
        "images": images,
        "views": _views(row, source, number, len(images)),
        "key_image": key_image,
        "prior": PriorStudy(images=prior_images, report=prior_report) if prior_images or prior_report else None,
    }


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
    report_id, reference, candidate = _report_texts(row, source, row_number)
    expert = _expert_from_row(row, source, row_number)
    qa = _qa_from_row(row, source, row_number)
    try:
        return ReportPair(
            id=report_id,
            reference=reference,
            candidate=candidate,
            modality=_text(row, "modality", source, row_number),
            anatomy=_text(row, "anatomy", source, row_number),
            language=_text(row, "language", source, row_number) or "en",
            indication=_text(row, "indication", source, row_number),
            expert=expert,
            qa=qa,
            metadata={k: v for k, v in row.items() if k not in KNOWN_COLUMNS and v is not None},
            **study_inputs(row, source=source, row_number=row_number, base_dir=base_dir),
        )
    except ValidationError as exc:
        first = exc.errors()[0]
        column, detail = column_of(first["loc"])
        raise DataError(source, row_number, column, f"{detail}{first['msg']}") from None


def _report_texts(row: Mapping[str, Any], source: str, row_number: int) -> tuple[str, str, str | None]:
    """The id, reference and candidate of a flat row; the first two required, none of them blank."""
    report_id = _text(row, "id", source, row_number)
    if report_id is None or not report_id.strip():
        raise DataError(source, row_number, "id", "missing or empty")
    reference = _text(row, "reference", source, row_number)
    if reference is None or not reference.strip():
        raise DataError(source, row_number, "reference", "missing or empty reference report")
    candidate = _text(row, "candidate", source, row_number)
    if candidate is not None and not candidate.strip():
        raise DataError(source, row_number, "candidate", "empty candidate report")
    return report_id, reference, candidate


def _expert_from_row(row: Mapping[str, Any], source: str, row_number: int) -> dict[str, Any] | None:
    """The expert annotation of a flat row (score on its scale, error counts, raters); None when it has none."""
    score = _number(row, "expert_score", source, row_number)
    scale_min = _number(row, "expert_score_min", source, row_number)
    scale_max = _number(row, "expert_score_max", source, row_number)
    raters = _count(row, "expert_raters", source, row_number)
    if raters == 0:
        raise DataError(source, row_number, "expert_raters", "expected at least 1 rater, got 0")
    significant = _error_counts(row, "significant", source, row_number, raters)
    insignificant = _error_counts(row, "insignificant", source, row_number, raters)
    if score is None and significant is None and insignificant is None:
        return None
    low = 0.0 if scale_min is None else scale_min
    high = 1.0 if scale_max is None else scale_max
    if high <= low:
        raise DataError(
            source,
            row_number,
            "expert_score_max" if scale_max is not None else "expert_score_min",
            f"the scale [{low}, {high}] is empty: expert_score_max must exceed expert_score_min",
        )
    if score is not None and not low <= score <= high:
        raise DataError(
            source,
            row_number,
            "expert_score",
            f"{score} lies outside the scale [{low}, {high}] (set expert_score_min / expert_score_max)",
        )
    return {
        "score": score,
        "scale_min": low,
        "scale_max": high,
        "significant": significant,
        "insignificant": insignificant,
        "raters": raters,
    }


def _qa_from_row(row: Mapping[str, Any], source: str, row_number: int) -> Any:
    """The ``qa`` column of a flat row: a list as given, or decoded from the JSON text a CSV file holds."""
    qa = row.get("qa") or []
    if isinstance(qa, str):
        try:
            return json.loads(qa)
        except json.JSONDecodeError:
            raise DataError(source, row_number, "qa", "expected a JSON list of question/answer objects") from None
    return qa


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
