"""Write a leaderboard as JSON (validated against the shipped schema before anything is written), CSV, Markdown
and one self-contained page; every text from a log or a bundle is written inert (`radiology_tasks.core.table_cells`,
and the page's escaping)."""

from __future__ import annotations

import csv
import json
import os
import shlex
from collections.abc import Iterable
from importlib.resources import files
from pathlib import Path
from typing import Any

import jsonschema

from radiology_tasks.core.table_cells import csv_cell, markdown_code
from radiology_tasks.core.table_cells import markdown_cell as _cell
from radiology_tasks.core.undefined import not_numbers
from radiology_tasks.leaderboard.redact import REDACTED_CHECKS

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
    "trial",
    "statistic",
    "empty_cells",
)
TRIAL_NOTE = (
    "Trial leaderboard: every board ranks runs on part of their dataset (the samples each covers are in its "
    "heading); its ranks and intervals say nothing certain about the whole dataset."
)
BREAKDOWN_GAP = "the run's breakdown gives no value for this row (undefined for its samples)"
UNREAD_TASK = "the log could not be read, so its task is unknown"


def schema() -> dict[str, Any]:
    """The JSON Schema that `leaderboard.json` follows (shipped with the package)."""
    return json.loads((files("radiology_tasks.leaderboard") / SCHEMA_FILE).read_text())


def schema_problems(leaderboard: dict[str, Any]) -> list[str]:
    """Where and how `leaderboard` does not follow the shipped schema (``boards[0].entries[1].system: ...``), in
    document order; empty when it does."""
    validator = jsonschema.Draft202012Validator(schema())
    problems = sorted(validator.iter_errors(leaderboard), key=lambda error: [str(p) for p in error.absolute_path])
    return [f"{_place(error.absolute_path) or '(the whole leaderboard)'}: {error.message}" for error in problems]


def _place(path: Iterable[str | int]) -> str:
    return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path).lstrip(".")


def csv_rows(leaderboard: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per ranked system and board, each text safe to open in a spreadsheet (`csv_cell`)."""
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
                    "trial": trial_label(board.get("trial")),
                    "statistic": board["statistic"],
                    **{k: entry[k] for k in CSV_COLUMNS if k in entry},
                    "empty_cells": "; ".join(f"{k}: {why}" for k, why in (entry.get("empty") or {}).items()),
                }
            )
    return [{column: csv_cell(value) for column, value in row.items()} for row in rows]


def _p(value: float) -> str:
    return f"{value:.3f}"


class _Footnotes:
    """The reasons for a table's empty cells: each cell shows `n/a [k]`, and the reasons follow the table."""

    def __init__(self) -> None:
        self.reasons: list[str] = []

    def mark(self, reason: str) -> str:
        if reason not in self.reasons:
            self.reasons.append(reason)
        return f"n/a [{self.reasons.index(reason) + 1}]"

    def lines(self) -> list[str]:
        return ["", *(f"[{i}] {_cell(reason)}" for i, reason in enumerate(self.reasons, 1))] if self.reasons else []


def _system_cell(entry: dict[str, Any]) -> str:
    """A system's name, with the note that its answers were verified by hash only (and whether its data was
    checked) when its log is redacted."""
    checks = entry.get("checks")
    return f"{entry['system']} ({checks})" if checks in REDACTED_CHECKS else entry["system"]


def _figure(value: float | None, why: str | None, notes: _Footnotes, form: str = ".3f") -> str:
    """A number, or the footnote marker of why it is missing."""
    if value is None:
        return notes.mark(why or "no value given")
    return format(value, form)


def trial_label(trial: dict[str, int] | None) -> str:
    """`trial: 12 of 41 samples`, or nothing for a board of full runs."""
    return "" if trial is None else f"trial: {trial['samples']} of {trial['dataset_samples']} samples"


def heading(board: dict[str, Any]) -> str:
    """A board's heading: its task, dataset and track, each named once, and its trial marker."""
    parts = [f"Task {board['task']}", f"data {board['dataset']['name']}"]
    if board.get("track"):
        parts.append(f"track {board['track']}")
    if board.get("trial"):
        parts.append(trial_label(board["trial"]))
    return " · ".join(parts)


def ranked_by(board: dict[str, Any]) -> str:
    """What a judges' board ranks by, naming the judged score when the statistic does not."""
    statistic, score = board["statistic"], board["score"]
    return statistic if score in statistic else f"{statistic} (of {score})"


def evidence_command(log: str, folder: Path) -> str:
    """The command that opens a run's log in Inspect's viewer from any directory: `log` is relative to `folder`,
    the folder of the leaderboard's files."""
    directory = Path(os.path.abspath(folder / log)).parent
    return f"inspect view --log-dir {shlex.quote(str(directory))}"


def _evidence(log: str, folder: Path) -> str:
    """The log and the command that opens it, as two Markdown table cells."""
    return f"{markdown_code(log)} | {markdown_code(evidence_command(log, folder))}"


def _breakdowns(entries: list[dict[str, Any]]) -> list[str]:
    """The family's breakdown tables of a board: one per title, a row per label and a column per system."""
    titles = list(dict.fromkeys(title for e in entries for title in e.get("breakdown") or {}))
    lines = []
    for title in titles:
        shown = [e for e in entries if title in (e.get("breakdown") or {})]
        rows = list(dict.fromkeys(row for e in shown for row in e["breakdown"][title]))
        notes = _Footnotes()
        lines += [
            "",
            f"{_cell(title)}:",
            "",
            "| row | " + " | ".join(_cell(e["system"]) for e in shown) + " |",
        ]
        lines.append("|---|" + "---:|" * len(shown))
        for row in rows:
            values = " | ".join(_figure(e["breakdown"][title].get(row), BREAKDOWN_GAP, notes) for e in shown)
            lines.append(f"| {_cell(row)} | {values} |")
        lines += notes.lines()
    return lines


def _judges_markdown(boards: list[dict[str, Any]], level: str, folder: Path) -> list[str]:
    """The judges' boards: each judge's measures with `level` intervals, then the paired tests of the ranked one."""
    if not boards:
        return []
    lines = ["", "## Judges"]
    for board in boards:
        measures = board["measures"]
        labels = board["measure_labels"]
        units = board["measure_units"]
        notes = _Footnotes()
        lines += [
            "",
            f"### {_cell(heading(board))}",
            "",
            _cell(
                f"Judges ranked by {ranked_by(board)}, task version {board['task_version']}, "
                f"{board['n_samples']} samples. {board['note'] or ''}".rstrip()
            ),
            "",
            "| rank | judge | "
            + " | ".join(f"{_cell(labels[m])} | {level} interval | n ({units[m]})" for m in measures)
            + " | log | open the evidence |",
            "|---:|---|" + "---:|---|---:|" * len(measures) + "---|---|",
        ]
        for e in board["entries"]:
            cells = []
            for name in measures:
                m = e["measures"].get(name)
                if m is None:
                    marker = notes.mark((e.get("empty") or {}).get(name) or f"no value of {name}")
                    cells.append(" | ".join([marker] * 3))
                    continue
                cells.append(f"{m['value']:.3f} | {m['ci_low']:.3f} – {m['ci_high']:.3f} | {_judge_n(m)}")
            lines.append(
                f"| {e['rank']} | {_cell(_system_cell(e))} | "
                + " | ".join(cells)
                + f" | {_evidence(e['log'], folder)} |"
            )
        lines += notes.lines()
        lines += _tests_markdown(board, f"{board['statistic']}, a − b")
    return lines


def _judge_n(figure: dict[str, Any]) -> str:
    """A judge's measure's n, with the right, wrong and tied pairs of a preference accuracy."""
    if "right" not in figure:
        return str(figure["n"])
    return f"{figure['n']} ({figure['right']} right, {figure['wrong']} wrong, {figure['ties']} tied)"


def _tests_markdown(board: dict[str, Any], difference: str) -> list[str]:
    tests = board["significance"]["tests"]
    if not tests:
        return []
    notes = _Footnotes()
    lines = [
        "",
        f"Paired tests ({board['significance']['resamples']} resamples, seed {board['significance']['seed']}):",
        "",
        f"| a | b | {_cell(difference)} | paired bootstrap p | approximate randomization p | n |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for t in tests:
        empty = t.get("empty") or {}
        p_values = [_figure(t[k], empty.get(k), notes) for k in ("paired_bootstrap_p", "randomization_p")]
        lines.append(
            f"| {_cell(t['a'])} | {_cell(t['b'])} | {t['difference']:+.3f} | {' | '.join(p_values)} | {t['n']} |"
        )
    return lines + notes.lines()


def markdown(leaderboard: dict[str, Any], folder: Path) -> str:
    """Every board as a Markdown table with its breakdowns and paired tests, the judges' boards, then the runs not
    ranked. `folder` is where the file is written: logs are named relative to it, and the commands that open them
    carry their absolute folder, so they work from any directory."""
    settings = leaderboard["settings"]
    level = f"{settings['confidence']:.0%}"
    lines = [
        "# Leaderboard",
        "",
        f"Intervals: {level} percentile bootstrap, {settings['resamples']} resamples, "
        f"seed {settings['seed']}. A missing score counts as 0.",
    ]
    if leaderboard.get("trial"):
        lines += ["", TRIAL_NOTE]
    for board in leaderboard["boards"]:
        notes = _Footnotes()
        lines += [
            "",
            f"## {_cell(heading(board))}",
            "",
            _cell(
                f"Judge {board['judge']['model']}, task version {board['task_version']}, {board['n_samples']} samples."
            ),
            "",
            f"| rank | system | {_cell(board['statistic'])} | {level} interval | n (samples) | unscored (counted as 0) "
            "| log | open the evidence |",
            "|---:|---|---:|---|---:|---:|---|---|",
        ]
        for e in board["entries"]:
            empty = e.get("empty") or {}
            if e["ci_low"] is None or e["ci_high"] is None:
                interval = notes.mark(empty.get("ci_low") or empty.get("ci_high") or "no interval")
            else:
                interval = f"{e['ci_low']:.3f} – {e['ci_high']:.3f}"
            lines.append(
                f"| {e['rank']} | {_cell(_system_cell(e))} | {e['score']:.3f} | {interval} "
                f"| {e['n']} | {e['n_unscored']} | {_evidence(e['log'], folder)} |"
            )
        lines += notes.lines()
        if board.get("note"):
            lines += ["", _cell(f"Note: {board['note']}")]
        lines += _breakdowns(board["entries"])
        lines += _tests_markdown(board, f"{board['statistic']}, a − b")
    lines += _judges_markdown(leaderboard.get("judge_boards") or [], level, folder)
    if leaderboard["not_ranked"]:
        lines += ["", "## Not ranked", "", "| system | task | log | reasons |", "|---|---|---|---|"]
        notes = _Footnotes()
        for row in leaderboard["not_ranked"]:
            reasons = _cell("; ".join(row["reasons"]))
            task = _cell(row["task"]) if row["task"] else notes.mark(UNREAD_TASK)
            lines.append(f"| {_cell(row['system'])} | {task} | {markdown_code(row['log'])} | {reasons} |")
        lines += notes.lines()
    return "\n".join(lines) + "\n"


def page(leaderboard: dict[str, Any], title: str = "Radiology report metrics leaderboard") -> str:
    """The self-contained results page: the data is embedded, and nothing is fetched when it is viewed."""
    from jinja2 import Environment

    environment = Environment(autoescape=True, keep_trailing_newline=True)
    source = (files("radiology_tasks.leaderboard") / PAGE_TEMPLATE).read_text()
    texts = {"trial_note": TRIAL_NOTE, "breakdown_gap": BREAKDOWN_GAP, "unread_task": UNREAD_TASK}
    return environment.from_string(source).render(title=title, data=leaderboard, **texts)


def write_outputs(leaderboard: dict[str, Any], out: Path) -> dict[str, Path]:
    """Write leaderboard.json, leaderboard.csv, leaderboard.md and index.html into `out`.

    Raises:
        ValueError: naming each figure that is NaN or infinite (a figure that cannot be computed is null with its
            reason, never a bare `nan`), or each place where the leaderboard does not follow its schema
            (`SCHEMA_FILE`); nothing is written then.
    """
    places = not_numbers(leaderboard, "leaderboard")
    if places:
        raise ValueError(f"not a number at {', '.join(places)}: a missing figure is null with its reason")
    problems = schema_problems(leaderboard)
    if problems:
        raise ValueError(f"leaderboard.json would not follow {SCHEMA_FILE}: " + "; ".join(problems))
    out.mkdir(parents=True, exist_ok=True)
    written = {
        "json": out / "leaderboard.json",
        "csv": out / "leaderboard.csv",
        "markdown": out / "leaderboard.md",
        "page": out / "index.html",
    }
    written["json"].write_text(json.dumps(leaderboard, indent=2, allow_nan=False) + "\n")
    with written["csv"].open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(csv_rows(leaderboard))
    written["markdown"].write_text(markdown(leaderboard, out))
    written["page"].write_text(page(leaderboard))
    return written
