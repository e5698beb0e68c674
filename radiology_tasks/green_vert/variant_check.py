"""Check a written ``export-sft --variants`` folder from its files alone.

`check_export` re-reads the manifest, the training files and their ``.known.jsonl`` records, and checks that
each file has the SHA-256 and the number of conversations the manifest states, that every assistant turn reads
back with the task's reader (`read_scores`, or the first pass's JSON reader) to exactly the counts its record
states, and that no reference (by file and ``source_id``, or by text) is in both files. The export runs it on
what it has just written; run it again on a copy before training on it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.records import ErrorCounts
from radiology_tasks.green_vert.variant_sft import PromptSettings
from radiology_tasks.green_vert.variant_split import file_sha256, report_key
from scorers.green_vert.parse import AssessmentFormatError
from scorers.green_vert.reading import read_scores
from scorers.judge_sensitivity.answers import Differences, read_json_answer

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


def _target_problem(user: str, assistant: str, record: dict[str, Any], settings: PromptSettings) -> str | None:
    """Why `assistant` does not state what `record` says the variant was made with, or None."""
    if record["step"] == "differences":
        listed = read_json_answer(assistant, Differences).value
        if listed is None or len(listed.differences) != record["n_errors"]:
            return f"the differences do not list its {record['n_errors']} changes"
        return None
    candidate = _REPORT["candidate"].search(user)
    reading = read_scores(assistant, prompt=settings.prompt, candidate=candidate.group(1) if candidate else None)
    main = None if settings.prompt == "green" else settings.prompt
    if main is not None and reading.values.get(main) != float(record["score"]):
        return f"{main} reads {reading.values.get(main)}, recorded {record['score']}"
    if main == "score":
        return None
    parts = reading.parts
    if parts is None or any(isinstance(p, AssessmentFormatError) for p in (parts.significant, parts.matched)):
        return f"the counts do not read: {reading.problems}"
    stated = (parts.significant, parts.insignificant, parts.matched)
    recorded = (ErrorCounts.model_validate(record["errors"]), ErrorCounts(), record["matched"])
    if stated != recorded:
        return f"reads {stated}, recorded {recorded}"
    return None


def check_export(out_dir: str | Path) -> ExportCheck:
    """Check an export folder (see the module docstring); problems are returned, not raised."""
    out = Path(out_dir)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    prompt = manifest["prompt"]
    settings = PromptSettings(prompt=prompt["prompt"], detail=prompt["detail"], passes=prompt["passes"])
    check = ExportCheck()
    where: dict[tuple[str, ...], set[str]] = {}
    names: dict[tuple[str, ...], str] = {}
    for name in ("train", "validation"):
        split = manifest["splits"][name]
        path = out / split["file"]
        if file_sha256(path) != split["sha256"]:
            check.problems.append(f"{path.name}: its SHA-256 is not the manifest's")
        conversations, records = _read_jsonl(path), _read_jsonl(out / split["known_file"])
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
                check.problems.append(f"{path.name} line {line} ({record['variant_id']}): {problem}")
            reference = _REPORT["reference"].search(user)
            text = report_key(reference.group(1)) if reference else f"line {line} of {path.name}"
            for key in (("id", record["file"], record["source_id"]), ("text", text)):
                where.setdefault(key, set()).add(name)
                names.setdefault(key, record["source_id"])
    leaked = sorted({names[key] for key, splits in where.items() if len(splits) > 1})
    check.problems += [f"reference {source} is in both files" for source in leaked]
    return check
