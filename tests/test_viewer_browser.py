"""Inspect's own log viewer (`inspect view`) in headless Chromium: a replayed sample tells what was judged, against
which reference, and where the judge's verdict is.

The viewer runs as users start it, on a log this test makes (vert on two demo pairs, a scripted judge), and
Debian's Chromium opens it through Playwright. `VIEWER_SCREENSHOT=PATH` also saves the screenshot there (the
README's picture was taken that way).
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.solvers import REFERENCE_HEADING, REPLAYED_STORY
from radiology_tasks.core.task_data import REPLAYED_INPUT
from radiology_tasks.green_vert.tasks import vert
from tests.judge_answers import assessment, mock_output
from tests.leaderboard.test_page_browser import _chromium

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def viewer(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The address of `inspect view` serving a log of two replayed samples."""
    logs = tmp_path_factory.mktemp("viewer-logs")
    judge = get_model("mockllm/model", custom_outputs=[mock_output(assessment({"b": 1}, 2, 0.6)) for _ in range(4)])
    (log,) = inspect_eval(vert(limit=2), model="none", model_roles={"grader": judge}, display="none", log_dir=str(logs))
    assert log.status == "success"
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(logs)]
        + ["--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    address = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(address, timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("inspect view did not start") from None
                time.sleep(0.5)
        yield address
    finally:
        server.terminate()
        server.wait(timeout=30)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_a_replayed_sample_tells_what_was_judged_against_what_and_by_whom(viewer: str, tmp_path: Path) -> None:
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the dev extra")
    executable = _chromium()
    first = load_pairs("demo").pairs[0]
    assert first.candidate is not None
    opening = " ".join(first.candidate.split()[:5])
    story = _flat(REPLAYED_STORY.format(source="the data"))
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=executable, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.goto(viewer)
        page.get_by_text(REPLAYED_INPUT).first.wait_for(timeout=60_000)
        listed = page.inner_text("body")
        page.get_by_text(first.id, exact=True).first.click()
        page.get_by_text(opening).first.wait_for(timeout=30_000)
        page.get_by_role("tab", name="Messages").first.click()
        page.get_by_text(REFERENCE_HEADING).first.wait_for(timeout=30_000)
        messages = _flat(page.inner_text("body"))
        screenshot = tmp_path / "viewer.png"
        page.screenshot(path=str(screenshot))
        if os.environ.get("VIEWER_SCREENSHOT"):
            page.screenshot(path=os.environ["VIEWER_SCREENSHOT"])
        page.get_by_role("tab", name="Scoring").first.click()
        page.get_by_text("answered on attempt 1 of 1").first.wait_for(timeout=30_000)
        scoring = _flat(page.inner_text("body"))
        browser.close()
    # The sample list shows what was judged (the labelled candidate) and, as target, the reference.
    assert listed.count(REPLAYED_INPUT) == 2
    assert opening in listed
    assert first.reference.split(".")[0] in listed
    assert "You are writing the findings section" not in listed + messages
    # Messages: the user turn says what was judged against what (the reference, in full); the assistant turn is the
    # candidate under test, shown once there rather than as both turns.
    told = messages[messages.index("USER") :]
    assert told.startswith(
        f"USER 1 {story} {REFERENCE_HEADING} {_flat(first.reference)} ASSISTANT 2 {_flat(first.candidate)}"
    )
    assert told.count(_flat(first.candidate)) == 1
    # Scoring: the verdict is the judge's, with its answer one click away.
    assert "The judge (mockllm/model) answered on attempt 1 of 1; the scores were read from this answer" in scoring
    assert "[Overall Accuracy Score]: 0.60" in scoring
    assert screenshot.stat().st_size > 0
