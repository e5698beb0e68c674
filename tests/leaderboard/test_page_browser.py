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

from radiology_tasks.leaderboard.judges import (
    PREFERENCE_LABEL,
    TRUTH_LABELS,
)
from radiology_tasks.leaderboard.outputs import write_outputs
from radiology_tasks.leaderboard.redact import HASH_ONLY, HASH_ONLY_UNCHECKED_DATA
from tests.leaderboard.boards import build
from tests.leaderboard.hand_built import hand_built
from tests.leaderboard.page_checks import check_empty_cells, check_evidence_commands, check_headings_and_columns

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
        check_headings_and_columns(page, data)
        check_empty_cells(page)
        check_evidence_commands(page, data, page_path)
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
            titles = {title for e in entries for title in e.get("breakdown") or {}}
            assert len(board.query_selector_all("table.breakdown-table")) == len(titles)
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
        judges = page.query_selector_all("section.judge-board")
        assert [j.get_attribute("id") for j in judges] == [b["id"] for b in data["judge_boards"]]
        for board_data, board in zip(data["judge_boards"], judges, strict=True):
            rows = board.eval_on_selector_all("table.judge-ranking tbody tr", "rs => rs.map(r => r.dataset.system)")
            assert rows == [e["system"] for e in board_data["entries"]]
        browser.close()
    assert shot.stat().st_size > 10_000
    if os.environ.get("LEADERBOARD_SCREENSHOT"):
        shutil.copyfile(shot, os.environ["LEADERBOARD_SCREENSHOT"])
    assert problems == []
    assert outside == [], "the page fetched something from the network"


def test_the_page_shows_breakdowns_notes_and_the_judges_boards(tmp_path):
    import jsonschema

    from radiology_tasks.leaderboard.outputs import markdown, schema

    leaderboard = hand_built()
    jsonschema.validate(leaderboard, schema())
    broken = hand_built()
    broken["judge_boards"][0]["entries"][0]["measures"]["kendall_tau_b"]["extra"] = 1
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema())
    text = markdown(leaderboard, tmp_path / "site")
    assert "Note: macro_f1 is a corpus statistic" in text and "F1 per label:" in text and "## Judges" in text
    assert (
        "| 1 | openai/close | 0.900 | 0.800 – 0.950 | 8 | `logs/openai-close.eval` "
        f"| `inspect view --log-dir {tmp_path / 'site' / 'logs'}` |"
    ) in text
    assert f"| 2 | System B ({HASH_ONLY}) |" in text
    assert "| Nodule | 0.700 | 0.650 |" in text and "| (a) false finding | 0.500 |" in text
    # Built at another confidence than 95%, so the interval columns must say which.
    leaderboard["settings"]["confidence"] = 0.9
    page_file = write_outputs(leaderboard, tmp_path / "site")["page"]
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    executable = _chromium()
    problems: list[str] = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(page_file.as_uri())
        check_headings_and_columns(page, leaderboard)
        assert check_empty_cells(page) == 3 + 3 + 2, "robustness, the tied preference, two randomization p"
        board = page.query_selector("section.board")
        assert board.query_selector("p.note").text_content() == leaderboard["boards"][0]["note"]
        assert board.query_selector('table.ranking th[data-key="ci_low"]').text_content().startswith("90% interval")
        tables = board.query_selector_all("table.breakdown-table")
        # The embedded JSON has its keys sorted (Jinja's tojson), so tables come in title order.
        assert [t.get_attribute("data-title") for t in tables] == ["Errors", "F1 per label"]
        # A redacted run (credentialed data) is labelled: its answers were verified by hash only.
        labels = board.eval_on_selector_all("table.ranking td .checks", "cs => cs.map(c => c.textContent)")
        assert labels == [HASH_ONLY]
        cells = tables[1].eval_on_selector_all("tbody tr", "rows => rows.map(r => r.innerText.split('\\t'))")
        assert cells == [["Effusion", "0.900", "0.500"], ["Nodule", "0.700", "0.650"]]
        assert tables[0].eval_on_selector_all("thead th", "hs => hs.map(h => h.textContent)") == [
            "row \\ system",
            "System A",
        ]
        judges = page.query_selector_all("section.judge-board")
        assert [j.get_attribute("id") for j in judges] == [b["id"] for b in leaderboard["judge_boards"]]
        rows = judges[0].eval_on_selector_all("table.judge-ranking tbody tr", "rs => rs.map(r => r.dataset.system)")
        assert rows == ["openai/close", "openai/noisy"]
        taus = judges[0].eval_on_selector_all('td[data-measure="kendall_tau_b"]', "cs => cs.map(c => c.textContent)")
        assert taus == ["0.900", "0.400"]
        assert judges[0].query_selector("p.note").text_content() == "tau against experts; intervals resample samples"
        test_row = judges[0].eval_on_selector_all("table.judge-tests tbody td", "cs => cs.map(c => c.textContent)")
        assert test_row == ["openai/close", "openai/noisy", "+0.500", "0.010", "n/a1", "8"]
        heads = judges[1].eval_on_selector_all("table.judge-ranking thead th", "hs => hs.map(h => h.textContent)")
        assert "90% interval (bootstrap)" in heads and not any("95%" in head for head in heads), heads
        shown = judges[1].eval_on_selector_all("td[data-measure]", "cs => cs.map(c => c.dataset.measure)")
        assert shown == ["balance", "discrimination"], "a measure with no value has no figure"
        reasons = judges[1].eval_on_selector_all("td.empty", "cs => cs.map(c => c.dataset.reason)")
        assert reasons == ["no value: no unit of this run has a robustness"] * 3
        assert judges[1].query_selector("table.judge-tests") is None
        # Against the radiologists' errors (ReXVal): the board and its columns name the truth.
        meta = judges[2].query_selector("p.meta").text_content()
        assert meta.startswith(f"judges ranked by {TRUTH_LABELS['significant_errors']} (of vert)"), meta
        heads = judges[2].eval_on_selector_all("table.judge-ranking thead th", "hs => hs.map(h => h.textContent)")
        assert heads[2:5] == [TRUTH_LABELS["significant_errors"], "90% interval (bootstrap)", "n (samples)"]
        # Preference accuracy beside tau (RadPref): its counts, a tied judge's reason, the unchecked data's label.
        heads = judges[3].eval_on_selector_all("table.judge-ranking thead th", "hs => hs.map(h => h.textContent)")
        assert heads[5:8] == [PREFERENCE_LABEL, "90% interval (bootstrap)", "n (pairs)"]
        first = judges[3].eval_on_selector_all("tbody tr:first-child td", "cs => cs.map(c => c.textContent)")
        assert first[5:8] == ["0.750", "0.500 \u2013 1.000", "5 (3 right, 1 wrong, 1 tied)"]
        labels = judges[3].eval_on_selector_all(".checks", "cs => cs.map(c => c.textContent)")
        assert labels == [HASH_ONLY_UNCHECKED_DATA]
        reasons = judges[3].eval_on_selector_all("td.empty", "cs => cs.map(c => c.dataset.reason)")
        assert reasons == ["no value: the judge's vert ties all 5 pairs"] * 3
        browser.close()
    assert problems == []
