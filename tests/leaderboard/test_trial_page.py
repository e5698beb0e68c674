"""A trial leaderboard's page in headless Chromium: runs on 3 of a dataset's 4 samples, built in memory as
`read_run` would return them, with log folders whose names need quoting. The page marks every board as a trial,
names what each column holds, gives every empty cell its reason, and shows a command that opens each run's log
folder from any directory, also after the page's folder and the logs are moved together."""

from __future__ import annotations

import functools
import json
import shutil
import threading
from dataclasses import replace
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.outputs import write_outputs
from tests.leaderboard.memory_runs import scored_run, write_pairs
from tests.leaderboard.page_checks import (
    check_empty_cells,
    check_evidence_commands,
    check_headings_and_columns,
    evidence_commands,
)
from tests.leaderboard.test_page_browser import _chromium, hand_built

pytestmark = pytest.mark.slow  # each test starts Chromium: about 6 s on two shared cores

SCORES = {"System A": [0.9, 0.7, 0.8], "System B": [0.5, 0.6, 0.4]}


@pytest.fixture
def trial_site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A trial leaderboard of two systems on s0-s2 of the four pairs, written into `tmp_path/site`."""
    data = write_pairs(tmp_path)
    runs = {}
    for system, scores in SCORES.items():
        log = tmp_path / "runs of 'trial' A&B" / system.replace(" ", "-") / "logs" / "run.eval"
        log.parent.mkdir(parents=True)
        log.write_text("a log")
        runs[log] = replace(scored_run(data, scores), path=log)
    monkeypatch.setattr(board_module, "read_run", lambda path: runs[Path(path)])
    out = tmp_path / "site"
    leaderboard = build_leaderboard(list(runs), out, Settings(resamples=100, trial=True))
    assert [len(b["entries"]) for b in leaderboard["boards"]] == [2] and leaderboard["not_ranked"] == []
    return write_outputs(leaderboard, out)["page"]


def _open(driver: Any, page_path: Path) -> tuple[Any, list[str]]:
    browser = driver.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 1200, "height": 900})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(page_path.as_uri())
    return page, problems


def test_the_trial_page_is_marked_named_and_opens_its_evidence_from_anywhere(trial_site, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    data = json.loads((trial_site.parent / "leaderboard.json").read_text())
    moved = tmp_path / "moved elsewhere"
    shutil.copytree(tmp_path / "site", moved / "site")
    shutil.copytree(tmp_path / "runs of 'trial' A&B", moved / "runs of 'trial' A&B")
    with playwright.sync_playwright() as driver:
        page, problems = _open(driver, trial_site)
        check_headings_and_columns(page, data)
        assert page.query_selector("section.board h2 span.trial").text_content() == "trial: 3 of 4 samples"
        assert "part of their dataset" in page.query_selector("p.trial-banner").text_content()
        assert check_empty_cells(page) == 0
        check_evidence_commands(page, data, trial_site)
        for command in evidence_commands(page):
            assert (Path(command[3]) / "run.eval").is_file(), command
        page.screenshot(path=str(tmp_path / "trial_page.png"), full_page=True)

        copy, copy_problems = _open(driver, moved / "site" / "index.html")
        commands = evidence_commands(copy)
        assert [Path(c[3]).parent.name for c in commands] == ["System-A", "System-B"]
        for command in commands:
            assert Path(command[3]).is_relative_to(moved) and (Path(command[3]) / "run.eval").is_file(), command
        problems += copy_problems
    assert (tmp_path / "trial_page.png").stat().st_size > 10_000
    assert problems == []


def test_every_empty_cell_of_the_page_says_why(tmp_path):
    """The hand-built leaderboard has an interval, p-values, measures and a task that could not be given."""
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    leaderboard = hand_built()
    entry = leaderboard["boards"][0]["entries"][1]
    why = "no interval: macro_f1 is undefined on 7 of the 100 resampled sample sets"
    entry |= {"ci_low": None, "ci_high": None, "empty": {"ci_low": why, "ci_high": why}}
    test = leaderboard["boards"][0]["significance"]["tests"][0]
    undefined = "not computed: macro_f1 is undefined on 12 resampled or swapped sample sets of this pair"
    test |= {"paired_bootstrap_p": None, "randomization_p": None}
    test["empty"] = {"paired_bootstrap_p": undefined, "randomization_p": undefined}
    leaderboard["not_ranked"] = [{"system": "unreadable.eval", "task": None, "log": "x.eval", "reasons": ["bad"]}]
    page_file = write_outputs(leaderboard, tmp_path / "site")["page"]
    with playwright.sync_playwright() as driver:
        page, problems = _open(driver, page_file)
        check_headings_and_columns(page, leaderboard)
        # the interval, the p-value cell of the matrix (both ways), tau's randomization p on the two boards with a
        # test, 3 robustness cells, 3 cells of a judge that ties every preference pair, the task
        empty = 1 + 2 + 2 + 3 + 3 + 1
        assert check_empty_cells(page) == empty
        reasons = page.eval_on_selector_all("td.empty", "cs => cs.map(c => c.dataset.reason)")
        assert set(reasons) == {
            why,
            undefined,
            leaderboard["judge_boards"][0]["significance"]["tests"][0]["empty"]["randomization_p"],
            "no value: no unit of this run has a robustness",
            "no value: the judge's vert ties all 5 pairs",
            "the log could not be read, so its task is unknown",
        }
        board = page.query_selector("section.board")
        board.query_selector('th[data-key="ci_low"]').click()
        assert board.eval_on_selector_all("table.ranking tbody tr", "rs => rs.map(r => r.dataset.system)") == [
            "System A",
            "System B",
        ], "a run without an interval sorts last"
        assert check_empty_cells(page) == empty, "sorting keeps one footnote list under the table"
        assert len(board.query_selector_all("table.ranking + ol.footnotes")) == 1
        check_evidence_commands(page, leaderboard, page_file)
    assert problems == []


def test_a_served_page_names_the_log_folder_relative_to_the_page(trial_site, tmp_path):
    """Over HTTP the page cannot know where its files are on disk: the command is relative and says from where."""
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(tmp_path))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with playwright.sync_playwright() as driver:
            browser = driver.chromium.launch(executable_path=_chromium(), args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{server.server_address[1]}/site/index.html")
            assert evidence_commands(page) == [
                ["inspect", "view", "--log-dir", f"../runs of 'trial' A&B/{name}/logs"]
                for name in ("System-A", "System-B")
            ]
            notes = page.eval_on_selector_all("code.evidence-command + span", "s => s.map(n => n.textContent)")
            assert notes == [" (run from the folder of this page)"] * 2
            browser.close()
    finally:
        server.shutdown()
        server.server_close()
