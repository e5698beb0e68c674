"""Check a written ``export-sft`` folder from its files alone.

`reference_leaks` reads the reference report out of every conversation's user turn and names each reference
text (whitespace and case folded) that sits in more than one file, with the file and row of every place it
occurs; a conversation without a reference report is a problem too, since it cannot be checked. Both kinds of
export (expert-rated pairs and ``--variants``) run it on what they have just written and refuse a folder that
fails it.

`check_export` checks a whole folder. A ``--variants`` folder (one with ``manifest.json``) is re-read with its
``.known.jsonl`` records: each file must have the SHA-256 and the number of conversations the manifest states,
every assistant turn must read back with the task's reader (`read_scores`, or the first pass's JSON reader) to
exactly the counts its record states, and no reference may be in both files, by file and ``source_id`` or by
text. A folder of expert-rated pairs (no manifest) gets the reference check. Run it again on a copy before
training on it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.records import ErrorCounts
from radiology_tasks.judge_sensitivity.variant_sft import KnownLine, PromptSettings
from radiology_tasks.judge_sensitivity.variant_split import file_sha256, report_key
from radiology_tasks.scorers.judge_sensitivity.answers import Differences, read_json_answer
from radiology_tasks.scorers.report_judge.parse import AssessmentFormatError
from radiology_tasks.scorers.report_judge.reading import read_scores

_REPORT = {side: re.compile(rf"<{side}_report>\n(.*?)\n</{side}_report>", re.S) for side in ("reference", "candidate")}


@dataclass
class ExportCheck:
    """What `check_export` found.

    Attributes:
        conversations: Conversations read.
        problems: One line per problem; empty when the folder passes.
    """

    conversations: int = 0
    problems: list[str] = field(default_factory=list)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


SPLIT_FILES = ("train", "validation")
"""The files every export writes, as ``<name>.jsonl``."""

_EXCERPT = 60


def _excerpt(text: str) -> str:
    folded = " ".join(text.split())
    return folded if len(folded) <= _EXCERPT else folded[: _EXCERPT - 3] + "..."


def reference_leaks(files: Mapping[str, Path]) -> list[str]:
    """One line per reference text found in more than one of `files` (name -> path), and per unreadable row.

    Rows are counted from 1. A reference is compared as `report_key` folds it; the line quotes its start and
    names every file and row that holds it.
    """
    problems: list[str] = []
    places: dict[str, dict[str, list[int]]] = {}
    texts: dict[str, str] = {}
    for name, path in files.items():
        for row, conversation in enumerate(_read_jsonl(path), start=1):
            user = next((m["content"] for m in conversation.get("messages", []) if m.get("role") == "user"), "")
            found = _REPORT["reference"].search(user)
            if found is None:
                problems.append(f"{path.name} row {row}: the user turn holds no reference report to check")
                continue
            key = report_key(found.group(1))
            texts.setdefault(key, found.group(1))
            places.setdefault(key, {}).setdefault(name, []).append(row)
    for key, where in places.items():
        if len(where) > 1:
            rows = "; ".join(
                f"{files[name].name} row{'s' if len(numbers) > 1 else ''} {', '.join(map(str, numbers))}"
                for name, numbers in where.items()
            )
            problems.append(f"reference {_excerpt(texts[key])!r} is in more than one file: {rows}")
    return problems


def _target_problem(user: str, assistant: str, record: KnownLine, settings: PromptSettings) -> str | None:
    """Why `assistant` does not state what `record` says the variant was made with, or None."""
    if record.step == "differences":
        listed = read_json_answer(assistant, Differences).value
        if listed is None or len(listed.differences) != record.n_errors:
            return f"the differences do not list its {record.n_errors} changes"
        return None
    candidate = _REPORT["candidate"].search(user)
    reading = read_scores(assistant, prompt=settings.prompt, candidate=candidate.group(1) if candidate else None)
    main = None if settings.prompt == "green" else settings.prompt
    if main is not None and reading.values.get(main) != float(record.score):
        return f"{main} reads {reading.values.get(main)}, recorded {record.score}"
    if main == "score":
        return None
    parts = reading.parts
    if parts is None or any(isinstance(p, AssessmentFormatError) for p in (parts.significant, parts.matched)):
        return f"the counts do not read: {reading.problems}"
    stated = (parts.significant, parts.insignificant, parts.matched)
    recorded = (ErrorCounts.model_validate(record.errors), ErrorCounts(), record.matched)
    if stated != recorded:
        return f"reads {stated}, recorded {recorded}"
    return None


def check_export(out_dir: str | Path) -> ExportCheck:
    """Check an export folder (see the module docstring); problems are returned, not raised."""
    out = Path(out_dir)
    if not (out / "manifest.json").exists():
        files = {name: out / f"{name}.jsonl" for name in SPLIT_FILES}
        return ExportCheck(sum(len(_read_jsonl(path)) for path in files.values()), reference_leaks(files))
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    prompt = manifest["prompt"]
    settings = PromptSettings(prompt=prompt["prompt"], detail=prompt["detail"], passes=prompt["passes"])
    check = ExportCheck()
    where: dict[tuple[str, str], set[str]] = {}
    for name in SPLIT_FILES:
        split = manifest["splits"][name]
        path = out / split["file"]
        if file_sha256(path) != split["sha256"]:
            check.problems.append(f"{path.name}: its SHA-256 is not the manifest's")
        conversations = _read_jsonl(path)
        records = [KnownLine.model_validate(line) for line in _read_jsonl(out / split["known_file"])]
        if not len(conversations) == len(records) == split["examples"]:
            check.problems.append(
                f"{path.name}: {len(conversations)} conversations, {len(records)} records, "
                f"{split['examples']} in the manifest"
            )
        for line, (conversation, record) in enumerate(zip(conversations, records), start=1):
            check.conversations += 1
            user, assistant = (message["content"] for message in conversation["messages"])
            problem = _target_problem(user, assistant, record, settings)
            if problem:
                check.problems.append(f"{path.name} line {line} ({record.variant_id}): {problem}")
            where.setdefault((record.file, record.source_id), set()).add(name)
    leaked = sorted(source for (_, source), splits in where.items() if len(splits) > 1)
    check.problems += [f"reference {source} is in both files" for source in leaked]
    check.problems += reference_leaks({name: out / manifest["splits"][name]["file"] for name in SPLIT_FILES})
    return check
