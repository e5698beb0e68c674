"""The RadEval expert set (`IAMJB/RadEvalExpertDataset`): 208 studies, three candidates each, error counts.

The one file, `reader_study_final_with_annotationsv3.csv`, has the columns `annotator`, `type`, `ground_truth`,
`images_path`, `prediction1`-`prediction3` and `annotation1`-`annotation3`; each row becomes three report
pairs, one per candidate. An annotation cell has two sections, headed `Significant` and `Insignificant` (some
cells add a colon or decorate the header), each with seven numbered lines `N. <label>: <count>`: the six
error categories (a)-(f) in order, then 7, an inarticulate report (grammar and readability), which is kept as
a count of its own (`significant_inarticulate`, ...) and never added to (a)-(f).

A cell that cannot be read (a count missing or not a number, a label that does not fit, a section twice)
does not stop the run and never becomes zero counts: the candidate is still judged, only its expert
annotation is missing, and `expert_problem` (annotation, category, what is wrong) says why; the task's
metadata counts these. Where each fact was confirmed is in the README's "Real datasets" section.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from radiology_tasks.core.layouts import DataFile, Layout, LayoutInput, Row
from radiology_tasks.core.records import ERROR_CATEGORIES
from radiology_tasks.core.rows import KNOWN_COLUMNS
from radiology_tasks.core.tables import csv_records

REFERENCE = "ground_truth"
SLOTS = (1, 2, 3)  # columns prediction{n} and annotation{n}
# Category number in an annotation cell -> (suffix of the flat count column, pattern its label must match).
CATEGORIES: dict[int, tuple[str, str]] = {
    1: ("a", r"false"),
    2: ("b", r"omission.*finding|missing"),
    3: ("c", r"location|position"),
    4: ("d", r"severity"),
    5: ("e", r"mention"),
    6: ("f", r"change"),
    7: ("inarticulate", r"inarticulate|grammar|readab"),
}
_SEVERITY_HEADER = re.compile(
    r"[\W_]*(?:clinically\s+)?(significant|insignificant)(?:\s+errors?)?[\W_]*", re.IGNORECASE
)
# `N. label: count`, `N. label = count`, or `N. count` with no label; the label may itself hold a colon.
_CATEGORY_LINE = re.compile(r"\s*([1-9])\s*[.)]\s*(?:(.*)[:=])?\s*(.*?)\s*")
COLUMNS = (REFERENCE, *(f"prediction{n}" for n in SLOTS), *(f"annotation{n}" for n in SLOTS))


@dataclass
class UnreadableAnnotation(Exception):
    """Why an annotation cell cannot be read: the category line at fault (if one is) and the problem."""

    problem: str
    category: str | None = None


def radeval_rows(source: LayoutInput) -> Iterator[Row]:
    """Three flat rows per study, ids `<row, 3 digits>-c<candidate>`, counts read from each annotation cell."""
    for number, record in csv_records(source.one("table")):
        extra = {(f"hub_{k}" if k in KNOWN_COLUMNS else k): v for k, v in record.items() if k not in COLUMNS}
        for slot in SLOTS:
            candidate = record.get(f"prediction{slot}")
            cell_name = f"annotation{slot}"
            yield (
                number,
                {
                    **extra,
                    "id": f"{number:03d}-c{slot}",
                    "reference": record.get(REFERENCE),
                    "candidate": "" if candidate is None else candidate,
                    "candidate_slot": slot,
                    "expert_annotation": record.get(cell_name),
                    **annotation_columns(record.get(cell_name), cell_name),
                },
            )


def annotation_columns(cell: str | None, cell_name: str) -> dict[str, Any]:
    """The flat count columns of one annotation cell, or, when it cannot be read, `expert_problem` saying why."""
    try:
        return parse_annotation(cell)
    except UnreadableAnnotation as unreadable:
        return {
            "expert_problem": {"annotation": cell_name, "category": unreadable.category, "problem": unreadable.problem}
        }


def parse_annotation(cell: str | None) -> dict[str, int]:
    """Read one annotation cell into flat count columns (`significant_a`, ..., `insignificant_inarticulate`).

    Lines that are neither a severity header nor a numbered category line are ignored: each of categories
    1-6 must still carry an explicit count under both headers, so nothing defaults to zero. Category 7 may
    be absent, but when present it must be well formed too.

    Raises:
        UnreadableAnnotation: naming the category line at fault and the problem.
    """
    if cell is None or not cell.strip():
        raise UnreadableAnnotation("the annotation is blank")
    counts: dict[str, int] = {}
    prefix: str | None = None
    headers: set[str] = set()
    for line in cell.splitlines():
        header = _SEVERITY_HEADER.fullmatch(line)
        if header:
            prefix = header.group(1).lower()
            if prefix in headers:
                raise UnreadableAnnotation(f"the '{prefix}' section appears twice")
            headers.add(prefix)
            continue
        category = _CATEGORY_LINE.fullmatch(line)
        # A numbered line with neither a separator nor a bare count is prose (for example a reader's list).
        if category is not None and (category.group(2) is not None or category.group(3).isdigit()):
            _read_category(int(category.group(1)), category.group(2), category.group(3), prefix, counts)
    if not headers:
        first = cell.strip().splitlines()[0]
        raise UnreadableAnnotation(f"no 'Significant' or 'Insignificant' header (first line {first!r})")
    for prefix in ("significant", "insignificant"):
        for number, (suffix, _) in CATEGORIES.items():
            if suffix in ERROR_CATEGORIES and f"{prefix}_{suffix}" not in counts:
                raise UnreadableAnnotation(f"no '{prefix}' count", category=str(number))
    return counts


def _read_category(number: int, label: str | None, count: str, prefix: str | None, counts: dict[str, int]) -> None:
    """Add one category line to `counts`; `label` is None on a `N. count` line, whose number alone names it."""
    named = f"{number}. {label.strip()}" if label else str(number)
    if number not in CATEGORIES:
        raise UnreadableAnnotation("there is no such category", category=named)
    suffix, pattern = CATEGORIES[number]
    if prefix is None:
        raise UnreadableAnnotation("the line comes before any severity header", category=named)
    column = f"{prefix}_{suffix}"
    if label is not None and not re.search(pattern, label, re.IGNORECASE):
        raise UnreadableAnnotation(f"the label does not fit category {number}", category=named)
    if column in counts:
        raise UnreadableAnnotation(f"given twice under '{prefix}'", category=named)
    count = count.rstrip(".;").strip()
    if not re.fullmatch(r"[0-9]+", count):
        raise UnreadableAnnotation(
            f"the '{prefix}' count {'is missing' if not count else f'{count!r} is not a whole number'}",
            category=named,
        )
    counts[column] = int(count)


LAYOUT = Layout(
    name="radeval-expert",
    description="RadEval expert set (IAMJB/RadEvalExpertDataset): 208 studies x 3 candidates, error counts",
    files=(DataFile("table", "reader_study_final_with_annotationsv3.csv", COLUMNS),),
    read=radeval_rows,
    hub_repo="IAMJB/RadEvalExpertDataset",
    hub_revision="b4bd9d6ee75fcd155b6de466f1b7b7bd774408be",
    credentialed=True,  # its reports are MIMIC-CXR's, under PhysioNet's credentialed licence
)
