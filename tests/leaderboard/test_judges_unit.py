"""The judges' boards at their edges: a measure a judge lacks, judges over different units, the board's settings
passed to every interval and test, and judges-track runs going through `build_leaderboard` (see `test_judges`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.core.family import Family, RankedScore, Rescoring, add_family, remove_family
from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard.board import Settings, Submission, build_leaderboard
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence
from radiology_tasks.leaderboard.judges import judge_boards, judge_comparability
from scorers.leaderboard.significance import mean_interval, paired_test
from tests.leaderboard.memory_runs import memory_run, sample

SETTINGS = Settings(confidence=0.8, resamples=120, seed=5)


def _measures(run: RunEvidence) -> dict[str, dict[str, float]]:
    """`first` over the units the run's samples name, `gap` only where the run says so, `last` doubled."""
    scores = {s.metadata["unit"]: float(s.values["vert"] or 0.0) for s in run.samples}
    gap = {} if run.task_args.get("gap") else {u: v / 2 for u, v in scores.items()}
    return {"first": scores, "gap": gap, "last": {u: 2 * v for u, v in scores.items()}}


TOY = Rescoring(ranked=lambda run: RankedScore("vert"), expected=lambda run, s: {}, judge_measures=_measures)


@pytest.fixture(autouse=True)
def toy_family(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setattr(f"{__name__}.TOY_RULES", TOY, raising=False)
    add_family(
        Family(
            name="toy_units",
            tasks_module=__name__,
            tasks=("toy_units",),
            version="1.0.0",
            rescoring=f"{__name__}:TOY_RULES",
        )
    )
    yield
    remove_family("toy_units")


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(f'{{"id": "s{i}", "reference": "R {i}.", "candidate": "c{i}"}}\n' for i in range(6)))
    return path


def _submission(
    data: Path, judge: str, values: dict[str, float], *, name: str | None = None, **args: object
) -> Submission:
    samples = [
        replace(sample(f"s{i}", values={"vert": v}, unit=unit), judge_calls=[JudgeCall(judge, 0.0, None, "")])
        for i, (unit, v) in enumerate(values.items())
    ]
    run = memory_run(data, samples, task="radiology_tasks/toy_units", judge=judge, task_args={"prompt": "vert", **args})
    return Submission({"name": name}, "judges", data.parent / "logs" / f"{judge.split('/')[-1]}.eval", run)


def test_a_measure_a_judge_lacks_is_shown_empty_and_the_rest_still_shown(data, tmp_path):
    values = {"u1": 0.2, "u2": 0.6, "u3": 0.4}
    (board,), not_ranked = judge_boards([_submission(data, "openai/a", values, gap=True)], tmp_path / "site", SETTINGS)
    assert not_ranked == [] and board["measures"] == ["first", "gap", "last"]
    (entry,) = board["entries"]
    assert entry["measures"]["gap"] is None
    last = mean_interval([0.4, 1.2, 0.8], confidence=0.8, resamples=120, seed=5)
    assert entry["measures"]["last"] == {"value": last.mean, "ci_low": last.low, "ci_high": last.high, "n": 3}
    first = mean_interval([0.2, 0.6, 0.4], confidence=0.8, resamples=120, seed=5)
    assert (entry["score"], entry["ci_low"], entry["ci_high"], entry["n"]) == (first.mean, first.low, first.high, 3)
    assert entry["log"] == "../logs/a.eval" and entry["submitted_as"] is None


def test_judges_are_compared_on_the_units_they_share(data, tmp_path):
    a = _submission(data, "openai/a", {"u1": 0.9, "u2": 0.8, "u3": 0.7, "u4": 0.95})
    b = _submission(data, "openai/b", {"u1": 0.5, "u2": 0.4, "u3": 0.6, "u5": 0.1})
    c = _submission(data, "openai/c", {"u6": 0.3, "u7": 0.2, "u8": 0.1, "u9": 0.2})
    boards, _ = judge_boards([a, b, c], tmp_path, SETTINGS)
    (board,) = boards
    assert [e["system"] for e in board["entries"]] == ["openai/a", "openai/b", "openai/c"]
    (test,) = board["significance"]["tests"]
    expected = paired_test([0.9, 0.8, 0.7], [0.5, 0.4, 0.6], resamples=120, seed=5)
    assert test == {
        "a": "openai/a",
        "b": "openai/b",
        "difference": pytest.approx(expected.difference),
        "paired_bootstrap_p": expected.bootstrap_p,
        "randomization_p": expected.randomization_p,
        "n": 3,
    }
    assert board["significance"] == {"resamples": 120, "seed": 5, "tests": board["significance"]["tests"]}


def test_units_shared_by_a_later_pair_are_tested_after_a_pair_without_any(data, tmp_path):
    a = _submission(data, "openai/a", {"u1": 0.9, "u2": 0.8})
    b = _submission(data, "openai/b", {"u3": 0.5, "u4": 0.4})
    c = _submission(data, "openai/c", {"u3": 0.3, "u4": 0.2})
    assert len({repr(judge_comparability(x.run)) for x in (a, b, c)}) == 1, "the same samples judged"
    (board,), _ = judge_boards([a, b, c], tmp_path, SETTINGS)
    assert [(t["a"], t["b"]) for t in board["significance"]["tests"]] == [("openai/b", "openai/c")]


def test_a_nameless_judge_without_a_judge_is_named_by_its_log(data, tmp_path):
    nameless = _submission(data, "openai/a", {"u1": 0.5})
    nameless = replace(nameless, run=replace(nameless.run, judge=None))
    _, (row,) = judge_boards([nameless], tmp_path / "site", SETTINGS)
    assert row["system"] == "a.eval" and row["task"] == "toy_units" and row["log"] == "../logs/a.eval"


def test_judges_track_runs_go_to_the_judges_boards_and_their_refusals_to_not_ranked(data, tmp_path, monkeypatch):
    runs = {
        "a.eval": _submission(data, "openai/a", {"u1": 0.9, "u2": 0.8}).run,
        "b.eval": _submission(data, "openai/b", {"u1": 0.5, "u2": 0.6}).run,
        "nojudge.eval": replace(_submission(data, "openai/c", {"u1": 0.5}).run, judge=None),
        "failed.eval": _submission(data, "openai/d", {"u1": 0.5, "u2": 0.6}).run,
    }
    runs["failed.eval"] = replace(runs["failed.eval"], status="error")
    paths = []
    for name, run in runs.items():
        (tmp_path / name).write_text(name)
        paths.append(tmp_path / name)
        runs[name] = replace(run, path=tmp_path / name)
    monkeypatch.setattr(
        board_module, "run_violations", lambda run, max_unscored: [] if run.status == "success" else ["failed"]
    )
    bundles = []
    for name in runs:
        folder = tmp_path / f"bundle-{name}"
        (folder / "logs").mkdir(parents=True)
        (folder / "logs" / name).write_text(name)
        manifest = {"runs": [{"log": f"logs/{name}", "sha256": runs[name].sha256}], "track": "judges"}
        (folder / "manifest.json").write_text(json.dumps(manifest))
        bundles.append(folder)
    monkeypatch.setattr(board_module, "read_run", lambda path: runs[Path(path).name])
    result = build_leaderboard(bundles, tmp_path / "site", SETTINGS)
    assert result["boards"] == []
    (board,) = result["judge_boards"]
    assert [e["system"] for e in board["entries"]] == ["openai/a", "openai/b"]
    reasons = {row["log"]: row["reasons"] for row in result["not_ranked"]}
    assert reasons == {
        "../bundle-failed.eval/logs/failed.eval": ["failed"],
        "../bundle-nojudge.eval/logs/nojudge.eval": [
            "no judge named (--model-role grader=<judge model>): there is no judge to rank"
        ],
    }
    assert result["generated"].endswith("+00:00")
