"""`radiology-tasks submit` into a folder that is not empty: it says how to proceed, and `--replace` replaces a
bundle (only a bundle) without touching it when the new submission is refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.cli import main
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from tests.leaderboard.runs import edited, run_task, scripted_judge, write_data

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("replace")
    data = write_data(directory)
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch):
        return run_task(directory / "logs", data=str(data))


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_folder_that_is_not_empty_is_refused_saying_how_to_proceed(log, tmp_path, capsys):
    out = tmp_path / "bundles" / "system-a"
    out.mkdir(parents=True)
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ValueError) as refused:
        write_bundle([log], out, SystemCard())
    assert str(refused.value) == (
        f"{out} is not empty; give a new directory, or --replace to replace the submission bundle there"
    )
    assert main(["submit", str(log), "--out", str(out)]) == 2
    assert "give a new directory, or --replace" in capsys.readouterr().err
    assert _files(out) == {"notes.txt": b"mine"}


def test_replace_replaces_a_bundle(log, tmp_path):
    out = tmp_path / "system-a"
    write_bundle([log], out, SystemCard(name="first"))
    (out / "logs" / "old.eval").write_bytes(b"a log of the first submission")
    assert main(["submit", str(log), "--out", str(out), "--system", "second", "--replace"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["system"]["name"] == "second"
    assert sorted(_files(out)) == ["logs/" + log.name, "manifest.json"], "nothing of the old bundle is left"
    assert [p.name for p in tmp_path.iterdir()] == ["system-a"], "no working folder is left beside it"


def test_replace_refuses_a_folder_that_is_not_a_bundle(log, tmp_path):
    out = tmp_path / "home"
    (out / "logs").mkdir(parents=True)
    (out / "logs" / "precious.eval").write_bytes(b"not mine to delete")
    with pytest.raises(ValueError) as refused:
        write_bundle([log], out, SystemCard(), replace=True)
    assert str(refused.value).startswith(f"--replace replaces a submission bundle only, and {out} is not one: ")
    assert _files(out) == {"logs/precious.eval": b"not mine to delete"}


def test_replace_refuses_a_bundle_holding_more_than_a_bundle(log, tmp_path):
    out = tmp_path / "system-a"
    write_bundle([log], out, SystemCard(name="first"))
    (out / "paper.pdf").write_bytes(b"the submitter's paper")
    before = _files(out)
    with pytest.raises(ValueError) as refused:
        write_bundle([log], out, SystemCard(name="second"), replace=True)
    assert str(refused.value) == f"--replace replaces a submission bundle only, and {out} holds more (paper.pdf)"
    assert _files(out) == before


def test_a_refused_submission_leaves_the_bundle_it_would_replace(log, tmp_path):
    out = tmp_path / "system-a"
    write_bundle([log], out, SystemCard(name="first"))
    before = _files(out)

    def forge(edited_log: EvalLog) -> None:
        score = edited_log.samples[0].scores["report_judge"]
        score.value = {**score.value, "vert": 1.0}

    forged = edited(log, forge, "forged.eval")
    with pytest.raises(SubmissionRefused):
        write_bundle([forged], out, SystemCard(name="second"), replace=True)
    assert _files(out) == before
    assert [p.name for p in tmp_path.iterdir()] == ["system-a"]


def test_an_empty_folder_and_a_new_one_need_no_replace(log, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    write_bundle([log], empty, SystemCard())
    write_bundle([log], tmp_path / "new" / "system", SystemCard())
    assert (empty / "manifest.json").is_file() and (tmp_path / "new" / "system" / "manifest.json").is_file()
