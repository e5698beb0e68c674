"""Write a leaderboard as JSON (validated against the shipped schema), CSV, Markdown and one self-contained page."""

from __future__ import annotations

import csv
import json
from importlib.resources import files
from pathlib import Path
from typing import Any

SCHEMA_FILE = "leaderboard.schema.json"
PAGE_TEMPLATE = "page.html.jinja"
CSV_COLUMNS = (
    "board",
    "task",
    "score_key",
    "dataset",
    "track",
    "rank",
    "system",
    "score",
    "ci_low",
    "ci_high",
    "n",
    "n_unscored",
    "judge",
    "task_version",
    "log",
    "log_sha256",
)


def schema() -> dict[str, Any]:
    """The JSON Schema that `leaderboard.json` follows (shipped with the package)."""
    return json.loads((files("radiology_tasks.leaderboard") / SCHEMA_FILE).read_text())


def csv_rows(leaderboard: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per ranked system and board."""
    rows = []
    for board in leaderboard["boards"]:
        for entry in board["entries"]:
            rows.append(
                {
                    "board": board["id"],
                    "task": board["task"],
                    "score_key": board["score"],
                    "dataset": board["dataset"]["name"],
                    "track": board["track"] or "",
                    "judge": board["judge"]["model"],
                    "task_version": board["task_version"],
                    **{k: entry[k] for k in CSV_COLUMNS if k in entry},
                }
            )
    return rows


def _p(value: float) -> str:
    return f"{value:.3f}"


def _cell(text: str | None) -> str:
    """Text safe inside a Markdown table cell."""
    return (text or "").replace("|", "\\|")


def _number(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def _breakdowns(entries: list[dict[str, Any]]) -> list[str]:
    """The family's breakdown tables of a board: one per title, a row per label and a column per system."""
    titles = list(dict.fromkeys(title for e in entries for title in e.get("breakdown") or {}))
    lines = []
    for title in titles:
        shown = [e for e in entries if title in (e.get("breakdown") or {})]
        rows = list(dict.fromkeys(row for e in shown for row in e["breakdown"][title]))
        lines += ["", f"{title}:", "", "| | " + " | ".join(_cell(e["system"]) for e in shown) + " |"]
        lines.append("|---|" + "---:|" * len(shown))
        for row in rows:
            values = " | ".join(_number(e["breakdown"][title].get(row)) for e in shown)
            lines.append(f"| {_cell(row)} | {values} |")
    return lines


def _judges_markdown(boards: list[dict[str, Any]], level: str) -> list[str]:
    """The judges' boards: each judge's measures with `level` intervals, then the paired tests of the ranked one."""
    if not boards:
        return []
    lines = ["", "## Judges"]
    for board in boards:
        measures = board["measures"]
        lines += [
            "",
            f"### {board['task']} · {board['score']} · {board['dataset']['name']}",
            "",
            f"Task version {board['task_version']}, {board['n_samples']} samples. {board['note'] or ''}".rstrip(),
            "",
            "| rank | judge | " + " | ".join(f"{m} | {level} interval | n" for m in measures) + " | log |",
            "|---:|---|" + "---:|---|---:|" * len(measures) + "---|",
        ]
        for e in board["entries"]:
            cells = []
            for name in measures:
                m = e["measures"].get(name)
                shown = (
                    ("", "", "")
                    if m is None
                    else (f"{m['value']:.3f}", f"{m['ci_low']:.3f} – {m['ci_high']:.3f}", m["n"])
                )
                cells.append(" | ".join(str(part) for part in shown))
            lines.append(f"| {e['rank']} | {_cell(e['system'])} | " + " | ".join(cells) + f" | `{e['log']}` |")
        tests = board["significance"]["tests"]
        if tests:
            lines += [
                "",
                f"Paired tests of {board['score']} ({board['significance']['resamples']} resamples, "
                f"seed {board['significance']['seed']}):",
                "",
                "| a | b | a − b | paired bootstrap p | approximate randomization p | n |",
                "|---|---|---:|---:|---:|---:|",
            ]
            lines += [
                f"| {_cell(t['a'])} | {_cell(t['b'])} | {t['difference']:+.3f} | {_p(t['paired_bootstrap_p'])} "
                f"| {'' if t['randomization_p'] is None else _p(t['randomization_p'])} | {t['n']} |"
                for t in tests
            ]
    return lines


def markdown(leaderboard: dict[str, Any]) -> str:
    """Every board as a Markdown table with its breakdowns and paired tests, the judges' boards, then the runs not
    ranked."""
    settings = leaderboard["settings"]
    level = f"{settings['confidence']:.0%}"
    lines = [
        "# Leaderboard",
        "",
        f"Intervals: {level} percentile bootstrap, {settings['resamples']} resamples, "
        f"seed {settings['seed']}. A missing score counts as 0.",
    ]
    for board in leaderboard["boards"]:
        track = f" · {board['track']}" if board["track"] else ""
        lines += [
            "",
            f"## {board['task']} · {board['score']} · {board['dataset']['name']}{track}",
            "",
            f"Judge {board['judge']['model']}, task version {board['task_version']}, {board['n_samples']} samples.",
            "",
            f"| rank | system | score | {level} interval | n | unscored | log |",
            "|---:|---|---:|---|---:|---:|---|",
        ]
        for e in board["entries"]:
            lines.append(
                f"| {e['rank']} | {_cell(e['system'])} | {e['score']:.3f} | {e['ci_low']:.3f} – {e['ci_high']:.3f} "
                f"| {e['n']} | {e['n_unscored']} | `{e['log']}` |"
            )
        if board.get("note"):
            lines += ["", f"Note: {board['note']}"]
        lines += _breakdowns(board["entries"])
        tests = board["significance"]["tests"]
        if tests:
            lines += [
                "",
                f"Paired tests ({board['significance']['resamples']} resamples, seed {board['significance']['seed']}):",
                "",
                "| a | b | mean(a) − mean(b) | paired bootstrap p | approximate randomization p |",
                "|---|---|---:|---:|---:|",
            ]
            lines += [
                f"| {_cell(t['a'])} | {_cell(t['b'])} | {t['difference']:+.3f} | {_p(t['paired_bootstrap_p'])} "
                f"| {_p(t['randomization_p'])} |"
                for t in tests
            ]
    lines += _judges_markdown(leaderboard.get("judge_boards") or [], level)
    if leaderboard["not_ranked"]:
        lines += ["", "## Not ranked", "", "| system | task | log | reasons |", "|---|---|---|---|"]
        for row in leaderboard["not_ranked"]:
            reasons = _cell("; ".join(row["reasons"]))
            lines.append(f"| {_cell(row['system'])} | {row['task'] or ''} | `{row['log']}` | {reasons} |")
    return "\n".join(lines) + "\n"


def page(leaderboard: dict[str, Any], title: str = "Radiology report metrics leaderboard") -> str:
    """The self-contained results page: the data is embedded, and nothing is fetched when it is viewed."""
    from jinja2 import Environment

    environment = Environment(autoescape=True, keep_trailing_newline=True)
    source = (files("radiology_tasks.leaderboard") / PAGE_TEMPLATE).read_text()
    return environment.from_string(source).render(title=title, data=leaderboard)


def write_outputs(leaderboard: dict[str, Any], out: Path) -> dict[str, Path]:
    """Write leaderboard.json, leaderboard.csv, leaderboard.md and index.html into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = {
        "json": out / "leaderboard.json",
        "csv": out / "leaderboard.csv",
        "markdown": out / "leaderboard.md",
        "page": out / "index.html",
    }
    written["json"].write_text(json.dumps(leaderboard, indent=2) + "\n")
    with written["csv"].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(csv_rows(leaderboard))
    written["markdown"].write_text(markdown(leaderboard))
    written["page"].write_text(page(leaderboard))
    return written
