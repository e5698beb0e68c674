"""Boards key data by its layout and files, so a downloaded copy ranks with the hub revision it came from; a
submission's track must agree with the track its data was read on."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.leaderboard import board, bundle
from radiology_tasks.leaderboard.board import Settings, build_leaderboard, comparability
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.evidence import RunEvidence
from tests.leaderboard.memory_runs import scored_run, write_pairs

SHA = "e" * 64


def with_data(run: RunEvidence, data: str, fingerprint: dict, **summary: object) -> RunEvidence:
    """The run as if it had read `data`, with this fingerprint and data summary."""
    metadata = {**run.metadata, "data": {**summary, "fingerprint": fingerprint}}
    return replace(run, task_args={**run.task_args, "data": data}, metadata=metadata)


def fingerprint(origin: str, revision: str | None, layout: str | None = "radeval-expert", sha: str | None = SHA):
    return {"layout": layout, "origin": origin, "data_sha256": sha, "revision": revision, "reports_sha256": None}


def test_a_local_copy_and_its_hub_revision_are_one_dataset(tmp_path: Path) -> None:
    run = scored_run(write_pairs(tmp_path), [0.5, 0.6, 0.7, 0.8])
    hub = with_data(run, "radeval-expert", fingerprint("hub", "b4bd9d6"))
    local = with_data(run, "/data/RadEvalExpertDataset", fingerprint("local", None))
    assert hub.dataset_name == local.dataset_name == "radeval-expert"
    assert comparability(hub)["data revision"] == comparability(local)["data revision"]
    edited = with_data(run, "/data/RadEvalExpertDataset", fingerprint("local", None, sha="f" * 64))
    assert comparability(edited)["data revision"] != comparability(hub)["data revision"]


def test_flat_files_and_old_logs_keep_their_keys(tmp_path: Path) -> None:
    run = scored_run(write_pairs(tmp_path), [0.5, 0.6, 0.7, 0.8])
    assert run.dataset_name == str(tmp_path / "pairs.jsonl")
    old_hub = with_data(run, "radeval-expert", {"data_sha256": None, "revision": "v1", "reports_sha256": None})
    older = with_data(run, "radeval-expert", {"data_sha256": None, "revision": "v0", "reports_sha256": None})
    assert old_hub.dataset_name == "radeval-expert"
    assert comparability(old_hub)["data revision"]["data_sha256"] == "revision v1"
    assert comparability(old_hub)["data revision"] != comparability(older)["data revision"]


@pytest.fixture
def rexrank_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Two runs whose data was read on the findings track, as log stand-ins `read_run` returns from memory."""
    made: dict[str, RunEvidence] = {}
    paths = {}
    for name, scores in (("a.eval", [0.5, 0.6, 0.7, 0.8]), ("b.eval", [0.4, 0.5, 0.6, 0.7])):
        run = scored_run(write_pairs(tmp_path), scores, sha256=name[0] * 64)
        run = replace(run, metadata={**run.metadata, "data": {**run.metadata["data"], "track": "findings"}})
        path = tmp_path / "logs" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(name)
        made[name] = replace(run, path=path)
        paths[name] = path
    monkeypatch.setattr(board, "read_run", lambda path: made[Path(path).name])
    monkeypatch.setattr(bundle, "read_run", lambda path: made[Path(path).name])
    return paths


def test_the_submission_track_must_be_the_datas(rexrank_runs: dict[str, Path], tmp_path: Path) -> None:
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([rexrank_runs["a.eval"]], tmp_path / "x", SystemCard(name="A", track="findings_impression"))
    assert refused.value.lines == ["a.eval: the data's track is findings, the submission's --track findings_impression"]
    assert not (tmp_path / "x" / "manifest.json").exists()


def test_a_run_without_a_track_is_ranked_on_its_datas(rexrank_runs: dict[str, Path], tmp_path: Path) -> None:
    a = write_bundle([rexrank_runs["a.eval"]], tmp_path / "a", SystemCard(name="A")).parent
    result = build_leaderboard([a, rexrank_runs["b.eval"]], tmp_path / "site", Settings(resamples=50))
    assert [(b["track"], len(b["entries"])) for b in result["boards"]] == [("findings", 2)]
