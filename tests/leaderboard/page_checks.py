"""What every results page must say in words, checked in the browser: headings, column names, the reason of every
empty cell, the trial marker and the command that opens a run's evidence. Used on the test pages and on a page
named by `LEADERBOARD_PAGE` (the README's screenshots are taken of those)."""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path
from typing import Any

INTERVAL = "{level}% interval of the score (bootstrap)"
RANKING_COLUMNS = [
    "Rank",
    "System",
    "Score: {statistic}",
    INTERVAL,
    "n (samples)",
    "Unscored (counted as 0)",
    "Evidence (log, and the command that opens it)",
]
# Words a figure that could not be computed would show if it leaked into the page unexplained.
LEAKS = re.compile(r"\b(nan|NaN|undefined|null|Infinity)\b")


def expected_heading(board: dict[str, Any]) -> str:
    """Task, dataset and track, each once, then the trial marker (the page shows a dataset's last path part)."""
    parts = [f"Task {board['task']}", f"data {board['dataset']['name'].split('/')[-1]}"]
    if board.get("track"):
        parts.append(f"track {board['track']}")
    trial = board.get("trial")
    marker = f"trial: {trial['samples']} of {trial['dataset_samples']} samples" if trial else ""
    return " · ".join(parts) + marker


def _texts(node: Any, selector: str) -> list[str]:
    return node.eval_on_selector_all(selector, "nodes => nodes.map(n => n.textContent)")


def check_headings_and_columns(page: Any, data: dict[str, Any]) -> None:
    """Each board's heading names task, dataset and track once and carries its trial marker; every column of the
    ranking, judges' and paired-test tables names the statistic it holds."""
    level = round(data["settings"]["confidence"] * 100)
    sections = page.query_selector_all("section.board")
    assert len(sections) == len(data["boards"])
    for board, section in zip(data["boards"], sections, strict=True):
        heading = section.query_selector("h2.board-heading")
        assert heading.text_content() == expected_heading(board)
        assert heading.text_content().count(board["task"]) == 1, "the task is named once"
        marker = section.query_selector("h2 span.trial")
        assert (marker is not None) == (board.get("trial") is not None)
        columns = [c.format(statistic=board["statistic"], level=level) for c in RANKING_COLUMNS]
        assert _texts(section, "table.ranking thead th") == columns
        if len(board["entries"]) > 1:
            assert f"Paired significance: {board['statistic']}, row − column" in _texts(section, "h3")
    judges = page.query_selector_all("section.judge-board")
    assert len(judges) == len(data.get("judge_boards") or [])
    for board, section in zip(data.get("judge_boards") or [], judges, strict=True):
        assert section.query_selector("h3.board-heading").text_content() == expected_heading(board)
        heads = _texts(section, "table.judge-ranking thead th")
        assert [heads[2 + 3 * i] for i in range(len(board["measures"]))] == [
            board["measure_labels"][m] for m in board["measures"]
        ]
        if board["significance"]["tests"]:
            assert _texts(section, "table.judge-tests thead th")[2] == f"{board['statistic']}, a − b"
    banner = page.query_selector("p.trial-banner")
    assert (banner is not None) == bool(data.get("trial"))


def check_empty_cells(page: Any) -> int:
    """Every table cell shows something; an empty one shows n/a with a footnote whose text is its reason, under
    the same table. Returns the number of empty cells."""
    cells = page.eval_on_selector_all(
        "td",
        """cells => cells.map(c => {
            const mark = c.querySelector('sup.footnote-mark');
            const list = c.closest('table').nextElementSibling;
            const listed = mark && list && list.matches('ol.footnotes');
            const item = listed ? list.children[Number(mark.textContent) - 1] : null;
            return {text: c.textContent.trim(), empty: c.classList.contains('empty'), reason: c.dataset.reason || null,
                    footnote: item ? item.textContent : null};
        })""",
    )
    assert cells and all(c["text"] for c in cells), [c for c in cells if not c["text"]]
    empty = [c for c in cells if c["empty"]]
    for cell in empty:
        assert cell["reason"] and cell["footnote"] == cell["reason"], cell
        assert re.fullmatch(r"n/a\d+", cell["text"]), cell
    shown = [c["text"] for c in cells if not c["empty"]] + _texts(page, "th, h2, h3, p.meta")
    assert not [text for text in shown if LEAKS.search(text)]
    return len(empty)


def evidence_commands(page: Any) -> list[list[str]]:
    """The commands the page shows to open the evidence, split as a shell would."""
    return [shlex.split(text) for text in _texts(page, "code.evidence-command")]


def check_evidence_commands(page: Any, data: dict[str, Any], page_path: Path) -> None:
    """Each command opens its log's folder by absolute path, so it works from any directory."""
    logs = [e["log"] for board in data["boards"] + (data.get("judge_boards") or []) for e in board["entries"]]
    commands = evidence_commands(page)
    assert len(commands) == len(logs)
    wanted = sorted(os.path.dirname(os.path.normpath(page_path.parent / log)) for log in logs)
    assert sorted(c[3] for c in commands) == wanted
    assert all(c[:3] == ["inspect", "view", "--log-dir"] and len(c) == 4 and Path(c[3]).is_absolute() for c in commands)
