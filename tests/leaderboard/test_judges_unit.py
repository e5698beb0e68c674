"""The judges' boards at their edges: a measure a judge lacks, judges over different units, the board's settings
passed to every interval and test, and judges-track runs going through `build_leaderboard` (see `test_judges`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard.board import Settings, Submission, build_leaderboard
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence
from radiology_tasks.leaderboard.judges import NO_RANDOMIZATION, judge_boards, judge_comparability
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
from radiology_tasks.scorers.leaderboard.significance import mean_interval, paired_test
from tests.leaderboard.memory_runs import memory_run, sample
from tests.toy_families import ToyFamily

SETTINGS = Settings(confidence=0.8, resamples=120, seed=5)


def _measures(run: RunEvidence) -> dict[str, dict[str, float]]:
    """`first` over the units the run's samples name, `gap` only where the run says so, `last` doubled."""
    scores = {s.metadata["unit"]: float(s.values["vert"] or 0.0) for s in run.samples}
    gap = {} if run.task_args.get("gap") else {u: v / 2 for u, v in scores.items()}
    return {"first": scores, "gap": gap, "last": {u: 2 * v for u, v in scores.items()}}


class _Toy(Rescoring):
    def ranked(self, run: RunEvidence) -> RankedScore:
        return RankedScore("vert")

    def expected(self, run: RunEvidence, sample: object) -> dict[str, float]:
        return {}


class _Units(_Toy):
    def judge_measures(self, run: RunEvidence) -> dict[str, dict[str, float]]:
        return _measures(run)


TOY = _Units()


@pytest.fixture(autouse=True)
def toy_family() -> Iterator[None]:
    add_family(ToyFamily("toy_units", ("toy_units",), rules={"toy_units": TOY}))
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
    assert entry["empty"] == {"gap": "no value: no unit of this run has a gap"}
    last = mean_interval([0.4, 1.2, 0.8], confidence=0.8, resamples=120, seed=5)
    assert entry["measures"]["last"] == {"value": last.value, "ci_low": last.low, "ci_high": last.high, "n": 3}
    first = mean_interval([0.2, 0.6, 0.4], confidence=0.8, resamples=120, seed=5)
    assert (entry["score"], entry["ci_low"], entry["ci_high"], entry["n"]) == (first.value, first.low, first.high, 3)
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
        "empty": {},
    }
    assert board["significance"] == {"resamples": 120, "seed": 5, "tests": board["significance"]["tests"]}


def test_units_shared_by_a_later_pair_are_tested_after_a_pair_without_any(data, tmp_path):
    a = _submission(data, "openai/a", {"u1": 0.9, "u2": 0.8})
    b = _submission(data, "openai/b", {"u3": 0.5, "u4": 0.4})
    c = _submission(data, "openai/c", {"u1": 0.3, "u2": 0.2})
    assert len({repr(judge_comparability(x.run)) for x in (a, b, c)}) == 1, "the same samples judged"
    (board,), _ = judge_boards([a, b, c], tmp_path, SETTINGS)
    assert [e["system"] for e in board["entries"]] == ["openai/a", "openai/b", "openai/c"]
    assert [(t["a"], t["b"]) for t in board["significance"]["tests"]] == [("openai/a", "openai/c")]


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
        board_module, "run_violations", lambda run, max_unscored, trial: [] if run.status == "success" else ["failed"]
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


class _Agree(_Toy):
    def agreement_key(self, run: RunEvidence) -> str:
        return "vert"


AGREE = _Agree()
EXPERT = [0.1, 0.4, 0.2, 0.9, 0.6, 0.8]


@pytest.fixture
def agree_family() -> Iterator[None]:
    add_family(ToyFamily("toy_agree_unit", ("toy_agree_unit",), rules={"toy_agree_unit": AGREE}))
    yield
    remove_family("toy_agree_unit")


def _expert_data(folder: Path, expert: list[float]) -> Path:
    """The six pairs of `data` with the experts' scores, in a file named by them (runs on other scores differ)."""
    path = folder / f"experts-{'-'.join(map(str, expert))}.jsonl"
    rows = [
        {"id": f"s{i}", "reference": f"R {i}.", "candidate": f"c{i}", "expert_score": e} for i, e in enumerate(expert)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def _judged(data: Path, judge: str, scores: list[float | None], expert: list[float] = EXPERT) -> Submission:
    """A judges-track run whose judge gave s<i> scores[i], on the pairs of `data` with the experts' scores `expert`
    (the samples log them too)."""
    samples = [
        replace(sample(f"s{i}", values={"vert": v}, expert_score=e), judge_calls=[JudgeCall(judge, 0.0, None, "")])
        for i, (v, e) in enumerate(zip(scores, expert, strict=True))
    ]
    rated = _expert_data(data.parent, expert)
    run = memory_run(rated, samples, task="radiology_tasks/toy_agree_unit", judge=judge, sha256=judge[-1] * 64)
    return Submission(
        {"name": f"as {judge}", "institution": "I"}, "judges", data.parent / "logs" / f"{judge[-1]}.eval", run
    )


def test_the_agreement_board_whole(data, tmp_path, agree_family):
    from radiology_tasks.scorers.leaderboard.agreement import tau_difference_test, tau_interval

    a = _judged(data, "openai/a", [0.15, 0.35, 0.25, 0.95, 0.55, 0.85])
    b = _judged(data, "openai/b", [0.9, 0.1, 0.8, 0.2, 0.7, 0.3])
    (board,), not_ranked = judge_boards([b, a], tmp_path / "site", SETTINGS)
    assert not_ranked == []
    run = a.run
    rated = _expert_data(data.parent, EXPERT)
    interval = tau_interval(
        list(zip(EXPERT, [0.15, 0.35, 0.25, 0.95, 0.55, 0.85], strict=True)), confidence=0.8, resamples=120, seed=5
    )
    test = tau_difference_test(
        list(zip(EXPERT, [0.15, 0.35, 0.25, 0.95, 0.55, 0.85], strict=True)),
        list(zip(EXPERT, [0.9, 0.1, 0.8, 0.2, 0.7, 0.3], strict=True)),
        resamples=120,
        seed=5,
    )
    top = {
        "system": "openai/a",
        "submitted_as": "as openai/a",
        "institution": "I",
        "paper": None,
        "code": None,
        "description": None,
        "judge": {"model": "openai/a", "temperatures": [0.0], "seeded": False},
        "log": "../logs/a.eval",
        "log_sha256": "a" * 64,
        "score": interval.value,
        "ci_low": interval.low,
        "ci_high": interval.high,
        "n": 6,
        "measures": {
            "kendall_tau_b": {"value": interval.value, "ci_low": interval.low, "ci_high": interval.high, "n": 6}
        },
        "empty": {},
        "checks": "judge answers re-read",
        "rank": 1,
    }
    assert board["entries"][0] == top
    assert {k: v for k, v in board.items() if k != "entries"} == {
        "id": f"judges-toy_agree_unit-vert-{rated}",
        "kind": "agreement",
        "truth": "score",
        "task": "toy_agree_unit",
        "score": "vert",
        "measures": ["kendall_tau_b"],
        "dataset": {
            "name": str(rated),
            "layout": run.fingerprint.get("layout"),
            "data_sha256": run.fingerprint["data_sha256"],
            "revision": run.fingerprint.get("revision"),
            "reports_sha256": run.fingerprint.get("reports_sha256"),
            "sample_ids_sha256": run.sample_ids_sha256(),
        },
        "task_version": run.task_version,
        "task_config": {"detail": "full", "prompt": "vert", "unscored": "worst"},
        "n_samples": 6,
        "trial": None,
        "statistic": "Kendall's tau-b against the experts",
        "measure_labels": {"kendall_tau_b": "Kendall's tau-b against the experts"},
        "measure_units": {"kendall_tau_b": "samples"},
        "significance": {
            "resamples": 120,
            "seed": 5,
            "tests": [
                {
                    "a": "openai/a",
                    "b": "openai/b",
                    "difference": test.difference,
                    "paired_bootstrap_p": test.bootstrap_p,
                    "randomization_p": None,
                    "n": 6,
                    "empty": {"randomization_p": NO_RANDOMIZATION},
                }
            ],
        },
        "note": (
            "Kendall's tau-b between the judge's and the experts' scores, over the samples where the experts rated "
            "the very candidate the judge saw; intervals and paired tests resample samples."
        ),
    }


def test_a_measures_board_says_how_it_is_ranked(data, tmp_path):
    (board,), _ = judge_boards([_submission(data, "openai/a", {"u1": 0.2, "u2": 0.6})], tmp_path, SETTINGS)
    assert (board["kind"], board["id"], board["score"], board["n_samples"]) == (
        "measures",
        "judges-toy_units-first-demo",
        "first",
        2,
    )
    assert board["note"] == (
        "Each measure is the mean over the units the task defines (for instance one per reference, over its "
        "variants); intervals and paired tests resample units. Ranked by the first measure."
    )
    assert board["statistic"] == "mean first over the units" and board["trial"] is None
    assert board["measure_labels"] == {m: f"mean {m} over the units" for m in ("first", "gap", "last")}
    assert board["measure_units"] == dict.fromkeys(("first", "gap", "last"), "units") and board["truth"] is None


def test_tau_needs_two_distinct_scores_on_each_side(data, tmp_path, agree_family):
    two_levels = _judged(data, "openai/a", [0.2, 0.2, 0.2, 0.8, 0.8, 0.8], expert=[0.0, 0.0, 1.0, 1.0, 1.0, 0.0])
    (board,), not_ranked = judge_boards([two_levels], tmp_path, SETTINGS)
    assert not_ranked == [] and board["entries"][0]["n"] == 6
    flat_judge = _judged(data, "openai/b", [0.5] * 6)
    flat_expert = _judged(data, "openai/c", EXPERT, expert=[0.5] * 6)
    _, rows = judge_boards([flat_judge, flat_expert], tmp_path, SETTINGS)
    assert [row["reasons"] for row in rows] == [
        ["Kendall's tau is undefined: the expert or the judge scores are all equal"]
    ] * 2
    unjudged = _judged(data, "openai/d", [None] * 6)
    _, (row,) = judge_boards([unjudged], tmp_path / "site", SETTINGS)
    assert row == {
        "system": "openai/d",
        "task": "toy_agree_unit",
        "log": "../logs/d.eval",
        "reasons": ["no sample has both an expert score for the candidate the judge saw and a judge score"],
    }


def test_tau_differences_are_tested_on_the_samples_two_judges_share(data, tmp_path, agree_family):
    from radiology_tasks.scorers.leaderboard.agreement import tau_difference_test

    a = _judged(data, "openai/a", [0.1, 0.4, None, None, None, None])
    c = _judged(data, "openai/c", [None, None, 0.2, 0.95, 0.85, 0.55])
    b = _judged(data, "openai/b", [0.3, 0.2, 0.1, 0.5, 0.9, 0.7])
    (board,), _ = judge_boards([b, c, a], tmp_path, SETTINGS)
    assert [e["system"] for e in board["entries"]] == ["openai/a", "openai/c", "openai/b"]
    tests = board["significance"]["tests"]
    assert [(t["a"], t["b"], t["n"]) for t in tests] == [("openai/a", "openai/b", 2), ("openai/c", "openai/b", 4)]
    expected = tau_difference_test(
        [(0.2, 0.2), (0.9, 0.95), (0.6, 0.85), (0.8, 0.55)],
        [(0.2, 0.1), (0.9, 0.5), (0.6, 0.9), (0.8, 0.7)],
        resamples=120,
        seed=5,
    )
    assert (tests[1]["difference"], tests[1]["paired_bootstrap_p"]) == (expected.difference, expected.bootstrap_p)


def test_a_run_with_no_value_of_the_ranked_measure_is_not_ranked(data, tmp_path, monkeypatch):
    monkeypatch.setattr(TOY, "judge_measures", lambda run: {"first": {"u1": float("nan")}})
    _, (row,) = judge_boards([_submission(data, "openai/a", {"u1": 0.5})], tmp_path, SETTINGS)
    assert row["reasons"] == ["the run gives no unit a value of the measure judges are ranked by"]
    monkeypatch.setattr(TOY, "judge_measures", lambda run: {})
    _, (row,) = judge_boards([_submission(data, "openai/a", {"u1": 0.5})], tmp_path, SETTINGS)
    assert row["reasons"] == ["the run gives no unit a value of the measure judges are ranked by"]


def test_a_judge_that_saw_other_candidates_is_named_with_both_digests(data, tmp_path, agree_family):
    import hashlib

    a = _judged(data, "openai/a", [0.15, 0.35, 0.25, 0.95, 0.55, 0.85])
    b = _judged(data, "openai/b", [0.9, 0.1, 0.8, 0.2, 0.7, 0.3])
    c = _judged(data, "openai/c", [0.9, 0.1, 0.8, 0.2, 0.7, 0.3])
    c = replace(c, run=replace(c.run, samples=[replace(s, candidate=None) for s in c.run.samples]))

    def digest(candidates: list[str]) -> str:
        pairs = sorted((f"s{i}", text) for i, text in enumerate(candidates))
        return hashlib.sha256(json.dumps(pairs, sort_keys=True, default=str).encode()).hexdigest()[:12]

    (board,), (row,) = judge_boards([a, b, c], tmp_path / "site", SETTINGS)
    assert row == {
        "system": "openai/c",
        "task": "toy_agree_unit",
        "log": "../logs/c.eval",
        "reasons": [
            f"not comparable: candidates judged differs ({digest([''] * 6)} vs the board's "
            f"{digest([f'candidate s{i}' for i in range(6)])})"
        ],
    }


def test_submissions_with_problems_are_skipped_not_stopped_at(data, tmp_path):
    refused = replace(_submission(data, "openai/x", {"u1": 0.1, "u2": 0.3}), problems=["edited"])
    unknown = _submission(data, "openai/y", {"u1": 0.1, "u2": 0.3})
    unknown = replace(unknown, run=replace(unknown.run, task="radiology_tasks/unknown_family"))
    named = _submission(data, "openai/z", {"u1": 0.2, "u2": 0.4}, name="Z")
    named = replace(named, run=replace(named.run, judge=None))
    good = _submission(data, "openai/a", {"u1": 0.5, "u2": 0.6})
    boards, rows = judge_boards([refused, unknown, named, good], tmp_path / "site", SETTINGS)
    assert [e["system"] for e in boards[0]["entries"]] == ["openai/a"]
    assert [(row["system"], row["reasons"][0][:40]) for row in rows] == [
        ("openai/y", "task unknown_family cannot rank judges: "),
        ("Z", "no judge named (--model-role grader=<jud"),
    ]
