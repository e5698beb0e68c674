"""Runs of every submittable judge family on demo data marked credentialed, and a search of a bundle for texts.

The judges are scripted behind the local OpenAI-compatible stub; the data are the demo sets (the flat layout),
marked credentialed in memory for the duration of a test (`credentialed_flat`).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log

from radiology_tasks.core.layouts import FLAT, all_layouts
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity
from radiology_tasks.ran_score.tasks import ran_score
from tests.conftest import write_jsonl
from tests.ct_finebench.test_rescoring import oracle
from tests.judge_answers import assessment
from tests.judge_sensitivity.test_task import REFERENCES, ROLES, stub
from tests.leaderboard.runs import run_task, scripted_judge, write_data
from tests.ran_score.test_rescoring import whole_reply

JUDGE = "openai-api/stubsvc/stub-judge"
WINDOW = 8


def mark_flat_credentialed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make the flat layout (the demo sets') a credentialed dataset's until the test ends."""
    monkeypatch.setitem(all_layouts(), "flat", replace(FLAT, credentialed=True))


def _run(task: Task, log_dir: Path, roles: dict[str, str] | None = None) -> Path:
    roles = roles or {"grader": JUDGE}
    (log,) = inspect_eval(task, model="none", model_roles=roles, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    return Path(log.location)


def family_runs(directory: Path) -> dict[str, Path]:
    """One clean, whole run each of vert, green, ct_finebench, ran_score and judge_sensitivity on demo data, by
    task."""
    data = write_data(directory)
    logs = directory / "logs"
    with pytest.MonkeyPatch.context() as monkeypatch:
        with scripted_judge(monkeypatch):
            runs = {
                "vert": run_task(logs, data=str(data)),
                "green": run_task(logs, task="green", data=str(data)),
            }
        with scripted_judge(monkeypatch, oracle):
            runs["ct_finebench"] = _run(ct_finebench(), logs)
        with scripted_judge(monkeypatch, whole_reply):
            runs["ran_score"] = _run(ran_score(label_cache="off"), logs)
        rows = [{"id": k, "reference": v, "modality": "CT", "anatomy": "chest"} for k, v in REFERENCES.items()]
        references = write_jsonl(directory / "references.jsonl", rows)
        # Every variant is scored (the hand-worked judge of the family's own tests leaves one unscored on purpose).
        with scripted_judge(monkeypatch, stub(lambda prompt: assessment({"b": len(prompt) % 2}, 3, 0.7))):
            runs["judge_sensitivity"] = _run(judge_sensitivity(data=str(references)), logs, ROLES)
    return runs


def secret_texts(logs: Iterable[Path]) -> set[str]:
    """Every reference, candidate and judge answer of the logs (as the original logs hold them)."""
    texts: set[str] = set()
    for path in logs:
        for sample in read_eval_log(str(path), resolve_attachments=True).samples or []:
            targets = sample.target if isinstance(sample.target, list) else [sample.target]
            texts.update(targets)
            texts.update(score.answer for score in (sample.scores or {}).values() if score.answer)
            for event in sample.events:
                if event.event == "model" and event.output is not None:
                    texts.add(event.output.completion)
    return {text.strip() for text in texts if text and text.strip()}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _contents(path: Path) -> Iterator[tuple[str, str]]:
    """(name, text) of a file, and of every member of it when it is a zip archive (an `.eval` log), decompressed;
    a JSON text is given again as its decoded strings, so escapes (``\\n``, ``\\u00e9``) hide nothing."""
    blobs = [(str(path), path.read_bytes())]
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            blobs += [(f"{path}!{name}", archive.read(name)) for name in archive.namelist()]
    for name, blob in blobs:
        text = blob.decode("utf-8", errors="replace")
        yield name, text
        try:
            decoded = json.loads(text)
        except ValueError:
            continue
        yield f"{name} (decoded)", "\n".join(_strings(decoded))


def _windows(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + WINDOW]) for i in range(len(words) - WINDOW + 1)}


def leaks(folder: Path, texts: set[str]) -> list[str]:
    """Where a file of `folder` (or a member of an archive in it) holds one of `texts` or `WINDOW` consecutive
    words of one, one line per file and text."""
    wanted = {window: text for text in texts for window in _windows(text.split())}
    found = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        for name, content in _contents(path):
            whole = [text for text in texts if text in content]
            windows = {wanted[w] for w in _windows(content.split()) if w in wanted}
            found += [f"{name}: {text[:60]!r}" for text in sorted(set(whole) | windows)]
    return found
