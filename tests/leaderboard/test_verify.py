"""`radiology-tasks verify BUNDLE --data/--logs`: an honest redacted bundle passes; a changed hash is named."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

from radiology_tasks.cli import main
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle
from radiology_tasks.leaderboard.redact import text_hash
from radiology_tasks.leaderboard.verify import verify_bundle
from tests.leaderboard.runs import run_task, scripted_judge, write_data

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(redacted bundle, data, original log) of a vert run."""
    directory = tmp_path_factory.mktemp("verify")
    data = write_data(directory)
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch):
        log = run_task(directory / "logs", data=str(data))
    bundle = directory / "bundle"
    write_bundle([log], bundle, SystemCard(name="demo"), redact=True)
    return bundle, data, log


def tampered(bundle: Path, out: Path, change: Callable[[EvalLog], None]) -> Path:
    """A copy of `bundle` whose log `change` edits, with the manifest's SHA-256 made to match (as a forger would)."""
    shutil.copytree(bundle, out)
    manifest = json.loads((out / "manifest.json").read_text())
    entry = manifest["runs"][0]
    path = out / entry["log"]
    log = read_eval_log(str(path))
    change(log)
    write_eval_log(log, str(path))
    entry["sha256"] = file_sha256(path)
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out


def test_an_honest_bundle_passes_against_the_data_and_the_original_logs(honest):
    bundle, data, log = honest
    assert verify_bundle(bundle, data=data) == []
    assert verify_bundle(bundle, originals=[log.parent]) == []
    assert verify_bundle(bundle, data=data, originals=[log]) == []


def test_a_changed_reference_hash_is_named_by_sample_and_field(honest, tmp_path):
    bundle, data, log = honest
    ids = [str(s.id) for s in read_eval_log(str(log)).samples]

    def change(edited: EvalLog) -> None:
        edited.samples[2].target = text_hash("Another reference.")

    forged = tampered(bundle, tmp_path / "forged", change)
    name = f"logs/{log.name}"
    assert verify_bundle(forged, data=data) == [
        f"{name}: sample {ids[2]}: target (the reference) is not the data's reference"
    ]
    lines = verify_bundle(forged, originals=[log])
    assert lines == [f"{name}: sample {ids[2]}: target differs from the original log's"]


def test_a_changed_answer_hash_is_named_by_sample_and_field(honest, tmp_path):
    bundle, data, log = honest
    ids = [str(s.id) for s in read_eval_log(str(log)).samples]

    def change(edited: EvalLog) -> None:
        edited.samples[1].scores["report_judge"].metadata["judge_answer"] = text_hash("another answer")

    forged = tampered(bundle, tmp_path / "forged", change)
    assert verify_bundle(forged, data=data) == [], "the data holds no judge answers"
    assert verify_bundle(forged, originals=[log]) == [
        f"logs/{log.name}: sample {ids[1]}: scores.report_judge.metadata.judge_answer differs from the original log's"
    ]


def test_a_changed_parsed_answer_is_named(honest, tmp_path):
    bundle, _, log = honest
    ids = [str(s.id) for s in read_eval_log(str(log)).samples]

    def change(edited: EvalLog) -> None:
        edited.samples[0].scores["report_judge"].metadata["parsed_answers"]["values"]["vert"] = 0.1

    forged = tampered(bundle, tmp_path / "forged", change)
    assert verify_bundle(forged, originals=[log]) == [
        f"logs/{log.name}: sample {ids[0]}: scores.report_judge.metadata.parsed_answers.values.vert differs from "
        "the original log's"
    ]


def test_data_that_lacks_a_sample_or_is_another_set_is_named(honest, tmp_path):
    bundle, data, log = honest
    rows = data.read_text().splitlines()
    fewer = tmp_path / "pairs.jsonl"
    fewer.write_text("\n".join(rows[1:]) + "\n")
    first = json.loads(rows[0])["id"]
    assert verify_bundle(bundle, data=fewer) == [f"logs/{log.name}: sample {first}: not in the data at {fewer}"]


def test_without_the_original_log_the_bundle_says_which_it_needs(honest, tmp_path):
    bundle, _, log = honest
    other = tmp_path / "other.eval"
    other.write_bytes(b"not this log")
    source = file_sha256(log)
    assert verify_bundle(bundle, originals=[other]) == [
        f"logs/{log.name}: no original log given has its source SHA-256 {source}"
    ]


def test_the_command_exits_non_zero_naming_the_sample_and_zero_when_honest(honest, tmp_path, capsys):
    bundle, data, log = honest
    assert main(["verify", str(bundle), "--data", str(data), "--logs", str(log)]) == 0
    assert "matches" in capsys.readouterr().out

    def change(edited: EvalLog) -> None:
        edited.samples[0].target = text_hash("Another reference.")

    forged = tampered(bundle, tmp_path / "forged", change)
    assert main(["verify", str(forged), "--data", str(data)]) == 1
    sample_id = str(read_eval_log(str(log)).samples[0].id)
    assert f"sample {sample_id}: target (the reference) is not the data's reference" in capsys.readouterr().err
    assert main(["verify", str(bundle)]) == 2
    assert "give --data (the dataset) or --logs" in capsys.readouterr().err


def test_a_changed_candidate_hash_is_named_against_the_data_and_the_original(honest, tmp_path):
    bundle, data, log = honest
    ids = [str(s.id) for s in read_eval_log(str(log)).samples]

    def change(edited: EvalLog) -> None:
        edited.samples[3].scores["report_judge"].answer = text_hash("A better candidate.")

    forged = tampered(bundle, tmp_path / "forged", change)
    name = f"logs/{log.name}"
    assert verify_bundle(forged, data=data) == [
        f"{name}: sample {ids[3]}: the score's answer (the candidate) is not the data's candidate"
    ]
    assert verify_bundle(forged, originals=[log]) == [
        f"{name}: sample {ids[3]}: scores.report_judge.answer differs from the original log's"
    ]


def test_a_bundled_log_that_is_missing_or_unreadable_data_is_named(honest, tmp_path):
    bundle, _, log = honest
    copy = tmp_path / "copy"
    shutil.copytree(bundle, copy)
    (copy / "logs" / log.name).unlink()
    assert verify_bundle(copy, data=tmp_path / "none.jsonl") == [
        f"logs/{log.name}: missing, or not the file the manifest names (SHA-256)"
    ]
    (lines,) = [verify_bundle(bundle, data=tmp_path / "none.jsonl")]
    assert len(lines) == 1 and lines[0].startswith(f"logs/{log.name}: the data cannot be read from {tmp_path}")
