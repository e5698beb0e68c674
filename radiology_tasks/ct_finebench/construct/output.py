"""A JSONL output that grows one line per finished report and picks up where an earlier run stopped.

Every line has the report's ``id`` and a ``construction`` object whose ``key`` says what the line was made
from (the report text's hash, and for step 3 the schema's) and whose ``status`` is ``ok`` or ``failed``
(then with ``reason`` and ``detail``). When a run starts, the file is rewritten with only the lines that are
still good: ``ok`` lines of reports in the input whose key still matches. Failure lines, lines of edited
reports, of reports no longer in the input, and a line cut short by an interrupted write are dropped, so
those reports are done again and the file holds at most one line per report. When a run finishes, the lines
are put in input order (`ResumableOutput.order`), so the file does not depend on which call finished first.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

OK = "ok"
FAILED = "failed"


@dataclass(frozen=True)
class Resumed:
    """What an output file held when the run started.

    Attributes:
        kept: Reports whose lines are kept (not done again).
        failed: Failure lines dropped (retried now).
        stale: Lines of edited reports (or of another schema) dropped.
        not_in_input: Lines of reports no longer in the input, dropped.
        unreadable: Lines that were not a JSON object with an id and a construction key, dropped.
    """

    kept: frozenset[str] = frozenset()
    failed: int = 0
    stale: int = 0
    not_in_input: int = 0
    unreadable: int = 0

    @property
    def dropped(self) -> int:
        """Lines dropped when the run started."""
        return self.failed + self.stale + self.not_in_input + self.unreadable

    def describe(self) -> str:
        """One line for the console, e.g. ``resuming: 3 reports done earlier; 1 failure line retried``."""
        parts = [f"{len(self.kept)} reports done earlier"]
        for count, what in (
            (self.failed, "failure lines retried"),
            (self.stale, "lines of edited reports (or of another schema) redone"),
            (self.not_in_input, "lines of reports not in the input dropped"),
            (self.unreadable, "unreadable lines dropped"),
        ):
            if count:
                parts.append(f"{count} {what}")
        return "resuming: " + "; ".join(parts)


def _line_key(line: Any) -> tuple[str, str, str] | None:
    """``(id, key, status)`` of a well-formed line, else None."""
    if not isinstance(line, dict) or not isinstance(line.get("construction"), dict):
        return None
    construction = line["construction"]
    report_id, key, status = line.get("id"), construction.get("key"), construction.get("status")
    if report_id is None or not isinstance(key, str) or status not in (OK, FAILED):
        return None
    return str(report_id).strip(), key, status


class ResumableOutput:
    """The output file of one construction step (see the module docstring).

    Use it as a context manager after `start`: `append` writes and flushes one line.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file: IO[str] | None = None

    def start(self, keys: Mapping[str, str], *, restart: bool) -> Resumed:
        """Keep the lines still good for `keys` (``report id -> key``), or empty the file with `restart`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if restart or not self.path.exists():
            self.path.write_text("", encoding="utf-8")
            return Resumed()
        kept: dict[str, str] = {}
        counts = {"failed": 0, "stale": 0, "not_in_input": 0, "unreadable": 0}
        content = self.path.read_text(encoding="utf-8")
        # Split on newlines only: str.splitlines would also cut at U+2028, which JSON strings may hold unescaped.
        for text in content.split("\n"):
            if not text.strip():
                continue
            try:
                parsed = _line_key(json.loads(text))
            except json.JSONDecodeError:
                parsed = None
            if parsed is None:
                counts["unreadable"] += 1
                continue
            report_id, key, status = parsed
            if report_id not in keys:
                counts["not_in_input"] += 1
            elif status == FAILED:
                counts["failed"] += 1
            elif key != keys[report_id] or report_id in kept:
                counts["stale"] += 1
            else:
                kept[report_id] = text + "\n"
        # A run stopped between a line and its newline left a line the next one would be glued to.
        if any(counts.values()) or (content and not content.endswith("\n")):
            self._replace(kept.values())
        return Resumed(kept=frozenset(kept), **counts)

    def _replace(self, lines: Iterable[str]) -> None:
        # Written beside the output and moved over it, so an interruption never loses the kept lines.
        partial = self.path.with_name(self.path.name + ".partial")
        partial.write_text("".join(lines), encoding="utf-8")
        os.replace(partial, self.path)

    def order(self, ids: Sequence[str]) -> None:
        """Rewrite the file with its lines in the order of `ids` (lines of other ids, if any, last)."""
        position = {report_id: index for index, report_id in enumerate(ids)}
        with self.path.open(encoding="utf-8") as file:
            lines = [text for text in file if text.strip()]

        def rank(text: str) -> int:
            parsed = _line_key(json.loads(text))
            return position.get(parsed[0], len(ids)) if parsed is not None else len(ids)

        self._replace(sorted(lines, key=rank))

    def __enter__(self) -> ResumableOutput:
        self._file = self.path.open("a", encoding="utf-8")
        return self

    def __exit__(self, *exc: object) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    def append(self, line: dict[str, Any]) -> None:
        """Write one report's line and flush it, so it survives an interruption of the run."""
        if self._file is None:
            raise RuntimeError("ResumableOutput.append outside its context")
        self._file.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._file.flush()


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The well-formed lines of a construction output (a line cut short by an interruption is skipped)."""
    lines = []
    with path.open(encoding="utf-8") as file:
        for text in file:
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                continue
            if _line_key(line) is not None:
                lines.append(line)
    return lines
