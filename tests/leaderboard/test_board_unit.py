"""Bundles and boards from runs built in memory (`read_run` replaced): ranking, comparability and outputs."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from radiology_tasks.leaderboard import board, bundle
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.evidence import RunEvidence
from radiology_tasks.leaderboard.outputs import csv_rows, markdown, schema
from radiology_tasks.scorers.leaderboard.significance import mean_interval, paired_test
from tests.leaderboard.memory_runs import JUDGE, sample, scored_run, write_pairs

A_SCORES = [0.9, 0.8, 0.7, 0.6]
B_SCORES = [0.5, 0.8, 0.3, 0.6]


@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """Log files (empty stand-ins) whose runs `read_run` returns from memory."""
    data = write_pairs(tmp_path)
    made: dict[str, RunEvidence] = {
        "a.eval": scored_run(data, A_SCORES, sha256="a" * 64),
        "b.eval": scored_run(data, B_SCORES, sha256="b" * 64),
        "other-judge.eval": scored_run(data, A_SCORES, sha256="c" * 64, judge="openai/other"),
        "forged.eval": scored_run(data, B_SCORES, sha256="d" * 64, results={"vert_mean": 0.99}),
    }
    paths = {}
    for name, run in made.items():
        path = tmp_path / "logs" / name
        path.parent.mkdir(exist_ok=True)
        path.write_text(name)
        made[name] = RunEvidence(**{**run.__dict__, "path": path})
        paths[name] = path

    def read(path: str | Path) -> RunEvidence:
        return made[Path(path).name]

    monkeypatch.setattr(board, "read_run", read)
    monkeypatch.setattr(bundle, "read_run", read)
    return paths


def test_bundles_rank_with_intervals_and_paired_tests(runs, tmp_path):
    a = write_bundle([runs["a.eval"]], tmp_path / "bundle-a", SystemCard(name="A", code="https://c")).parent
    b = write_bundle([runs["b.eval"]], tmp_path / "bundle-b", SystemCard(name="B")).parent
    out = tmp_path / "site"
    result = build_leaderboard(
        [b, a, runs["other-judge.eval"], runs["forged.eval"]], out, Settings(resamples=300, seed=2)
    )
    jsonschema.validate(result, schema())
    assert result["settings"] == {
        "confidence": 0.95,
        "resamples": 300,
        "seed": 2,
        "max_unscored": 0.02,
        "unscored": "worst",
    }
    (ranked,) = result["boards"]
    assert [(e["rank"], e["system"], e["code"]) for e in ranked["entries"]] == [(1, "A", "https://c"), (2, "B", None)]
    for entry, scores in zip(ranked["entries"], (A_SCORES, B_SCORES), strict=True):
        interval = mean_interval(scores, confidence=0.95, resamples=300, seed=2)
        assert (entry["score"], entry["ci_low"], entry["ci_high"], entry["n"]) == (
            pytest.approx(interval.value),
            pytest.approx(interval.low),
            pytest.approx(interval.high),
            4,
        )
    assert ranked["entries"][0]["log"] == "../bundle-a/logs/a.eval"
    assert ranked["entries"][0]["log_sha256"] == "a" * 64
    (test,) = ranked["significance"]["tests"]
    expected = paired_test(A_SCORES, B_SCORES, resamples=300, seed=2)
    assert (test["a"], test["b"], test["n"]) == ("A", "B", 4)
    assert (test["difference"], test["paired_bootstrap_p"], test["randomization_p"]) == (
        pytest.approx(expected.difference),
        expected.bootstrap_p,
        expected.randomization_p,
    )
    assert ranked["dataset"]["name"].endswith("pairs.jsonl") and ranked["track"] is None
    assert ranked["id"] == f"vert-vert-{ranked['dataset']['name']}"
    assert ranked["judge"] == {"model": JUDGE, "temperatures": [0.0], "seeded": False}
    reasons = {row["log"]: row["reasons"] for row in result["not_ranked"]}
    assert reasons["../logs/other-judge.eval"] == [
        f"not comparable: judge differs (model: openai/other vs the board's {JUDGE})"
    ]
    assert reasons["../logs/forged.eval"] == ["results: vert_mean 0.99 is not the mean of the samples' vert (0.55)"]
    names = {row["log"]: row["system"] for row in result["not_ranked"]}
    assert names["../logs/forged.eval"] == "pairs candidates"


def test_tracks_and_tasks_get_boards_of_their_own(runs, tmp_path):
    a = write_bundle([runs["a.eval"]], tmp_path / "a", SystemCard(name="A", track="findings")).parent
    b = write_bundle([runs["b.eval"]], tmp_path / "b", SystemCard(name="B", track="findings_impression")).parent
    result = build_leaderboard([a, b], tmp_path / "site", Settings(resamples=50))
    assert sorted((x["track"], x["entries"][0]["system"]) for x in result["boards"]) == [
        ("findings", "A"),
        ("findings_impression", "B"),
    ]
    assert all(x["significance"]["tests"] == [] for x in result["boards"])
    assert result["boards"][0]["id"].endswith("-findings")


def test_the_most_common_setting_makes_the_board(runs, tmp_path):
    inputs = [runs["other-judge.eval"], runs["a.eval"], runs["b.eval"]]
    result = build_leaderboard(inputs, tmp_path / "site", Settings(resamples=50))
    assert [e["log_sha256"][0] for e in result["boards"][0]["entries"]] == ["a", "b"]
    assert [row["log"] for row in result["not_ranked"]] == ["../logs/other-judge.eval"]


def test_a_bundle_checks_every_log_and_names_each(runs, tmp_path, monkeypatch):
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([runs["a.eval"], runs["forged.eval"], runs["a.eval"]], tmp_path / "x", SystemCard())
    assert refused.value.lines == [
        "forged.eval: results: vert_mean 0.99 is not the mean of the samples' vert (0.55)",
        "a.eval: given twice",
    ]
    assert not (tmp_path / "x").exists()
    with pytest.raises(
        ValueError, match="--track must be one of findings, findings_impression, judges; got 'impression'"
    ):
        write_bundle([runs["a.eval"]], tmp_path / "y", SystemCard(track="impression"))
    (tmp_path / "z").mkdir()
    (tmp_path / "z" / "old").write_text("x")
    with pytest.raises(ValueError, match="is not empty; give a new directory"):
        write_bundle([runs["a.eval"]], tmp_path / "z", SystemCard())
    unreadable = tmp_path / "broken.eval"
    unreadable.write_text("not a log")

    def unreadable_log(path: Path) -> RunEvidence:
        raise ValueError(f"{path}: not a readable Inspect log")

    monkeypatch.setattr(bundle, "read_run", unreadable_log)
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([unreadable], tmp_path / "w", SystemCard())
    assert refused.value.lines == [f"{unreadable}: not a readable Inspect log"]


def test_the_manifest_describes_system_and_runs(runs, tmp_path):
    card = SystemCard(name="A", institution="I", paper="https://p", code="https://c", description="d", track="findings")
    manifest = json.loads(write_bundle([runs["a.eval"]], tmp_path / "a", card, max_unscored=0.1).read_text())
    assert manifest["manifest_version"] == "1" and manifest["max_unscored"] == 0.1 and manifest["track"] == "findings"
    assert manifest["system"] == {
        "name": "A",
        "institution": "I",
        "paper": "https://p",
        "code": "https://c",
        "description": "d",
    }
    (run,) = manifest["runs"]
    assert (run["log"], run["sha256"], run["task"], run["score"]) == ("logs/a.eval", "a" * 64, "vert", "vert")
    assert run["mean"] == pytest.approx(sum(A_SCORES) / 4)
    assert (tmp_path / "a" / "logs" / "a.eval").read_text() == "a.eval"
    default = json.loads(write_bundle([runs["a.eval"]], tmp_path / "d", SystemCard()).read_text())
    assert default["system"]["name"] == "pairs candidates" and default["track"] is None


def test_csv_and_markdown_rows(runs, tmp_path):
    a = write_bundle([runs["a.eval"]], tmp_path / "a", SystemCard(name="A|1")).parent
    result = build_leaderboard([a, runs["b.eval"], runs["forged.eval"]], tmp_path / "site", Settings(resamples=50))
    rows = csv_rows(result)
    assert [(r["rank"], r["system"], r["score_key"], r["judge"], r["log_sha256"][0]) for r in rows] == [
        (1, "A|1", "vert", JUDGE, "a"),
        (2, "pairs candidates", "vert", JUDGE, "b"),
    ]
    text = markdown(result, tmp_path / "site")
    assert "| 1 | A\\|1 | 0.750 |" in text, "a pipe in a name does not split the Markdown cell"
    assert "| A\\|1 | pairs candidates | +0.200 |" in text
    assert (
        text.splitlines()[2]
        == "Intervals: 95% percentile bootstrap, 50 resamples, seed 0. A missing score counts as 0."
    )
    assert "| pairs candidates | vert | `../logs/forged.eval` | results: vert_mean 0.99" in text


def test_systems_of_the_same_name_are_told_apart_by_their_log(runs, tmp_path):
    result = build_leaderboard([runs["a.eval"], runs["b.eval"]], tmp_path / "site", Settings(resamples=50))
    (ranked,) = result["boards"]
    assert [e["system"] for e in ranked["entries"]] == ["pairs candidates (a)", "pairs candidates (b)"]
    (test,) = ranked["significance"]["tests"]
    assert (test["a"], test["b"]) == ("pairs candidates (a)", "pairs candidates (b)")


def test_a_bundled_log_that_changed_or_cannot_be_read_is_not_ranked(runs, tmp_path, monkeypatch):
    a = write_bundle([runs["a.eval"]], tmp_path / "a", SystemCard(name="A", institution="I", track="findings")).parent
    manifest_path = a / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["runs"][0]["sha256"] = "f" * 64
    manifest_path.write_text(json.dumps(manifest))
    result = build_leaderboard([a], tmp_path / "site", Settings(resamples=50))
    assert result["boards"] == []
    assert result["not_ranked"] == [
        {
            "system": "A",
            "task": "vert",
            "log": "../a/logs/a.eval",
            "reasons": ["the log changed after it was bundled (its SHA-256 is not the manifest's)"],
        }
    ]

    def unreadable(path: Path) -> RunEvidence:
        raise ValueError(f"{Path(path).name}: not a readable Inspect log")

    monkeypatch.setattr(board, "read_run", unreadable)
    result = build_leaderboard([a], tmp_path / "site", Settings(resamples=50))
    assert result["not_ranked"] == [
        {"system": "A", "task": None, "log": "../a/logs/a.eval", "reasons": ["a.eval: not a readable Inspect log"]}
    ]
    with pytest.raises(
        ValueError, match=f"^{tmp_path}: a directory but not a submission bundle \\(no manifest.json\\)$"
    ):
        build_leaderboard([tmp_path], tmp_path / "site")


def test_epochs_are_averaged_per_sample(tmp_path):
    from dataclasses import replace

    run = scored_run(write_pairs(tmp_path), [0.9, 0.8, 0.7, 0.6])
    second = [replace(s, epoch=2, values={**s.values, "vert": 0.5}) for s in run.samples]
    values = board.ranked_values(replace(run, samples=[*run.samples, *second]), "vert")
    assert values == pytest.approx({"s0": 0.7, "s1": 0.65, "s2": 0.6, "s3": 0.55})


def test_the_board_checks_runs_with_its_own_unscored_threshold(tmp_path, monkeypatch):
    from dataclasses import replace

    run = scored_run(write_pairs(tmp_path), [0.9, 0.8, 0.7, 0.6])
    filled = {"vert": 0.0, "green": 0.0, "green_ec": None, "green_f1": 0.0}
    refused = sample("s3", answer=None, values=filled, unscored=dict.fromkeys(filled, "judge_refused"))
    run = replace(run, samples=[*run.samples[:3], refused], results={"vert_mean": (0.9 + 0.8 + 0.7) / 4})
    log = tmp_path / "one-unscored.eval"
    log.write_text("x")
    monkeypatch.setattr(board, "read_run", lambda path: replace(run, path=log))
    lenient = build_leaderboard([log], tmp_path / "site", Settings(resamples=50, max_unscored=0.25))
    assert [e["n_unscored"] for e in lenient["boards"][0]["entries"]] == [1]
    assert lenient["boards"][0]["entries"][0]["score"] == pytest.approx(0.6), "the unscored sample counts as 0"
    strict = build_leaderboard([log], tmp_path / "site", Settings(resamples=50))
    assert strict["boards"] == []
    assert strict["not_ranked"][0]["reasons"] == ["1 of 4 samples (25.0%) are unscored, above --max-unscored 2.0%"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{not json", "not valid JSON"),
        ('["runs"]', "needs a list under 'runs' \\(found: list\\)"),
        ('{"system": {"name": "A"}}', "needs a list under 'runs' \\(found: system\\)"),
        ('{"runs": [], "system": "A"}', "system: Input should be an object$"),
        ('{"runs": [{"log": "logs/a.eval"}]}', "runs\\[0\\].sha256: Field required$"),
        (
            '{"runs": [{"sha256": "ab"}, 3]}',
            "runs\\[0\\].log: Field required; "
            "runs\\[0\\].sha256: String should match pattern '\\^\\[0-9a-f\\]\\{64\\}\\$'; "
            "runs\\[1\\]: Input should be an object$",
        ),
    ],
)
def test_a_broken_manifest_is_one_line_naming_the_file_and_field(tmp_path, text, message):
    (tmp_path / "manifest.json").write_text(text)
    with pytest.raises(ValueError, match=f"^{tmp_path / 'manifest.json'}: {message}"):
        build_leaderboard([tmp_path], tmp_path / "site")
