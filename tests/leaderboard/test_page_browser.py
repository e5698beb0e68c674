"""The results page in a real browser: headless Chromium (Debian's package) driven by Playwright.

The page checked is the one built from the test runs, or the page named by `LEADERBOARD_PAGE` (the README's
demo page is checked, and its screenshot taken, with that variable). `LEADERBOARD_SCREENSHOT` saves the
screenshot there as well as into the test's temporary directory.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.leaderboard.outputs import write_outputs
from tests.leaderboard.boards import build

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


def _chromium() -> str:
    for name in (os.environ.get("CHROMIUM"), *CHROMIUM_NAMES):
        found = shutil.which(name) if name else None
        if found:
            return found
    pytest.skip("no Chromium installed (Debian: apt-get install chromium); the page is not checked in a browser")


@pytest.fixture(scope="module")
def page_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    named = os.environ.get("LEADERBOARD_PAGE")
    if named:
        return Path(named).resolve()
    fixture = build(tmp_path_factory.mktemp("page"), resamples=200)
    return write_outputs(fixture.leaderboard, fixture.out)["page"]


def _row_systems(board: Any) -> list[str]:
    return board.eval_on_selector_all("table.ranking tbody tr", "rows => rows.map(r => r.dataset.system)")


def test_the_page_sorts_plots_and_logs_no_error(page_path, tmp_path):
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    executable = _chromium()
    problems: list[str] = []
    outside: list[str] = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        page.on(
            "console",
            lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None,
        )
        page.on("pageerror", lambda e: problems.append(f"page error: {e}"))

        def only_local(route: Any) -> None:
            if route.request.url.startswith("file://"):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        page.route("**/*", only_local)
        page.goto(page_path.as_uri())
        shot = tmp_path / "leaderboard.png"
        page.screenshot(path=str(shot), full_page=True)
        data = json.loads(page.text_content("#leaderboard-data"))
        boards = page.query_selector_all("section.board")
        assert len(boards) == len(data["boards"]) >= 1
        for board_data, board in zip(data["boards"], boards, strict=True):
            entries = board_data["entries"]
            ranked = [e["system"] for e in entries]
            assert _row_systems(board) == ranked
            header = board.query_selector('th[data-key="score"]')
            header.click()
            assert header.get_attribute("aria-sort") == "ascending"
            assert _row_systems(board) == [e["system"] for e in sorted(entries, key=lambda e: e["score"])]
            header.click()
            assert header.get_attribute("aria-sort") == "descending"
            assert _row_systems(board) == [e["system"] for e in sorted(entries, key=lambda e: -e["score"])]
            board.query_selector('th[data-key="system"]').click()
            assert _row_systems(board) == sorted(ranked)

            dots = board.query_selector_all("svg.interval-plot circle.score-dot")
            assert len(dots) == len(entries)
            assert all(d.bounding_box() and d.bounding_box()["width"] > 0 for d in dots)
            profiles = [e for e in entries if e["error_profile"]]
            assert len(board.query_selector_all("svg.error-profile rect.profile-bar")) == 6 * len(profiles)
            points = sum(len(e["expert_points"] or []) for e in entries)
            assert len(board.query_selector_all("svg.expert-scatter circle.expert-point")) == points
            cells = board.query_selector_all("table.ranking td[data-log]")
            assert sorted(c.get_attribute("data-log") for c in cells) == sorted(e["log"] for e in entries)
            assert all("inspect view --log-dir" in c.get_attribute("title") for c in cells)
            links = board.eval_on_selector_all("a.system-link", "links => links.map(a => a.getAttribute('href'))")
            submitted = [e[k] for e in entries for k in ("paper", "code") if e[k]]
            assert links == [url for url in submitted if url.lower().startswith(("http://", "https://"))]
            if len(entries) > 1:
                assert board.query_selector("table.significance") is not None
        browser.close()
    assert shot.stat().st_size > 10_000
    if os.environ.get("LEADERBOARD_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["LEADERBOARD_SCREENSHOT"])
    assert problems == []
    assert outside == [], "the page fetched something from the network"
