"""A changed data, candidates or reports file is refused naming that file as the run gave it, with both SHA-256."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from radiology_tasks.core.tables import file_sha256
from radiology_tasks.core.task_data import DataOptions, data_fingerprint
from radiology_tasks.leaderboard import checks
from tests.leaderboard.memory_runs import memory_run, write_pairs


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    data = write_pairs(tmp_path)
    candidates = tmp_path / "candidates.jsonl"
    candidates.write_text("".join(json.dumps({"id": f"s{i}", "candidate": f"candidate s{i}"}) + "\n" for i in range(4)))
    reports = tmp_path / "reports.jsonl"
    reports.write_text(json.dumps({"id": "s0", "report": "A report."}) + "\n")
    return data, candidates, reports


def test_each_changed_file_is_named_with_its_sha256_then_and_now(tmp_path: Path) -> None:
    data, candidates, reports = _files(tmp_path)
    recorded = data_fingerprint(DataOptions(str(data), str(candidates)))
    args = {"prompt": "vert", "data": str(data), "candidates": str(candidates), "reports": str(reports)}
    run = memory_run(data, task_args=args, metadata={**memory_run(data).metadata, "data": {"fingerprint": recorded}})
    for path in (data, candidates):
        path.write_text(path.read_text() + "\n")
    lines = checks.run_violations(replace(run, task_args={k: v for k, v in args.items() if k != "reports"}))
    then, now = recorded["data_sha256"], file_sha256(data)
    assert f"data {data} changed since the run (data_sha256 {then} in the log, {now} here)" in lines
    then, now = recorded["candidates_sha256"], file_sha256(candidates)
    assert (
        f"candidates file {candidates} changed since the run (candidates_sha256 {then} in the log, {now} here)" in lines
    )
    # Reports go with question datasets only; the line names the reports file the run gave.
    assert checks._changed_line("reports_sha256", run, "a" * 64, "b" * 64) == (
        f"reports file {reports} changed since the run (reports_sha256 {'a' * 64} in the log, {'b' * 64} here)"
    )


def test_a_bundled_dataset_is_named_by_its_registered_name(tmp_path: Path) -> None:
    data = write_pairs(tmp_path)
    fingerprint = {**data_fingerprint(DataOptions("demo")), "data_sha256": "0" * 64}
    run = memory_run(
        data, task_args={"prompt": "vert"}, metadata={**memory_run(data).metadata, "data": {"fingerprint": fingerprint}}
    )
    now = data_fingerprint(DataOptions("demo"))["data_sha256"]
    assert f"data demo changed since the run (data_sha256 {'0' * 64} in the log, {now} here)" in checks.run_violations(
        run
    )
