"""Inspect's own log viewer (`inspect view`) serves a redacted bundle's log, with hashes where the texts were.

The viewer runs as users start it, on the bundle's `logs` folder; its HTTP API (what the viewer's page reads)
lists the log and returns it whole.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle
from radiology_tasks.leaderboard.redact import text_hash
from tests.leaderboard.runs import REFERENCES, SYSTEM_A, run_task, scripted_judge, write_data

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(address: str) -> bytes:
    with urllib.request.urlopen(address, timeout=30) as response:
        assert response.status == 200
        return bytes(response.read())


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The address of `inspect view` serving a redacted bundle's logs, and the bundled log."""
    directory = tmp_path_factory.mktemp("viewer")
    data = write_data(directory)
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch):
        log = run_task(directory / "runs", data=str(data))
    bundle = directory / "bundle"
    write_bundle([log], bundle, SystemCard(name="demo"), redact=True)
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "inspect_ai", "view", "--log-dir", str(bundle / "logs")]
        + ["--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    address = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                _get(address + "/")
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise RuntimeError("inspect view did not start") from None
                time.sleep(0.5)
        yield address, bundle / "logs" / log.name
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_inspect_view_lists_and_serves_the_redacted_log_with_its_hashes(served):
    address, bundled = served
    listed = json.loads(_get(f"{address}/api/log-files"))
    (name,) = [entry["name"] for entry in listed["files"]]
    assert name.endswith(bundled.name)
    body = _get(f"{address}/api/logs/{urllib.parse.quote(name)}").decode()
    served_log = json.loads(body)
    targets = {sample["target"] for sample in served_log["samples"]}
    assert targets == {sample.target for sample in read_eval_log(str(bundled)).samples}
    assert targets == {text_hash(reference) for reference in REFERENCES.values()}
    for text in [*REFERENCES.values(), *SYSTEM_A.values()]:
        assert text not in body
