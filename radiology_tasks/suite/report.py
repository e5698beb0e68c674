"""`radiology-tasks suite-report`: the metric suite's tables from Inspect logs, as CSV, Markdown and a heatmap.

Reads a `metric_suite` log, or several logs of the same samples (one per metric task, `baselines` or any judge
task) joined by sample id. Every numeric score key of every scorer is a metric; a number that
``-T unscored=worst`` filled in is left out, like a NaN.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.table_cells import csv_cell, markdown_cell
from radiology_tasks.core.undefined import correlation_undefined, interval_undefined
from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.scorers.suite.suite_tables import (
    Correlation,
    ExpertRow,
    PosNegRow,
    correlation_matrix,
    expert_table,
    pos_neg_table,
    sensitivity_pairs,
)


@dataclass
class SuiteData:
    """Per-sample numbers of every metric, joined by sample id over the logs read."""

    ids: list[str] = field(default_factory=list)
    values: dict[str, list[float | None]] = field(default_factory=dict)
    expert: list[float | None] = field(default_factory=list)
    kinds: list[str | None] = field(default_factory=list)
    sources: list[str | None] = field(default_factory=list)
    origin: dict[str, tuple[int, str]] = field(default_factory=dict)
    by_id_suffix: bool = False


@dataclass
class SuiteTables:
    """The three tables of the suite, and why each value without a number has none.

    Attributes:
        undefined_cells: Why a correlation of two metrics is undefined, by (row, column) of the matrices (Kendall
            and Pearson are undefined together).
        undefined_expert: Why a metric's tau against the experts, or only its interval, is undefined, by metric.
        undefined_pos_neg: Why a metric's pos/neg row has no numbers, by metric.
        no_expert: Why there is no expert table (None when there is one).
        no_pos_neg: Why there is no pos/neg table (None when there is one).
    """

    keys: list[str]
    correlations: list[Correlation]
    expert: list[ExpertRow]
    pos_neg: list[PosNegRow]
    pairs: int
    unmatched: list[str]
    undefined_cells: dict[tuple[str, str], str] = field(default_factory=dict)
    undefined_expert: dict[str, str] = field(default_factory=dict)
    undefined_pos_neg: dict[str, str] = field(default_factory=dict)
    no_expert: str | None = None
    no_pos_neg: str | None = None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or math.isnan(value):
        return None
    return float(value)


def _row(data: SuiteData, sample_id: str) -> int:
    if sample_id not in data.ids:
        data.ids.append(sample_id)
        for column in data.values.values():
            column.append(None)
        data.expert.append(None)
        data.kinds.append(None)
        data.sources.append(None)
    return data.ids.index(sample_id)


def read_suite(paths: Sequence[str], keys: Sequence[str] | None = None) -> SuiteData:
    """Read the logs' per-sample scores, expert scores and pos/neg labels, joined by sample id.

    Args:
        paths: Inspect eval logs.
        keys: Score keys to keep (default: every numeric key).

    Raises:
        ValueError: a log without samples, a score key given by two logs or scorers, expert scores that
            disagree between logs, or a key asked for that no log has.
    """
    from inspect_ai.log import read_eval_log

    data = SuiteData()
    for position, path in enumerate(paths):
        log = read_eval_log(path)
        if not log.samples:
            raise ValueError(f"{path}: the log has no samples (status {log.status})")
        if (log.eval.task_args or {}).get("sensitivity") == "ids":
            data.by_id_suffix = True
        for sample in log.samples:
            row = _row(data, str(sample.id))
            extra = (sample.metadata or {}).get("metadata") or {}
            if extra.get("kind") in ("pos", "neg") and extra.get("source_id") is not None:
                data.kinds[row], data.sources[row] = str(extra["kind"]), str(extra["source_id"])
            for scorer_name, score in (sample.scores or {}).items():
                where = (position, f"{path} ({scorer_name})")
                metadata = score.metadata or {}
                expert = _number(metadata.get("expert_score"))
                if expert is not None:
                    if data.expert[row] is not None and not math.isclose(data.expert[row], expert):  # type: ignore[arg-type]
                        raise ValueError(f"sample '{sample.id}': the logs disagree on its expert score")
                    data.expert[row] = expert
                value = score.value if isinstance(score.value, dict) else {scorer_name: score.value}
                for key, number in value.items():
                    if keys is not None and key not in keys:
                        continue
                    if isinstance(number, bool) or not isinstance(number, int | float):
                        continue
                    if key not in data.values:
                        data.values[key] = [None] * len(data.ids)
                        data.origin[key] = where
                    elif data.origin[key] != where:
                        raise ValueError(
                            f"score '{key}' is given by {data.origin[key][1]} and by {where[1]}; pass --keys"
                        )
                    data.values[key][row] = None if is_filled_in(metadata, key) else _number(number)
    missing = [key for key in keys or [] if key not in data.values]
    if missing:
        raise ValueError(f"no log gives the score(s) {', '.join(missing)}")
    if keys is not None:
        data.values = {key: data.values[key] for key in keys}
    return data


def suite_tables(
    data: SuiteData, *, n_resamples: int = 1000, seed: int = 0, by_id_suffix: bool | None = None
) -> SuiteTables:
    """The correlation matrix, the agreement with the experts, and the pos/neg table of the data."""
    matched = sensitivity_pairs(
        data.ids, data.kinds, data.sources, by_id_suffix=data.by_id_suffix if by_id_suffix is None else by_id_suffix
    )
    has_expert = any(value is not None for value in data.expert)
    correlations = correlation_matrix(data.values)
    expert = expert_table(data.values, data.expert, n_resamples=n_resamples, seed=seed) if has_expert else []
    pos_neg = pos_neg_table(data.values, matched.pairs) if matched.pairs else []
    return SuiteTables(
        keys=list(data.values),
        correlations=correlations,
        expert=expert,
        pos_neg=pos_neg,
        pairs=len(matched.pairs),
        unmatched=matched.unmatched,
        undefined_cells={
            (c.first, c.second): _why(data.values[c.first], data.values[c.second], c.first, c.second)
            for c in correlations
            if math.isnan(c.kendall) or math.isnan(c.pearson)
        },
        undefined_expert={
            row.metric: _why(data.values[row.metric], data.expert, row.metric, "the expert score")
            if math.isnan(row.kendall_tau)
            else interval_undefined(row.n, n_resamples)
            for row in expert
            if math.isnan(row.kendall_tau) or math.isnan(row.ci_low) or math.isnan(row.ci_high)
        },
        undefined_pos_neg={
            row.metric: f"no pos/neg pair has a {row.metric} value on both rows" for row in pos_neg if row.n == 0
        },
        no_expert=None if has_expert else "no sample carries an expert score",
        no_pos_neg=None if matched.pairs else _no_pairs(data, matched.unmatched),
    )


def _why(x: Sequence[float | None], y: Sequence[float | None], x_name: str, y_name: str) -> str:
    return correlation_undefined(x, y, x_name=x_name, y_name=y_name) or "scipy gives no value for these numbers"


def _no_pairs(data: SuiteData, unmatched: list[str]) -> str:
    if unmatched:
        return f"no pos row has a neg partner ({len(unmatched)} rows without one)"
    if any(kind is not None for kind in data.kinds) or data.by_id_suffix:
        return "no pos/neg rows were found"
    return "the samples are not pos/neg rows (sensitivity-set rows, or --pairs-by-id for <id>-para/-err ids)"


UNDEFINED = "undefined"
"""What a Markdown or heatmap cell without a number says; the reason is given beside the table."""


def _fmt(value: float) -> str:
    """Three decimals for reading (Markdown, heatmap)."""
    return UNDEFINED if math.isnan(value) else f"{value:.3f}"


def _full(value: float) -> str:
    """Every digit, for files other programs read (CSV); empty for NaN, with the reason in the row's last column."""
    return "" if math.isnan(value) else repr(float(value))


def _matrix(tables: SuiteTables, which: str, fmt: Callable[[float], str] = _fmt) -> list[list[str]]:
    cells = {(c.first, c.second): getattr(c, which) for c in tables.correlations}
    return [[first, *(fmt(cells[first, second]) for second in tables.keys)] for first in tables.keys]


def _row_reasons(tables: SuiteTables, first: str) -> str:
    """Why each undefined cell of a matrix row has no number: ``column: reason`` joined by ``; ``."""
    return "; ".join(
        f"{second}: {tables.undefined_cells[first, second]}"
        for second in tables.keys
        if (first, second) in tables.undefined_cells
    )


def _expert_rows(tables: SuiteTables, fmt: Callable[[float], str] = _fmt) -> list[list[str]]:
    return [
        [r.metric, fmt(r.kendall_tau), fmt(r.ci_low), fmt(r.ci_high), str(r.n), "+" if r.sign > 0 else "-"]
        + [tables.undefined_expert.get(r.metric, "")]
        for r in tables.expert
    ]


def _pos_neg_rows(tables: SuiteTables, fmt: Callable[[float], str] = _fmt) -> list[list[str]]:
    return [
        [r.metric, fmt(r.pos_mean), fmt(r.neg_mean), fmt(r.gap), fmt(r.pos_better), fmt(r.ties), str(r.n)]
        + [tables.undefined_pos_neg.get(r.metric, "")]
        for r in tables.pos_neg
    ]


EXPERT_HEADER = ["metric", "kendall_tau", "ci_low", "ci_high", "n", "sign", UNDEFINED]
POS_NEG_HEADER = ["metric", "pos_mean", "neg_mean", "gap", "pos_better", "ties", "pairs", UNDEFINED]


def _cell_notes(tables: SuiteTables) -> str | None:
    """The undefined cells of the correlation matrices, grouped by reason (each pair of metrics named once)."""
    by_reason: dict[str, list[str]] = {}
    for (first, second), reason in tables.undefined_cells.items():
        if tables.keys.index(first) <= tables.keys.index(second):
            by_reason.setdefault(reason, []).append(first if first == second else f"{first} / {second}")
    if not by_reason:
        return None
    return "\n".join(
        ["Undefined cells:"]
        + [f"- {markdown_cell(', '.join(cells))}: {markdown_cell(reason)}" for reason, cells in by_reason.items()]
    )


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table; every cell is escaped (metric names come from the logs)."""
    lines = ["| " + " | ".join(markdown_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(markdown_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def format_markdown(tables: SuiteTables) -> str:
    """The suite's tables as Markdown."""
    notes = _cell_notes(tables)
    parts = []
    for which, title in (("kendall", "Kendall tau-b"), ("pearson", "Pearson r")):
        parts += [f"## Inter-metric correlation ({title})", _markdown_table(["", *tables.keys], _matrix(tables, which))]
        parts += [notes] if notes else []
    if tables.expert:
        parts += [
            "## Kendall tau-b against the expert score (95% bootstrap interval)",
            _markdown_table(EXPERT_HEADER, _expert_rows(tables)),
        ]
    else:
        parts.append(f"No table against the expert score: {tables.no_expert}.")
    if tables.pos_neg:
        parts += [
            f"## Paraphrases (pos) against minimal clinically wrong edits (neg): {tables.pairs} pairs",
            _markdown_table(POS_NEG_HEADER, _pos_neg_rows(tables)),
        ]
    else:
        parts.append(f"No pos/neg table: {tables.no_pos_neg}.")
    if tables.unmatched:
        parts.append(f"pos/neg rows without a partner (left out): {markdown_cell(', '.join(tables.unmatched))}")
    return "\n\n".join(parts) + "\n"


def _write_csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow([csv_cell(cell) for cell in header])
        writer.writerows([csv_cell(cell) for cell in row] for row in rows)


def _heatmap(tables: SuiteTables, path: Path) -> bool:
    """A Kendall heatmap when matplotlib is installed; whether it was written."""
    try:
        import matplotlib
    except ImportError:
        return False
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cells = {(c.first, c.second): c.kendall for c in tables.correlations}
    grid = [[cells[a, b] for b in tables.keys] for a in tables.keys]
    size = 1.0 + 0.6 * len(tables.keys)
    figure, axes = plt.subplots(figsize=(size + 1.5, size))
    image = axes.imshow(grid, vmin=-1.0, vmax=1.0, cmap="RdBu_r")
    axes.set_xticks(range(len(tables.keys)), tables.keys, rotation=45, ha="right")
    axes.set_yticks(range(len(tables.keys)), tables.keys)
    for i, row in enumerate(grid):
        for j, value in enumerate(row):
            axes.text(j, i, _fmt(value), ha="center", va="center", fontsize=7)
    figure.colorbar(image, ax=axes, label="Kendall tau-b")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return True


def write_report(tables: SuiteTables, out: Path) -> list[Path]:
    """Write the tables into `out` (created if needed); the files written.

    ``kendall.csv`` and ``pearson.csv`` (matrices), ``expert_agreement.csv`` and ``pos_neg.csv`` when the data
    allows them, ``suite.md`` with all of them, and ``kendall_heatmap.png`` when matplotlib is importable.
    """
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for which in ("kendall", "pearson"):
        path = out / f"{which}.csv"
        rows = [[*row, _row_reasons(tables, row[0])] for row in _matrix(tables, which, _full)]
        _write_csv(path, ["metric", *tables.keys, UNDEFINED], rows)
        written.append(path)
    if tables.expert:
        written.append(out / "expert_agreement.csv")
        _write_csv(written[-1], EXPERT_HEADER, _expert_rows(tables, _full))
    if tables.pos_neg:
        written.append(out / "pos_neg.csv")
        _write_csv(written[-1], POS_NEG_HEADER, _pos_neg_rows(tables, _full))
    markdown = out / "suite.md"
    markdown.write_text(format_markdown(tables), encoding="utf-8")
    written.append(markdown)
    if _heatmap(tables, out / "kendall_heatmap.png"):
        written.append(out / "kendall_heatmap.png")
    return written


def suite_report_command(
    logs: Sequence[str], out: str, *, keys: str | None, pairs_by_id: bool, resamples: int, seed: int
) -> int:
    """Handler of `radiology-tasks suite-report`: read, tabulate, write, print the Markdown."""
    wanted = [key.strip() for key in keys.split(",") if key.strip()] if keys else None
    data = read_suite(logs, wanted)
    if not data.values:
        raise ValueError("the logs hold no numeric score")
    tables = suite_tables(data, n_resamples=resamples, seed=seed, by_id_suffix=pairs_by_id or None)
    print(format_markdown(tables), end="")
    written = write_report(tables, Path(out))
    for path in written:
        print(f"wrote {path}")
    if Path(out) / "kendall_heatmap.png" not in written:
        print("no kendall_heatmap.png: the heatmap needs matplotlib (pip install 'radiology-tasks[plot]')")
    return 0
