"""Write the agreement table as JSON, CSV, Markdown and one self-contained page.

Metric keys, judge names, dataset names, log paths and reasons come from logs, which anyone can write: the page
escapes everything (Jinja2's autoescape); Markdown cells and CSV text cells go through the package's one escaping
(`radiology_tasks.core.table_cells`): nothing becomes markup, a link or a formula.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field, fields
from importlib.resources import files
from pathlib import Path
from typing import Any

from radiology_tasks.agreement.model import (
    AgreementTable,
    Cell,
    ColumnGroup,
    PairedTest,
    PreferenceFigures,
    Published,
    RowId,
    TauFigures,
)
from radiology_tasks.core.table_cells import csv_cell, markdown_cell
from radiology_tasks.core.undefined import not_numbers

PAGE_TEMPLATE = "page.html.jinja"
OUTPUT_FILES = {"json": "agreement.json", "csv": "agreement.csv", "markdown": "agreement.md", "page": "agreement.html"}
CSV_COLUMNS = (
    "metric",
    "judge",
    "prompt",
    "dataset",
    "layout",
    "data_sha256",
    "samples",
    "protocol",
    "statistic",
    "value",
    "ci_low",
    "ci_high",
    "n",
    "n_unscored",
    "n_no_expert",
    "pairs",
    "right",
    "wrong",
    "ties",
    "reason",
    "log",
    "same_in",
    "differs_in",
    "published",
)
NO_VALUE = "n/a"
CELL_KEY = (
    "Each cell: Kendall's tau-b of the metric against the experts (positive: the metric ranks reports as the "
    "experts do), its bootstrap interval in brackets, n samples with both values, how many the metric left "
    "unscored and how many had no expert value; or the pairwise preference accuracy, right / (right + wrong) over "
    "the pairs of candidates the experts rated differently, with the metric's ties counted apart."
)


def number(value: float | None, digits: int = 3) -> str:
    """A statistic with `digits` decimals, or n/a."""
    return NO_VALUE if value is None else f"{value:.{digits}f}"


def count(value: int | None) -> str:
    """A count, or n/a."""
    return NO_VALUE if value is None else str(value)


def figures_text(cell: Cell) -> str:
    """The cell's figures in a line: the statistic first, its interval, then the counts."""
    figures = cell.figures
    if isinstance(figures, TauFigures):
        interval = "" if figures.low is None else f" [{number(figures.low)}, {number(figures.high)}]"
        text = f"{number(figures.tau)}{interval}, n {count(figures.n)}, unscored {count(figures.n_unscored)}"
        return text + (f", no expert {figures.n_no_expert}" if figures.n_no_expert else "")
    if isinstance(figures, PreferenceFigures):
        counts = f"right {count(figures.right)}, wrong {count(figures.wrong)}, ties {count(figures.ties)}"
        return f"{number(figures.accuracy)} ({counts}; pairs {count(figures.pairs)})"
    return NO_VALUE


def published_text(entry: Published) -> str:
    """A published figure as printed, with its judge."""
    return entry.printed if entry.judge is None else f"{entry.printed} ({entry.judge})"


def published_source(entry: Published) -> str:
    """Where a block of published figures was read, what it correlates, and its notes."""
    notes = f" {entry.notes}" if entry.notes else ""
    return f'"{entry.source.title}", {entry.source.table}: {entry.source.variant}.{notes}'


def differing_note(cell: Cell) -> str:
    """Why a cell lists other runs: they give different figures for it, and the newest run's are shown."""
    return f"{', '.join(cell.differing)} give(s) different figures for this cell; the newest run, {cell.log}, is shown"


def group_heading(group: ColumnGroup) -> str:
    """A column group's heading: dataset, then protocol."""
    return f"{group.label}: {group.protocol.label}"


@dataclass
class Footnotes:
    """Numbered notes under a table, each text once: `mark` gives its number."""

    texts: list[str] = field(default_factory=list)

    def mark(self, text: str) -> int:
        """The note's number (added when new)."""
        if text not in self.texts:
            self.texts.append(text)
        return self.texts.index(text) + 1


def has_published(table: AgreementTable, group: ColumnGroup) -> bool:
    """Whether some cell of the group has a published figure beside it."""
    return any(table.cell(row, group).published for row in table.rows)


_JSON_NAMES = {"tau": "statistic", "accuracy": "statistic", "low": "ci_low", "high": "ci_high"}
"""The figures' fields the JSON names otherwise: either kind's statistic under one name, the interval's ends as
such; every other field keeps its name."""


def _figures_json(cell: Cell) -> dict[str, Any]:
    if cell.figures is None:
        return {"statistic": None}
    return {_JSON_NAMES.get(f.name, f.name): getattr(cell.figures, f.name) for f in fields(cell.figures)}


def published_json(entry: Published) -> dict[str, Any]:
    """A published figure with its source, as the JSON holds it."""
    source = entry.source
    return {
        "value": entry.value,
        "printed": entry.printed,
        "judge": entry.judge,
        "statistic": entry.statistic,
        "source": {"title": source.title, "table": source.table, "row": source.row, "column": source.column},
        "variant": source.variant,
        "notes": entry.notes,
    }


def cell_json(cell: Cell) -> dict[str, Any]:
    """One cell as the JSON holds it."""
    return {
        **_figures_json(cell),
        "reason": cell.reason,
        "log": cell.log,
        "same_in": list(cell.also),
        "differs_in": list(cell.differing),
        "published": [published_json(entry) for entry in cell.published],
    }


def _row_json(row: RowId) -> dict[str, Any]:
    return {"key": row.key, "judge": row.judge, "prompt": row.prompt, "label": row.label}


def test_json(test: PairedTest) -> dict[str, Any]:
    """One paired test as the JSON holds it."""
    return {
        "group": test.group,
        "first": _row_json(test.first),
        "second": _row_json(test.second),
        "difference": test.difference,
        "p_value": test.p_value,
        "n": test.n,
        "resamples": test.resamples,
        "valid": test.valid,
        "reason": test.reason,
    }


def group_json(group: ColumnGroup) -> dict[str, Any]:
    """One column group as the JSON holds it."""
    dataset = group.dataset
    return {
        "id": group.id,
        "label": group.label,
        "protocol": group.protocol.name,
        "protocol_label": group.protocol.label,
        "statistic": group.protocol.statistic,
        "dataset": {
            "name": dataset.name,
            "layout": dataset.layout,
            "data_sha256": dataset.data,
            "candidates_sha256": dataset.candidates,
            "reports_sha256": dataset.reports,
            "sample_ids_sha256": dataset.samples,
            "samples": dataset.n_samples,
        },
    }


def as_json(table: AgreementTable) -> dict[str, Any]:
    """The whole table as JSON-able data: groups, rows with their cells by group id, paired tests, settings."""
    return {
        "logs": list(table.logs),
        "settings": {"resamples": table.resamples, "seed": table.seed},
        "groups": [group_json(group) for group in table.groups],
        "rows": [
            {**_row_json(row), "cells": {group.id: cell_json(table.cell(row, group)) for group in table.groups}}
            for row in table.rows
        ],
        "tests": [test_json(test) for test in table.tests],
    }


def csv_rows(table: AgreementTable) -> list[dict[str, Any]]:
    """One row per metric and column group; text from logs quoted against formulas."""
    rows = []
    for row in table.rows:
        for group in table.groups:
            cell = table.cell(row, group)
            figures = _figures_json(cell)
            text = {
                "metric": row.key,
                "judge": row.judge or "",
                "prompt": row.prompt or "",
                "dataset": group.label,
                "layout": group.dataset.layout or "",
                "data_sha256": group.dataset.data or "",
                "protocol": group.protocol.name,
                "statistic": group.protocol.statistic,
                "reason": cell.reason or figures.get("interval_reason") or "",
                "log": cell.log or "",
                "same_in": "; ".join(cell.also),
                "differs_in": "; ".join(cell.differing),
                "published": "; ".join(f"{published_text(e)}: {published_source(e)}" for e in cell.published),
            }
            numbers = {name: figures.get(name) for name in ("ci_low", "ci_high", "n", "n_unscored", "n_no_expert")}
            numbers |= {name: figures.get(name) for name in ("pairs", "right", "wrong", "ties")}
            numbers |= {"value": figures["statistic"], "samples": group.dataset.n_samples}
            rows.append(
                {
                    **{name: csv_cell(value) for name, value in text.items()},
                    **{name: "" if value is None else value for name, value in numbers.items()},
                }
            )
    return rows


def note_marks(cell: Cell, notes: Footnotes) -> list[int]:
    """The numbers of a cell's notes: why its statistic or interval is undefined, which other runs differ."""
    marks = [notes.mark(cell.reason)] if cell.reason else []
    if isinstance(cell.figures, TauFigures) and cell.figures.interval_reason:
        marks.append(notes.mark(f"interval: {cell.figures.interval_reason}"))
    if cell.differing:
        marks.append(notes.mark(differing_note(cell)))
    return marks


def _markdown_cell(cell: Cell, notes: Footnotes) -> str:
    # Numbers and note marks only: the reasons, which quote the logs, are escaped in the notes.
    return " ".join([figures_text(cell), *(f"[{mark}]" for mark in note_marks(cell, notes))])


def _markdown_published(cell: Cell, sources: Footnotes) -> str:
    return "; ".join(
        f"{markdown_cell(published_text(e))} [P{sources.mark(published_source(e))}]" for e in cell.published
    )


def markdown_table(table: AgreementTable) -> list[str]:
    """The table's lines, then its notes and the published figures' sources."""
    notes, sources = Footnotes(), Footnotes()
    header = ["metric"]
    for group in table.groups:
        header.append(markdown_cell(group_heading(group)))
        if has_published(table, group):
            header.append("published")
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for row in table.rows:
        cells = [markdown_cell(row.label)]
        for group in table.groups:
            cell = table.cell(row, group)
            cells.append(_markdown_cell(cell, notes))
            if has_published(table, group):
                cells.append(_markdown_published(cell, sources))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", *(f"[{i}] {markdown_cell(text)}" for i, text in enumerate(notes.texts, 1))]
    lines += [f"[P{i}] {markdown_cell(text)}" for i, text in enumerate(sources.texts, 1)]
    return lines


def markdown_tests(table: AgreementTable) -> list[str]:
    """The paired tests, one table per column group that has any."""
    lines: list[str] = []
    for group in table.groups:
        tests = [test for test in table.tests if test.group == group.id]
        if not tests:
            continue
        lines += ["", f"### {markdown_cell(group_heading(group))}", ""]
        lines += ["| first | second | tau(first) - tau(second) | p (paired bootstrap) | n | valid resamples |"]
        lines += ["|---|---|---|---|---|---|"]
        for test in tests:
            difference = number(test.difference) if test.reason is None else f"{NO_VALUE}: {test.reason}"
            lines.append(
                f"| {markdown_cell(test.first.label)} | {markdown_cell(test.second.label)} | "
                f"{markdown_cell(difference)} | {number(test.p_value)} | {test.n} | {test.valid} of {test.resamples} |"
            )
    return ["", "## Paired tests of the tau difference", *lines] if lines else []


def markdown(table: AgreementTable) -> str:
    """The table as Markdown: the key, the table with its notes and sources, the paired tests, the logs."""
    lines = ["# Agreement with radiologists", "", CELL_KEY, ""]
    lines += markdown_table(table)
    lines += markdown_tests(table)
    lines += ["", "## Logs", "", *(f"- {markdown_cell(log)}" for log in table.logs)]
    return "\n".join(lines) + "\n"


def page(table: AgreementTable, title: str = "Agreement with radiologists") -> str:
    """The self-contained page: the table, its notes, the paired tests; the data embedded as JSON, no script."""
    from jinja2 import Environment

    environment = Environment(autoescape=True, keep_trailing_newline=True)
    source = (files("radiology_tasks.agreement") / PAGE_TEMPLATE).read_bytes().decode()
    return environment.from_string(source).render(title=title, view=PageView(table), data=as_json(table))


class PageView:
    """What the page template reads: the table, with its cells' texts and footnote numbers worked out."""

    def __init__(self, table: AgreementTable) -> None:
        self.table = table
        self.key = CELL_KEY
        self.notes = Footnotes()
        self.sources = Footnotes()
        self.published_groups = {group.id for group in table.groups if has_published(table, group)}

    def heading(self, group: ColumnGroup) -> str:
        """A column group's heading."""
        return group_heading(group)

    def cell(self, row: RowId, group: ColumnGroup) -> dict[str, Any]:
        """A cell's text and the numbers of its notes."""
        cell = self.table.cell(row, group)
        marks = note_marks(cell, self.notes)
        published = [(published_text(e), self.sources.mark(published_source(e))) for e in cell.published]
        return {"text": figures_text(cell), "empty": cell.figures is None, "marks": marks, "published": published}

    def test_text(self, test: PairedTest) -> str:
        """A paired test's difference, or why it could not be made."""
        return number(test.difference) if test.reason is None else f"{NO_VALUE}: {test.reason}"


def write_outputs(table: AgreementTable, out: Path) -> dict[str, Path]:
    """Write agreement.json, agreement.csv, agreement.md and agreement.html into `out` (created if needed).

    Raises:
        ValueError: naming each figure that is NaN or infinite (an undefined figure is null with its reason);
            nothing is written then.
    """
    data = as_json(table)
    places = not_numbers(data, "agreement")
    if places:
        raise ValueError(f"not a number at {', '.join(places)}: an undefined figure is null with its reason")
    out.mkdir(parents=True, exist_ok=True)
    written = {kind: out / name for kind, name in OUTPUT_FILES.items()}
    rows = io.StringIO()
    writer = csv.DictWriter(rows, fieldnames=CSV_COLUMNS)
    writer.writeheader()
    writer.writerows(csv_rows(table))
    # The NaN check above is what keeps `json.dumps` from writing NaN; every file is UTF-8 whatever the locale.
    texts = {
        "json": json.dumps(data, indent=2) + "\n",
        "csv": rows.getvalue(),
        "markdown": markdown(table),
        "page": page(table),
    }
    for kind, text in texts.items():
        written[kind].write_bytes(text.encode())
    return written
