"""`radiology-tasks verify BUNDLE`: check a (redacted) submission bundle against the data, and the original logs.

A redacted bundle holds hashes where its logs held texts (`radiology_tasks.leaderboard.redact`). Whoever holds
the data checks that every hashed reference is the data's own, read with the task's own reader under the run's
recorded `-T` data settings (`--data` takes the place of the run's `-T data`, which names a path on the
submitter's machine). Whoever holds the original logs (the submitter, or an auditor given them) checks that the
bundle is exactly their redaction: every hashed candidate, judge answer and parsed answer, found again by
redacting the original with the same code, and that every stored judge answer of the original, read again with
the task's own reader, gives its logged score. Each line names the log, the sample and the field at fault.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from radiology_tasks.core.loading import load_options
from radiology_tasks.core.studies import as_run_used
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.leaderboard.bundle import parsed_answers_of
from radiology_tasks.leaderboard.checks import run_data_options
from radiology_tasks.leaderboard.evidence import RunEvidence, read_run
from radiology_tasks.leaderboard.manifest import read_bundle
from radiology_tasks.leaderboard.redact import HASH_PREFIX, REDACTION_KEY, redact_log, text_hash
from radiology_tasks.leaderboard.rescore import rescoring_violations

_SHOWN_FIELDS = 3


def _hashed(text: str | None) -> str | None:
    """The hash a redacted log holds for `text` (a text already hashed stays as it is)."""
    if text is None:
        return None
    return text if text.startswith(HASH_PREFIX) else text_hash(text)


def _replayed(run: RunEvidence) -> bool:
    """Whether the run's candidates are the data's own (not a candidates file, nor written by the model)."""
    return not run.task_args.get("candidates") and run.task_args.get("generate") not in (True, "true")


def data_lines(run: RunEvidence, data: Path, reports: Path | None = None) -> list[str]:
    """One line per sample whose hashed reference (or replayed candidate) is not the data's, or that the data
    lacks; the data is read from `data` (and `reports`, for question sets) with the run's other data settings."""
    recorded = run_data_options(run)
    options = DataOptions(
        **{
            **recorded.__dict__,
            "data": str(data),
            "candidates": None,
            "reports": str(reports) if reports is not None else recorded.reports,
        }
    )
    try:
        loaded = load_options(options)
    except Exception as error:  # noqa: BLE001 - any loading failure is the line it gives
        return [f"the data cannot be read from {data}: {error}"]
    pairs = {pair.id: pair for pair in as_run_used(loaded.pairs, run.metadata.get("data") or {})}
    lines = []
    for sample in run.samples:
        pair = pairs.get(sample.id)
        if pair is None:
            lines.append(f"sample {sample.id}: not in the data at {data}")
            continue
        if _hashed(sample.target) != _hashed(pair.reference):
            lines.append(f"sample {sample.id}: target (the reference) is not the data's reference")
        if _replayed(run) and pair.candidate is not None and _hashed(sample.candidate) != _hashed(pair.candidate):
            lines.append(f"sample {sample.id}: the score's answer (the candidate) is not the data's candidate")
    return lines


def _differences(bundled: Any, expected: Any, path: str) -> Iterator[str]:
    """The paths (``scores.report_judge.metadata.judge_answer``) where two dumped values differ."""
    if isinstance(bundled, Mapping) and isinstance(expected, Mapping):
        for key in sorted(set(bundled) | set(expected), key=str):
            yield from _differences(bundled.get(key), expected.get(key), f"{path}.{key}" if path else str(key))
    elif isinstance(bundled, list) and isinstance(expected, list) and len(bundled) == len(expected):
        for index, (left, right) in enumerate(zip(bundled, expected, strict=True)):
            yield from _differences(left, right, f"{path}[{index}]")
    elif bundled != expected and not _both_nan(bundled, expected):
        yield path or "(the whole value)"


def _both_nan(left: Any, right: Any) -> bool:
    """Whether both values are NaN (an undefined score), which equal each other here."""
    return isinstance(left, float) and isinstance(right, float) and math.isnan(left) and math.isnan(right)


def _samples(path: Path) -> dict[tuple[str, int], dict[str, Any]]:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path), resolve_attachments=True)
    return {(str(s.id), s.epoch): s.model_dump(exclude={"uuid"}) for s in log.samples or []}


def original_lines(bundled: Path, original: Path) -> list[str]:
    """Lines naming each sample and field of the bundled (redacted) log that is not the redaction of `original`,
    then every line the leaderboard's re-scoring gives for the original's stored judge answers."""
    run = read_run(original)
    reason = str((read_run(bundled).metadata.get(REDACTION_KEY) or {}).get("reason") or "")
    with tempfile.TemporaryDirectory() as folder:
        again = Path(folder) / bundled.name
        redact_log(original, again, reason, parsed_answers_of(run))
        expected = _samples(again)
    found = _samples(bundled)
    lines = []
    for key in sorted(set(found) | set(expected)):
        sample_id, epoch = key
        if key not in found or key not in expected:
            where = "the bundle" if key not in found else "the original log"
            lines.append(f"sample {sample_id} (epoch {epoch}): not in {where}")
            continue
        fields = list(_differences(found[key], expected[key], ""))
        if fields:
            shown = ", ".join(fields[:_SHOWN_FIELDS]) + (
                f" and {len(fields) - _SHOWN_FIELDS} more" if len(fields) > _SHOWN_FIELDS else ""
            )
            verb = "differs" if len(fields) == 1 else "differ"
            lines.append(f"sample {sample_id}: {shown} {verb} from the original log's")
    return lines + [f"original: {line}" for line in rescoring_violations(run)]


def _originals(paths: list[Path]) -> dict[str, Path]:
    """The given original logs (files, or folders searched for `.eval`/`.json` logs) by their SHA-256."""
    files = [p for path in paths for p in (sorted(path.rglob("*.eval")) + sorted(path.rglob("*.json")))] + [
        path for path in paths if path.is_file()
    ]
    return {file_sha256(path): path for path in files}


def verify_bundle(
    bundle: Path, *, data: Path | None = None, reports: Path | None = None, originals: list[Path] | None = None
) -> list[str]:
    """Every problem found in the bundle, one line each, prefixed with the bundled log's path; empty when it
    passes.

    Raises:
        ValueError: when `bundle` is not a submission bundle, or neither data nor original logs are given.
    """
    if data is None and not originals:
        raise ValueError("give --data (the dataset) or --logs (the original logs), or both: nothing to check against")
    read = read_bundle(bundle)
    by_sha = _originals(originals or [])
    lines = []
    for entry, log in zip(read.manifest.runs, read.logs, strict=True):
        prefix = entry.log
        if not log.is_file() or file_sha256(log) != entry.sha256:
            lines.append(f"{prefix}: missing, or not the file the manifest names (SHA-256)")
            continue
        run = read_run(log)
        if data is not None:
            lines += [f"{prefix}: {line}" for line in data_lines(run, data, reports)]
        if originals:
            source = entry.redaction.source_sha256 if entry.redaction else entry.sha256
            original = by_sha.get(source)
            if original is None:
                lines.append(f"{prefix}: no original log given has its source SHA-256 {source}")
            elif entry.redaction:
                lines += [f"{prefix}: {line}" for line in original_lines(log, original)]
            else:  # bundled whole: the same file, whose answers are read again
                lines += [f"{prefix}: original: {line}" for line in rescoring_violations(read_run(original))]
    return lines
