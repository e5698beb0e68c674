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
    NO_RANDOMIZATION,
    PREFERENCE,
    PREFERENCE_LABEL,
    TAU,
    TAU_LABEL,
    TRUTH_LABELS,
)
from radiology_tasks.leaderboard.outputs import write_outputs
from radiology_tasks.leaderboard.redact import HASH_ONLY, HASH_ONLY_UNCHECKED_DATA
from tests.leaderboard.boards import build
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


SHA = "ab" * 32
JUDGE = {"model": "openai/judge", "temperatures": [0.0], "seeded": False}
DATASET = {
    "name": "demo",
    "layout": None,
    "data_sha256": SHA,
    "revision": None,
    "reports_sha256": None,
    "sample_ids_sha256": SHA,
}


def _entry(
    rank: int,
    system: str,
    score: float,
    breakdown: dict[str, dict[str, float]] | None,
    checks: str = "judge answers re-read",
) -> dict[str, Any]:
    card = dict.fromkeys(("institution", "paper", "code", "description"))
    return {
        "rank": rank,
        "system": system,
        **card,
        "score": score,
        "ci_low": score - 0.1,
        "ci_high": score + 0.1,
        "n": 4,
        "n_unscored": 0,
        "log": f"logs/{system}.eval",
        "log_sha256": SHA,
        "breakdown": breakdown,
        "expert_points": None,
        "empty": {},
        "checks": checks,
    }


def _judge_entry(rank: int, judge: str, measures: dict[str, float | None]) -> dict[str, Any]:
    shown = {
        m: None if v is None else {"value": v, "ci_low": v - 0.1, "ci_high": v + 0.05, "n": 8}
        for m, v in measures.items()
    }
    first = next(iter(measures.values()))
    card = dict.fromkeys(("institution", "paper", "code", "description"))
    return {
        "rank": rank,
        "system": judge,
        "submitted_as": f"{judge} team",
        **card,
        "judge": {**JUDGE, "model": judge},
        "score": first,
        "ci_low": first - 0.1,
        "ci_high": first + 0.05,
        "n": 8,
        "measures": shown,
        "log": f"logs/{judge.replace('/', '-')}.eval",
        "log_sha256": SHA,
        "empty": {m: f"no value: no unit of this run has a {m}" for m, v in measures.items() if v is None},
        "checks": "judge answers re-read",
    }


def truth_boards(agreement: dict[str, Any]) -> list[dict[str, Any]]:
    """An agreement board against the radiologists' mean errors (ReXVal), and one on data with preferences
    (RadPref) whose second judge ties every pair and whose first was ranked on its log's own experts."""
    errors = {
        **agreement,
        "id": "judges-vert-vert-rexval-significant_errors",
        "truth": "significant_errors",
        "dataset": {**DATASET, "name": "rexval", "layout": "rexval"},
        "statistic": TRUTH_LABELS["significant_errors"],
        "measure_labels": {"kendall_tau_b": TRUTH_LABELS["significant_errors"]},
    }
    preference = {"value": 0.75, "ci_low": 0.5, "ci_high": 1.0, "n": 5, "right": 3, "wrong": 1, "ties": 1}
    tied = {"value": 0.1, "ci_low": 0.0, "ci_high": 0.2, "n": 8}
    radpref = {
        **agreement,
        "id": "judges-vert-vert-radpref",
        "dataset": {**DATASET, "name": "radpref"},
        "measures": [TAU, PREFERENCE],
        "measure_labels": {TAU: TAU_LABEL, PREFERENCE: PREFERENCE_LABEL},
        "measure_units": {TAU: "samples", PREFERENCE: "pairs"},
        "entries": [
            {**_judge_entry(1, "openai/close", {TAU: 0.9}), "checks": HASH_ONLY_UNCHECKED_DATA},
            _judge_entry(2, "openai/tied", {TAU: 0.1}),
        ],
        "significance": {"resamples": 100, "seed": 0, "tests": []},
    }
    radpref["entries"][0]["measures"][PREFERENCE] = preference
    radpref["entries"][1]["measures"] = {TAU: tied, PREFERENCE: None}
    radpref["entries"][1]["empty"] = {PREFERENCE: "no value: the judge's vert ties all 5 pairs"}
    return [errors, radpref]


def hand_built() -> dict[str, Any]:
    """A leaderboard with a family breakdown, a board note and both kinds of judges' board (schema-valid)."""
    categories = {"(a) false finding": 0.5, "(b) missed finding": 0.25}
    report = {
        "id": "ran_score-macro_f1-demo",
        "task": "ran_score",
        "score": "macro_f1",
        "dataset": DATASET,
        "track": None,
        "task_version": "1.0.0",
        "judge": JUDGE,
        "task_config": {},
        "n_samples": 4,
        "trial": {"samples": 4, "dataset_samples": 41},
        "statistic": "macro_f1 of the whole sample set",
        "note": "macro_f1 is a corpus statistic: intervals and tests resample reports",
        "entries": [
            _entry(1, "System A", 0.8, {"F1 per label": {"Effusion": 0.9, "Nodule": 0.7}, "Errors": categories}),
            _entry(2, "System B", 0.6, {"F1 per label": {"Effusion": 0.5, "Nodule": 0.65}}, HASH_ONLY),
        ],
        "significance": {
            "resamples": 100,
            "seed": 0,
            "tests": [
                {
                    "a": "System A",
                    "b": "System B",
                    "difference": 0.2,
                    "paired_bootstrap_p": 0.04,
                    "randomization_p": 0.03,
                    "n": 4,
                    "empty": {},
                }
            ],
        },
    }
    tests = [
        {
            "a": "openai/close",
            "b": "openai/noisy",
            "difference": 0.5,
            "paired_bootstrap_p": 0.01,
            "randomization_p": None,
            "n": 8,
            "empty": {"randomization_p": NO_RANDOMIZATION},
        }
    ]
    agreement = {
        "id": "judges-vert-vert-demo",
        "kind": "agreement",
        "truth": "score",
        "task": "vert",
        "score": "vert",
        "measures": ["kendall_tau_b"],
        "dataset": DATASET,
        "task_version": "1.2.0",
        "task_config": {},
        "n_samples": 8,
        "trial": {"samples": 8, "dataset_samples": 41},
        "statistic": TAU_LABEL,
        "measure_labels": {"kendall_tau_b": TAU_LABEL},
        "measure_units": {"kendall_tau_b": "samples"},
        "note": "tau against experts; intervals resample samples",
        "entries": [
            _judge_entry(1, "openai/close", {"kendall_tau_b": 0.9}),
            _judge_entry(2, "openai/noisy", {"kendall_tau_b": 0.4}),
        ],
        "significance": {"resamples": 100, "seed": 0, "tests": tests},
    }
    measures = {
        **agreement,
        "id": "judges-judge_sensitivity-balance-demo",
        "kind": "measures",
        "truth": None,
        "task": "judge_sensitivity",
        "score": "balance",
        "measures": ["balance", "discrimination", "robustness"],
        "statistic": "mean balance over the units",
        "measure_labels": {m: f"mean {m} over the units" for m in ("balance", "discrimination", "robustness")},
        "measure_units": dict.fromkeys(("balance", "discrimination", "robustness"), "units"),
        "note": None,
        "entries": [_judge_entry(1, "openai/close", {"balance": 0.7, "discrimination": 0.8, "robustness": None})],
        "significance": {"resamples": 100, "seed": 0, "tests": []},
    }
    return {
        "schema_version": "1.3",
        "generated": "2025-01-01T00:00:00+00:00",
        "radiology_tasks_version": "0.0.0",
        "trial": True,
        "settings": {"confidence": 0.95, "resamples": 100, "seed": 0, "max_unscored": 0.1, "unscored": "worst"},
        "boards": [report],
        "judge_boards": [agreement, measures, *truth_boards(agreement)],
        "not_ranked": [],
    }


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
