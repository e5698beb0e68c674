"""Boards ranked on a statistic of the whole sample set, through a toy family whose corpus statistic is an F1 over
per-report counts (2 TP / (2 TP + FP + FN), not a mean of per-report values): each entry's figure, interval and
paired test are the corpus functions' own over reports grouped by id, never a mean over samples."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard import bundle
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
from radiology_tasks.scorers.leaderboard.corpus import paired_statistic_test, statistic_interval
from tests.leaderboard.memory_runs import memory_run, write_pairs
from tests.toy_families import ToyFamily

SETTINGS = Settings(confidence=0.9, resamples=60, seed=3)
# (TP, FP, FN) per report s0..s3 for two systems.
A_COUNTS = [(2, 0, 1), (1, 1, 0), (3, 0, 0), (0, 1, 2)]
B_COUNTS = [(1, 1, 1), (0, 2, 1), (2, 1, 1), (0, 1, 2)]


def f1(samples: list[SampleEvidence]) -> float:
    tp = sum(s.metadata["tp"] for s in samples)
    wrong = sum(s.metadata["fp"] + s.metadata["fn"] for s in samples)
    return 2 * tp / (2 * tp + wrong) if tp or wrong else float("nan")


def _expected(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    return {}


def _breakdown(run: RunEvidence) -> dict[str, dict[str, float]]:
    return {"Counts": {"tp": float(sum(s.metadata["tp"] for s in run.samples))}}


class _NoStatistic(Rescoring):
    """A corpus-ranked task whose rules lack the statistic itself."""

    def ranked(self, run: RunEvidence) -> RankedScore:
        return RankedScore("f1", corpus=True, per_sample="hit")

    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        return _expected(run, sample)

    def needs_judge(self) -> bool:
        return False

    def breakdown(self, run: RunEvidence) -> dict[str, dict[str, float]] | None:
        return _breakdown(run)

    def sample_ids(self, run: RunEvidence) -> list[str] | None:
        return [f"s{i}" for i in range(4)]


class _Corpus(_NoStatistic):
    def corpus_score(self, samples: list[SampleEvidence]) -> float:
        return f1(samples)


CORPUS = _Corpus()
NO_STATISTIC = _NoStatistic()


@pytest.fixture(autouse=True)
def toy_family() -> Iterator[None]:
    for name, rules in (("toy_corpus", CORPUS), ("toy_bare_corpus", NO_STATISTIC)):
        add_family(ToyFamily(name, (name,), rules={name: rules}))
    yield
    remove_family("toy_corpus")
    remove_family("toy_bare_corpus")


def _sample(index: int, counts: tuple[int, int, int], epoch: int = 1) -> SampleEvidence:
    tp, fp, fn = counts
    return SampleEvidence(f"s{index}", epoch, None, {"hit": 1.0}, {"tp": tp, "fp": fp, "fn": fn}, "c", [], True)


def _run(data: Path, counts: list[tuple[int, int, int]], task: str = "toy_corpus", **changes: Any) -> RunEvidence:
    samples = [_sample(i, c) for i, c in enumerate(counts)]
    base = memory_run(data)
    metadata = {"data": base.metadata["data"], "templates": {}}
    fields = {"task": f"radiology_tasks/{task}", "task_version": "1.0.0", "metadata": metadata, "judge": None}
    return memory_run(data, samples, **{**fields, **changes})


@pytest.fixture
def logs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    data = write_pairs(tmp_path)
    runs = {
        "a.eval": _run(data, A_COUNTS, sha256="a" * 64),
        "b.eval": _run(data, B_COUNTS, sha256="b" * 64),
        "bare.eval": _run(data, A_COUNTS, task="toy_bare_corpus", sha256="c" * 64),
    }
    twice = _run(data, B_COUNTS, sha256="d" * 64)
    runs["epochs.eval"] = replace(twice, samples=[*twice.samples, *(replace(s, epoch=2) for s in twice.samples)])
    paths = {}
    for name, run in runs.items():
        paths[name] = tmp_path / name
        paths[name].write_text(name)
        runs[name] = replace(run, path=paths[name])
    monkeypatch.setattr(board_module, "read_run", lambda path: runs[Path(path).name])
    monkeypatch.setattr(bundle, "read_run", lambda path: runs[Path(path).name])
    return paths


def _units(counts: list[tuple[int, int, int]], epochs: int = 1) -> list[list[SampleEvidence]]:
    return [[_sample(i, c, e) for e in range(1, epochs + 1)] for i, c in enumerate(counts)]


def _statistic(groups: list[list[SampleEvidence]]) -> float:
    return f1([s for group in groups for s in group])


def test_entries_are_the_corpus_statistic_with_its_resampled_interval(logs, tmp_path):
    result = build_leaderboard([logs["a.eval"], logs["b.eval"]], tmp_path / "site", SETTINGS)
    (ranked,) = result["boards"]
    assert ranked["note"] == (
        "f1 is a statistic of the whole sample set, not a mean over reports: each interval and paired test "
        "resamples reports and recomputes it."
    )
    assert ranked["score"] == "f1" and ranked["n_samples"] == 4
    a, b = ranked["entries"]
    assert a["score"] == pytest.approx(2 * 6 / (2 * 6 + 5)), "by hand: TP 6, FP 2, FN 3"
    for entry, counts in ((a, A_COUNTS), (b, B_COUNTS)):
        interval = statistic_interval(_units(counts), _statistic, confidence=0.9, resamples=60, seed=3)
        assert (entry["score"], entry["ci_low"], entry["ci_high"], entry["n"]) == (
            pytest.approx(interval.value),
            pytest.approx(interval.low),
            pytest.approx(interval.high),
            4,
        )
        assert entry["breakdown"] == {"Counts": {"tp": float(sum(c[0] for c in counts))}}
        assert entry["expert_points"] is None and entry["n_unscored"] == 0
    assert (a["log_sha256"][0], b["log_sha256"][0]) == ("a", "b")
    (test,) = ranked["significance"]["tests"]
    expected = paired_statistic_test(_units(A_COUNTS), _units(B_COUNTS), _statistic, resamples=60, seed=3)
    assert (test["difference"], test["paired_bootstrap_p"], test["randomization_p"], test["n"]) == (
        pytest.approx(expected.difference),
        pytest.approx(expected.bootstrap_p),
        pytest.approx(expected.randomization_p),
        4,
    )
    assert ranked["significance"]["resamples"] == 60 and ranked["significance"]["seed"] == 3


def test_a_reports_epochs_are_one_unit(logs, tmp_path):
    result = build_leaderboard([logs["epochs.eval"]], tmp_path / "site", SETTINGS)
    (entry,) = result["boards"][0]["entries"]
    interval = statistic_interval(_units(B_COUNTS, epochs=2), _statistic, confidence=0.9, resamples=60, seed=3)
    assert (entry["score"], entry["ci_low"], entry["ci_high"], entry["n"]) == (
        pytest.approx(interval.value),
        pytest.approx(interval.low),
        pytest.approx(interval.high),
        4,
    )


def test_a_corpus_family_without_its_statistic_is_an_error(logs, tmp_path):
    with pytest.raises(ValueError, match="^task toy_bare_corpus ranks a corpus statistic but its family gives no "):
        build_leaderboard([logs["bare.eval"]], tmp_path / "site", SETTINGS)


def test_a_mean_board_has_no_note(tmp_path):
    run = memory_run(write_pairs(tmp_path))
    assert board_module.board_note(run) is None


def _bundle(directory: Path, logs: list[Path], runs_sha: list[str], **manifest: Any) -> Path:
    (directory / "logs").mkdir(parents=True)
    entries = []
    for log, sha in zip(logs, runs_sha, strict=True):
        (directory / "logs" / log.name).write_text(log.read_text())
        entries.append({"log": f"logs/{log.name}", "sha256": sha})
    (directory / "manifest.json").write_text(json.dumps({"runs": entries, **manifest}))
    return directory


def test_a_bundles_track_must_be_its_datas(logs, tmp_path, monkeypatch):
    tracked = {}
    for name in ("a.eval", "b.eval"):
        run = board_module.read_run(logs[name])
        tracked[name] = replace(run, metadata={**run.metadata, "data": {**run.metadata["data"], "track": "findings"}})
    monkeypatch.setattr(board_module, "read_run", lambda path: tracked[Path(path).name])
    other = _bundle(tmp_path / "other", [logs["a.eval"]], ["a" * 64], track="findings_impression", system={"name": "A"})
    card = {"name": "B", "institution": "i", "paper": "p", "code": "c", "description": "d"}
    same = _bundle(tmp_path / "same", [logs["b.eval"]], ["b" * 64], system=card)
    result = build_leaderboard([other, same], tmp_path / "site", SETTINGS)
    assert result["not_ranked"] == [
        {
            "system": "A",
            "task": "toy_corpus",
            "log": "../other/logs/a.eval",
            "reasons": ["the data's track is findings, the submission's findings_impression"],
        }
    ]
    (ranked,) = result["boards"]
    assert ranked["track"] == "findings", "a bundle without a track takes its data's"
    (entry,) = ranked["entries"]
    assert {k: entry[k] for k in ("system", "institution", "paper", "code", "description")} == {
        "system": "B",
        "institution": "i",
        "paper": "p",
        "code": "c",
        "description": "d",
    }
    assert ranked["dataset"]["data_sha256"] == tracked["b.eval"].fingerprint["data_sha256"]


def test_a_bundle_of_runs_on_different_generation_logs_is_not_ranked(logs, tmp_path, monkeypatch):
    runs = {}
    for name, sha in (("a.eval", "x"), ("b.eval", "y")):
        run = board_module.read_run(logs[name])
        runs[name] = replace(
            run, metadata={**run.metadata, "data": {**run.metadata["data"], "generation": {"log_sha256": sha}}}
        )
    monkeypatch.setattr(board_module, "read_run", lambda path: runs[Path(path).name])
    mixed = _bundle(tmp_path / "mixed", [logs["a.eval"], logs["b.eval"]], ["a" * 64, "b" * 64])
    result = build_leaderboard([mixed], tmp_path / "site", SETTINGS)
    rule = "one system's runs must judge the reports of one generation log"
    assert [row["reasons"] for row in result["not_ranked"]] == [
        [f"a.eval: candidates from generation log x; {rule}"],
        [f"b.eval: candidates from generation log y; {rule}"],
    ]


def test_a_log_that_cannot_be_read_keeps_its_bundles_track(logs, tmp_path, monkeypatch):
    def unreadable(path: Path) -> RunEvidence:
        raise ValueError(f"{Path(path).name}: not a readable Inspect log")

    monkeypatch.setattr(board_module, "read_run", unreadable)
    bundled = _bundle(tmp_path / "b", [logs["a.eval"]], ["a" * 64], track="findings")
    (submission,) = board_module.load_submissions([bundled], SETTINGS)
    assert (submission.track, submission.run, submission.problems) == (
        "findings",
        None,
        ["a.eval: not a readable Inspect log"],
    )


def test_the_manifest_gives_a_corpus_statistic_over_the_runs_samples(logs):
    entry = bundle.run_entry(board_module.read_run(logs["a.eval"]), "logs/a.eval")
    assert (entry["score"], entry["mean"], entry["n"]) == ("f1", pytest.approx(12 / 17), 4)
    assert bundle.run_entry(board_module.read_run(logs["bare.eval"]), "logs/bare.eval")["mean"] is None


def test_a_family_without_a_breakdown_shows_none(logs, tmp_path, monkeypatch):
    monkeypatch.setattr(CORPUS, "breakdown", lambda run: None)
    result = build_leaderboard([logs["a.eval"]], tmp_path / "site", SETTINGS)
    assert result["boards"][0]["entries"][0]["breakdown"] is None


def test_reports_files_are_part_of_the_data_revision(tmp_path):
    run = memory_run(write_pairs(tmp_path))
    pinned = replace(
        run, metadata={**run.metadata, "data": {"fingerprint": {"data_sha256": "d", "reports_sha256": "r"}}}
    )
    assert board_module.comparability(pinned)["data revision"] == {
        "layout": None,
        "data_sha256": "d",
        "reports_sha256": "r",
    }


def test_a_mean_boards_intervals_use_the_boards_confidence(tmp_path, monkeypatch):
    from radiology_tasks.scorers.leaderboard.significance import mean_interval
    from tests.leaderboard.memory_runs import scored_run

    scores = [0.9, 0.2, 0.6, 0.4]
    run = scored_run(write_pairs(tmp_path), scores)
    log = tmp_path / "m.eval"
    log.write_text("m")
    monkeypatch.setattr(board_module, "read_run", lambda path: replace(run, path=log))
    result = build_leaderboard([log], tmp_path / "site", Settings(confidence=0.5, resamples=200, seed=4))
    (entry,) = result["boards"][0]["entries"]
    interval = mean_interval(scores, confidence=0.5, resamples=200, seed=4)
    assert (entry["ci_low"], entry["ci_high"]) == (pytest.approx(interval.low), pytest.approx(interval.high))
    assert (
        interval.high - interval.low
        < mean_interval(scores, resamples=200, seed=4).high - mean_interval(scores, resamples=200, seed=4).low
    )
