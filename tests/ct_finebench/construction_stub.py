"""Helpers for construction tests whose judge is the local OpenAI-compatible stub server."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal

import pytest

from radiology_tasks.cli import main
from tests.openai_stub import StubReply, StubServer, openai_stub

MODEL = "openai-api/stubsvc/x"
REPORT = re.compile(r"<report>\n(.*?)\n</report>", re.S)
FINDING = re.compile(r"^(f\d+): (.*)$", re.M)
QUESTION = re.compile(r"^(a\d+): .* \(finding: ([^;]+); attribute: ([^;)]+)", re.M)

Kind = Literal["triplets", "existence", "attributes"]


def prompt_of(body: dict[str, Any]) -> str:
    """The text of the prompt in a request body."""
    return body["messages"][-1]["content"]


def kind(body: dict[str, Any]) -> Kind:
    """Which construction prompt a request holds."""
    prompt = prompt_of(body)
    if "## What to list" in prompt:
        return "triplets"
    return "existence" if "## Statuses" in prompt else "attributes"


def report_in(body: dict[str, Any]) -> str:
    """The report as placed in a construction prompt."""
    (text,) = REPORT.findall(prompt_of(body))
    return text


def findings_in(body: dict[str, Any]) -> dict[str, str]:
    """``id -> finding name`` of an existence prompt (aliases and descriptions cut off)."""
    return {key: line.split(" (also written as")[0].split(". ")[0] for key, line in FINDING.findall(prompt_of(body))}


def questions_in(body: dict[str, Any]) -> dict[str, tuple[str, str]]:
    """``id -> (finding, attribute)`` of an attribute prompt."""
    return {key: (finding, attribute) for key, finding, attribute in QUESTION.findall(prompt_of(body))}


def triplets(*items: tuple[str, str, str]) -> str:
    """A triplet answer holding these (finding, attribute, value) in order."""
    keys = ("finding", "attribute", "value")
    return json.dumps({f"t{n}": dict(zip(keys, item)) for n, item in enumerate(items, start=1)})


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """The lines of a JSONL file."""
    # Newlines only: a JSON string may hold U+2028, which str.splitlines would cut at.
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


@contextmanager
def serving(
    monkeypatch: pytest.MonkeyPatch, reply: Callable[[dict[str, Any]], str | StubReply]
) -> Iterator[StubServer]:
    """Run the stub as the service of `MODEL` while the block runs."""
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        yield server


def cli(*args: str | Path) -> int:
    """Run `radiology-tasks` with these arguments; the exit code."""
    return main([str(arg) for arg in args])
