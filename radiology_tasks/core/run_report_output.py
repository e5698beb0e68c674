"""The run report as Markdown (printed, ``report.md``), as HTML with inline SVG plots (``report.html``) and as
JSON (``report.json``, printed by ``--json``).

The plots are drawn here as plain SVG (the main score's distribution, and the judge against the experts where the
samples have expert scores), so the report needs no plotting library.
"""

from __future__ import annotations

import html
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeGuard

from radiology_tasks.core.table_cells import markdown_cell

if TYPE_CHECKING:
    from radiology_tasks.core.run_report import Figure, RunFigures, RunReport

_WIDTH, _HEIGHT, _MARGIN = 420, 260, 40
_BINS = 10


def main_key(report: RunFigures) -> str | None:
    """The run's main score key: that of the first headline mean (``vert`` for ``vert_mean``)."""
    for figure in report.headline:
        if figure.name.endswith("_mean"):
            return figure.name.removesuffix("_mean")
    return None


def _number(value: float) -> str:
    if value.is_integer() and abs(value) < 1e9:
        return str(int(value))
    return f"{value:.4g}"


def _logged(figure: Figure) -> str:
    if figure.logged is None:
        return "not logged"
    shown = "logged as NaN" if math.isnan(figure.logged) else _number(figure.logged)
    return f"{shown} ({'equal' if figure.matches_log else 'DIFFERS'})"


def _rows(figures: Sequence[Figure], *, with_log: bool) -> list[list[str]]:
    rows = []
    for figure in figures:
        value = _number(figure.value) if figure.value is not None else f"undefined: {figure.reason}"
        row = [figure.name, value]
        if with_log:
            row.append(_logged(figure))
        rows.append(row)
    return rows


def _sections(report: RunFigures) -> list[tuple[str, list[str], list[list[str]]]]:
    """(title, header, rows) of each table, in the report's order."""
    sections = [
        ("Headline (the run's summary)", ["metric", "value", "in the log"], _rows(report.headline, with_log=True))
    ]
    by_metric: dict[str, list[Figure]] = {}
    for figure in report.secondary:
        by_metric.setdefault(figure.metric.split("/")[-1], []).append(figure)
    for metric, figures in by_metric.items():
        logged = any(f.logged is not None for f in figures)
        header = ["metric", "value", "in the log"] if logged else ["metric", "value"]
        sections.append((metric, header, _rows(figures, with_log=logged)))
    if report.not_recomputed:
        rows = [[name, "logged as NaN" if math.isnan(v) else _number(v)] for name, v in report.not_recomputed.items()]
        sections.append(
            ("Logged, not declared by the task today (an older version's metrics)", ["metric", "logged"], rows)
        )
    return sections


def _verdict(report: RunFigures) -> str:
    """The summary check in words."""
    if report.summary_check == "equal":
        return "every headline value the log holds equals its recomputed value"
    if report.summary_check == "not_logged":
        return "the log holds no headline value to compare"
    if report.summary_check == "older_version":
        return (
            f"some headline values differ from the log, which version {report.task_version} wrote: they are "
            f"recomputed by version {report.current_version}'s rules (see the family's changelog)"
        )
    return "SOME HEADLINE VALUES DIFFER FROM THE LOG"


def _intro(report: RunFigures) -> list[str]:
    # A log's arguments are whatever its run was given: kept inert, as every table cell is.
    args = markdown_cell(", ".join(f"{k}={v}" for k, v in report.task_args.items() if v is not None))
    verdict = _verdict(report)
    return [
        f"Log: {report.log}",
        f"Task: {report.task} {report.task_version} ({report.family}), scorer {report.scorer}, "
        f"{report.sample_count} samples",
        f"Arguments: {args or 'none'}",
        f"Recomputed from the log's samples: {verdict}.",
    ]


def markdown(report: RunFigures) -> str:
    """The report as Markdown: the run, the headline figures beside the logged ones, then each metric's table."""
    lines = [f"# Run report: {report.task}", ""]
    lines += [f"- {line}" for line in _intro(report)]
    for title, header, rows in _sections(report):
        lines += ["", f"## {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(markdown_cell(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _main_values(report: RunReport, key: str) -> list[float]:
    values = []
    for sample in report.samples:
        value = sample.score.value
        number = value.get(key) if isinstance(value, Mapping) else value
        if isinstance(number, int | float) and not isinstance(number, bool) and not math.isnan(number):
            values.append(float(number))
    return values


def _real(value: object) -> TypeGuard[int | float]:
    """A real number that is not NaN (a bool is not one)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and not math.isnan(value)


def _expert_pairs(report: RunReport, key: str) -> list[tuple[float, float]]:
    pairs = []
    for sample in report.samples:
        value = sample.score.value
        judge = value.get(key) if isinstance(value, Mapping) else value
        expert = (sample.score.metadata or {}).get("expert_score")
        if _real(judge) and _real(expert):
            pairs.append((float(judge), float(expert)))
    return pairs


def histogram_svg(values: Sequence[float], title: str) -> str:
    """An SVG histogram of `values` in `_BINS` equal bins between their minimum and maximum."""
    low, high = min(values), max(values)
    width = (high - low) / _BINS or 1.0
    counts = [0] * _BINS
    for value in values:
        counts[min(int((value - low) / width), _BINS - 1)] += 1
    top = max(counts)
    plot_w, plot_h = _WIDTH - 2 * _MARGIN, _HEIGHT - 2 * _MARGIN
    bar_w = plot_w / _BINS
    bars = []
    for i, count in enumerate(counts):
        h = plot_h * count / top
        x, y = _MARGIN + i * bar_w, _HEIGHT - _MARGIN - h
        bars.append(
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{bar_w - 1:.1f}" height="{h:.1f}" fill="#4a78b0">'
            f"<title>{count}</title></rect>"
        )
    return _frame(title, bars, f"{low:.3g}", f"{high:.3g}", f"samples (max {top})")


def scatter_svg(pairs: Sequence[tuple[float, float]], title: str) -> str:
    """An SVG scatter plot of (judge, expert) pairs."""
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    x_low, x_high = min(xs), max(xs)
    y_low, y_high = min(ys), max(ys)
    plot_w, plot_h = _WIDTH - 2 * _MARGIN, _HEIGHT - 2 * _MARGIN
    x_span, y_span = (x_high - x_low) or 1.0, (y_high - y_low) or 1.0
    dots = [
        f'<circle cx="{_MARGIN + (x - x_low) / x_span * plot_w:.1f}" '
        f'cy="{_HEIGHT - _MARGIN - (y - y_low) / y_span * plot_h:.1f}" r="3" fill="#b04a4a" fill-opacity="0.7">'
        f"<title>judge {x:.3g}, expert {y:.3g}</title></circle>"
        for x, y in pairs
    ]
    return _frame(title, dots, f"{x_low:.3g}", f"{x_high:.3g}", f"expert score ({y_low:.3g} to {y_high:.3g})")


def _frame(title: str, marks: list[str], x_low: str, x_high: str, y_label: str) -> str:
    base = _HEIGHT - _MARGIN
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_WIDTH}" height="{_HEIGHT}" role="img">',
            f"<title>{html.escape(title)}</title>",
            f'<text x="{_WIDTH / 2}" y="16" text-anchor="middle" font-size="13">{html.escape(title)}</text>',
            f'<line x1="{_MARGIN}" y1="{base}" x2="{_WIDTH - _MARGIN}" y2="{base}" stroke="#333"/>',
            f'<line x1="{_MARGIN}" y1="{_MARGIN}" x2="{_MARGIN}" y2="{base}" stroke="#333"/>',
            *marks,
            f'<text x="{_MARGIN}" y="{base + 16}" font-size="11">{html.escape(x_low)}</text>',
            f'<text x="{_WIDTH - _MARGIN}" y="{base + 16}" text-anchor="end" font-size="11">'
            f"{html.escape(x_high)}</text>",
            f'<text x="12" y="{_HEIGHT / 2}" font-size="11" transform="rotate(-90 12 {_HEIGHT / 2})" '
            f'text-anchor="middle">{html.escape(y_label)}</text>',
            "</svg>",
        ]
    )


def plots(report: RunReport) -> list[str]:
    """The report's SVG plots: the main score's distribution, and judge against experts where there are experts."""
    key = main_key(report)
    if key is None:
        return []
    figures = []
    values = _main_values(report, key)
    if values:
        figures.append(histogram_svg(values, f"{key}: distribution over {len(values)} scored samples"))
    pairs = _expert_pairs(report, key)
    if pairs:
        figures.append(scatter_svg(pairs, f"{key} (x) against the expert score (y), {len(pairs)} samples"))
    return figures


def html_page(report: RunReport) -> str:
    """The report as a standalone HTML page with its plots inline."""
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Run report: {html.escape(report.task)}</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
        "table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;padding:2px 8px}"
        "svg{margin:0 1em 1em 0}</style></head><body>",
        f"<h1>Run report: {html.escape(report.task)}</h1><ul>",
        *[f"<li>{html.escape(line)}</li>" for line in _intro(report)],
        "</ul>",
        *plots(report),
    ]
    for title, header, rows in _sections(report):
        parts.append(f"<h2>{html.escape(title)}</h2><table><tr>")
        parts += [f"<th>{html.escape(cell)}</th>" for cell in header]
        parts.append("</tr>")
        for row in rows:
            parts.append("<tr>" + "".join(f"<td>{html.escape(cell)}</td>" for cell in row) + "</tr>")
        parts.append("</table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


def figures_json(report: RunFigures) -> str:
    """The figures as indented JSON (`RunFigures`' fields in order; an undefined value or a logged NaN is null)."""
    return report.model_dump_json(indent=2) + "\n"


def write_report(report: RunReport, out: Path) -> tuple[Path, Path, Path]:
    """Write ``report.md``, ``report.html`` and ``report.json`` into `out` (created if needed); returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    md, page, data = out / "report.md", out / "report.html", out / "report.json"
    md.write_text(markdown(report), encoding="utf-8")
    page.write_text(html_page(report), encoding="utf-8")
    data.write_text(figures_json(report), encoding="utf-8")
    return md, page, data


def report_command(log: str, out: str | None, *, as_json: bool = False) -> int:
    """`radiology-tasks report LOG [--out DIR] [--json]`: print the Markdown report and write it with the HTML page
    and the JSON figures; with `as_json`, print the JSON alone and write the files only into `out`.

    Without `out` (and `as_json`) the files go into ``<log name>.report/`` beside the log. The exit code is 1 when a
    headline value the log holds differs from its recomputation and the log was written by the current version.
    """
    from radiology_tasks.core.run_report import build_report

    report = build_report(log)
    from radiology_tasks.core.report_hook import local_path

    written = None
    if out is not None or not as_json:
        folder = Path(out) if out is not None else Path(local_path(log)).with_suffix(".report")
        written = write_report(report, folder)
    if as_json:
        print(figures_json(report), end="")
    else:
        print(markdown(report))
    if written is not None:
        md, page, data = written
        print(f"Written: {md}, {page} and {data}", file=sys.stderr if as_json else sys.stdout)
    return 0 if report.summary_check != "differs" else 1
