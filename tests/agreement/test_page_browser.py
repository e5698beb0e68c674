"""The agreement page in a real browser: headless Chromium (Debian's package) driven by Playwright."""

from __future__ import annotations

import json
from typing import Any

import pytest

from radiology_tasks.agreement.model import PairedTest
from radiology_tasks.agreement.outputs import write_outputs
from radiology_tasks.agreement.table import build_table
from tests.agreement.memory import RADPREF, REXVAL, preference, run, tau
from tests.agreement.test_table_unit import _published
from tests.leaderboard.test_page_browser import _chromium

HOSTILE_KEY = '<img src=x onerror="window.__pwned=1">'
HOSTILE_JUDGE = "<script>window.__pwned=2</script>"


def _page(tmp_path):
    runs = [
        run(
            "x.eval",
            [
                *tau("bleu_2", 0.41, infix="_vs_errors", low=0.2, high=0.6, n=8, unscored=1),
                *tau(HOSTILE_KEY, 0.12, infix="_vs_errors", n=8),
                *tau("rouge_l", None, infix="_vs_errors", n=8, reason="the experts gave all 8 samples the same value"),
            ],
            dataset=REXVAL,
            judge=HOSTILE_JUDGE,
            judged=(HOSTILE_KEY,),
        ),
        run("p.eval", preference("bleu_2", 0.75, right=6, wrong=2, ties=1), keys=["bleu_2"], dataset=RADPREF),
    ]

    def tester(group, first, second):
        return PairedTest(group.id, first[0], second[0], 0.29, 0.04, 8, 100, 97)

    table = build_table(runs, [_published("bleu_2", "rexval", "significant_errors")], paired=tester)
    return write_outputs(table, tmp_path)["page"]


def _texts(node: Any, selector: str) -> list[str]:
    return node.eval_on_selector_all(selector, "nodes => nodes.map(n => n.textContent.trim())")


def test_the_page_shows_the_table_notes_sources_and_tests_and_runs_nothing_from_the_logs(tmp_path):
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    executable = _chromium()
    path = _page(tmp_path)
    problems: list[str] = []
    outside: list[str] = []
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1300, "height": 900})
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
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        assert page.evaluate("window.__pwned") is None
        assert page.query_selector("table.agreement img") is None
        data = json.loads(page.text_content("#agreement-data"))

        groups = _texts(page, "table.agreement thead tr:first-child th.group")
        assert groups == [
            "rexval: tau-b vs mean clinically significant errors",
            "radpref: pairwise preference accuracy",
        ]
        assert _texts(page, "table.agreement thead tr:nth-child(2) th") == [
            "tau-b [interval], n, unscored",
            "Published",
            "accuracy (right, wrong, ties; pairs)",
        ]
        labels = _texts(page, "table.agreement tbody th[scope=row]")
        assert (
            labels
            == [row["label"] for row in data["rows"]]
            == ["bleu_2", f"{HOSTILE_KEY} (judge {HOSTILE_JUDGE})", "rouge_l"]
        )

        first = page.query_selector("table.agreement tbody tr:first-child")
        cells = _texts(first, "td")
        assert cells == [
            "0.410 [0.200, 0.600], n 8, unscored 1",
            "0.4474 (GPT-4.1 mini)P1",
            "0.750 (right 6, wrong 2, ties 1; pairs 9)",
        ]
        assert first.query_selector("td.published").is_visible()

        notes = _texts(page, "ol.notes li")
        rouge = page.query_selector("table.agreement tbody tr:nth-child(3)")
        marks = _texts(rouge, "sup.note-mark")
        assert [notes[int(mark) - 1] for mark in marks] == [
            "the experts gave all 8 samples the same value",
            "no run on radpref scored rouge_l",
        ]
        assert rouge.query_selector("td.empty") is not None
        assert _texts(page, "ul.sources li") == ['P1: "A paper", Table 2: tau vs the score.']

        tests = page.query_selector("table.tests")
        assert _texts(tests, "thead th")[2] == "tau(first) − tau(second)"
        rows = tests.eval_on_selector_all("tbody tr", "rows => rows.map(r => [...r.cells].map(c => c.textContent))")
        assert rows[0] == ["bleu_2", f"{HOSTILE_KEY} (judge {HOSTILE_JUDGE})", "0.290", "0.040", "8", "97 of 100"]
        assert _texts(page, "ul.logs li") == ["x.eval", "p.eval"]
        page.screenshot(path=str(tmp_path / "agreement.png"), full_page=True)
        browser.close()
    assert (tmp_path / "agreement.png").stat().st_size > 10_000
    assert problems == []
    assert outside == [], "the page fetched something from the network"
