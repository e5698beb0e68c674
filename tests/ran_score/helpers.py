"""Judge answers, label tables and prompt parsing for the Ran Score tests."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Mapping
from pathlib import Path

from radiology_tasks.ran_score.taxonomy import load_taxonomy

TAXONOMY = load_taxonomy()
ASKED = [label.key for label in TAXONOMY.asked]
COLUMNS = TAXONOMY.columns
KEY_OF = {label.column: label.key for label in TAXONOMY.labels}
REPORT = re.compile(r"<report>\n(.*?)\n</report>", re.S)
ASKED_KEY = re.compile(r"^- ([a-z_]+) \(", re.M)


def batch_answer(positives: Mapping[str, str], keys: list[str] = ASKED) -> str:
    """A well-formed batch answer: the labels in `positives` (key -> evidence) are 1, the others 0."""
    return json.dumps(
        {k: {"present": 1, "evidence": positives[k]} if k in positives else {"present": 0} for k in keys},
        ensure_ascii=False,
    )


def label_answer(evidence: str | None) -> str:
    """A well-formed per-label answer: present with `evidence`, or absent when None."""
    return json.dumps({"present": 0} if evidence is None else {"present": 1, "evidence": evidence}, ensure_ascii=False)


def report_in(body: dict) -> str:
    """The report as it appears in a judge prompt."""
    (text,) = REPORT.findall(body["messages"][-1]["content"])
    return text


def asked_keys(body: dict) -> list[str]:
    """The label keys a judge prompt asks about."""
    return ASKED_KEY.findall(body["messages"][-1]["content"])


def write_labels(path: Path, rows: Mapping[str, Mapping[str, int]], columns: list[str] = COLUMNS) -> Path:
    """A label table in the authors' layout; each row gives its 1s by column name, every other column is 0."""
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["study_id", *columns])
        for study, ones in rows.items():
            writer.writerow([study, *(ones.get(column, 0) for column in columns)])
    return path
