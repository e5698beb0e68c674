"""The judges' boards from runs built in memory, ranked through toy families' `Rescoring` hooks.

The experts' scores are in the data file (`data`), where the leaderboard reads them; the samples log the same.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.leaderboard.board import Settings, Submission
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence
from radiology_tasks.leaderboard.judges import judge_boards
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
from radiology_tasks.scorers.leaderboard.agreement import kendall_tau, tau_difference_test
from radiology_tasks.scorers.leaderboard.significance import mean_interval
from tests.leaderboard.memory_runs import memory_run, sample
from tests.toy_families import ToyFamily

EXPERT = [0.1, 0.4, 0.2, 0.9, 0.6, 0.8, 0.3, 0.7]
SETTINGS = Settings(resamples=300, seed=1)


def _measures(run: RunEvidence) -> dict[str, dict[str, float]]:
    scores = {s.id: float(s.values["vert"] or 0.0) for s in run.samples}
    return {"balance": scores, "doubled": {k: 2 * v for k, v in scores.items()}}


def _expected(run: RunEvidence, sample: object) -> dict[str, float]:
    return {}


class _Plain(Rescoring):
    def ranked(self, run: RunEvidence) -> RankedScore:
        return RankedScore("vert")

    def expected(self, run: RunEvidence, sample: object) -> dict[str, float]:
        return _expected(run, sample)


class _Agree(_Plain):
    def agreement_key(self, run: RunEvidence) -> str:
        return "vert"


class _Measures(_Plain):
    def judge_measures(self, run: RunEvidence) -> dict[str, dict[str, float]]:
        return _measures(run)


TOYS = {"toy_agree": _Agree(), "toy_measures": _Measures(), "toy_plain": _Plain()}


@pytest.fixture(autouse=True)
def toy_families(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, rescoring in TOYS.items():
        add_family(ToyFamily(name, (name,), rules={name: rescoring}))
    yield
    for name in TOYS:
        remove_family(name)


def judged(data: Path, task: str, scores: list[float], judge: str, *, name: str, **changes: object) -> Submission:
    """A checked judges-track submission of `task` whose judge gave sample s<i> the score scores[i]."""
    samples = [
        replace(
            sample(f"s{i}", values={"vert": v}, expert_score=EXPERT[i]), judge_calls=[JudgeCall(judge, 0.0, None, "")]
        )
        for i, v in enumerate(scores)
    ]
    run = memory_run(data, samples, task=f"radiology_tasks/{task}", judge=judge, sha256=name[0] * 64, **changes)
    log = data.parent / "logs" / f"{name}.eval"
    return Submission({"name": name, "institution": "Demo"}, "judges", log, run)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    rows = [
        {"id": f"s{i}", "reference": f"R {i}.", "candidate": f"candidate s{i}", "expert_score": EXPERT[i]}
        for i in range(8)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


CLOSE = [0.15, 0.35, 0.25, 0.95, 0.55, 0.85, 0.2, 0.75]  # one swapped pair (s6 against s2)
NOISY = [0.9, 0.1, 0.8, 0.2, 0.7, 0.3, 0.6, 0.4]


def test_judges_are_ranked_by_tau_with_intervals_and_a_paired_test(data, tmp_path):
    close = judged(data, "toy_agree", CLOSE, "openai/close", name="close")
    noisy = judged(data, "toy_agree", NOISY, "openai/noisy", name="noisy")
    boards, not_ranked = judge_boards([noisy, close], tmp_path / "site", SETTINGS)
    assert not_ranked == []
    (board,) = boards
    assert (board["kind"], board["task"], board["score"], board["measures"]) == (
        "agreement",
        "toy_agree",
        "vert",
        ["kendall_tau_b"],
    )
    assert [e["system"] for e in board["entries"]] == ["openai/close", "openai/noisy"]
    assert [e["rank"] for e in board["entries"]] == [1, 2]
    top = board["entries"][0]
    assert top["score"] == pytest.approx(kendall_tau(list(zip(EXPERT, CLOSE, strict=True)))) == pytest.approx(26 / 28)
    assert top["ci_low"] <= top["score"] <= top["ci_high"] and top["n"] == 8
    assert top["measures"]["kendall_tau_b"]["value"] == top["score"]
    assert top["submitted_as"] == "close" and top["institution"] == "Demo"
    assert top["judge"] == {"model": "openai/close", "temperatures": [0.0], "seeded": False}
    assert top["log"] == "../logs/close.eval"
    (test,) = board["significance"]["tests"]
    expected = tau_difference_test(
        list(zip(EXPERT, CLOSE, strict=True)), list(zip(EXPERT, NOISY, strict=True)), resamples=300, seed=1
    )
    assert (test["a"], test["b"], test["n"]) == ("openai/close", "openai/noisy", 8)
    assert (test["difference"], test["paired_bootstrap_p"]) == (expected.difference, expected.bootstrap_p)
    assert test["paired_bootstrap_p"] < 0.05 and test["randomization_p"] is None


def test_runs_that_differ_in_more_than_the_judge_are_not_ranked_together(data, tmp_path):
    a = judged(data, "toy_agree", CLOSE, "openai/a", name="a")
    b = judged(data, "toy_agree", NOISY, "openai/b", name="b")
    brief = judged(data, "toy_agree", CLOSE, "openai/c", name="c")
    brief = replace(brief, run=replace(brief.run, task_args={**brief.run.task_args, "detail": "brief"}))
    other = judged(data, "toy_agree", CLOSE, "openai/d", name="d")
    other = replace(other, run=replace(other.run, samples=[replace(s, candidate="x") for s in other.run.samples]))
    boards, not_ranked = judge_boards([a, b, brief, other], tmp_path, SETTINGS)
    assert [e["system"] for e in boards[0]["entries"]] == ["openai/a", "openai/b"]
    reasons = {row["system"]: row["reasons"] for row in not_ranked}
    assert reasons["openai/c"] == ["not comparable: task configuration differs (detail: brief vs the board's full)"]
    assert reasons["openai/d"][0].startswith("not comparable: candidates judged differs")


def test_a_family_without_judge_hooks_a_missing_judge_and_problems(data, tmp_path):
    plain = judged(data, "toy_plain", CLOSE, "openai/a", name="plain")
    nameless = judged(data, "toy_agree", CLOSE, "openai/a", name="nameless")
    nameless = replace(nameless, run=replace(nameless.run, judge=None))
    constant = judged(data, "toy_agree", [0.5] * 8, "openai/flat", name="flat")
    refused = replace(judged(data, "toy_agree", CLOSE, "openai/x", name="x"), problems=["sample s0: edited"])
    boards, not_ranked = judge_boards([plain, nameless, constant, refused], tmp_path, SETTINGS)
    assert boards == []
    reasons = [row["reasons"][0] for row in not_ranked]
    assert reasons[0] == (
        "task toy_plain cannot rank judges: its family defines neither agreement with experts nor judge measures"
    )
    assert reasons[1].startswith("no judge named")
    assert reasons[2] == "Kendall's tau is undefined: the expert or the judge scores are all equal"
    assert len(not_ranked) == 3, "a submission with problems is the caller's to list"


def test_judge_measures_rank_by_the_first_measure_with_intervals_over_units(data, tmp_path):
    low = judged(data, "toy_measures", [0.2, 0.3, 0.1, 0.4, 0.2, 0.3, 0.1, 0.2], "openai/low", name="low")
    high = judged(data, "toy_measures", [0.8, 0.9, 0.7, 1.0, 0.6, 0.9, 0.8, 0.7], "openai/high", name="high")
    (board,), not_ranked = judge_boards([low, high], tmp_path, SETTINGS)
    assert not_ranked == [] and board["kind"] == "measures"
    assert (board["score"], board["measures"]) == ("balance", ["balance", "doubled"])
    assert [e["system"] for e in board["entries"]] == ["openai/high", "openai/low"]
    top = board["entries"][0]
    interval = mean_interval([0.8, 0.9, 0.7, 1.0, 0.6, 0.9, 0.8, 0.7], resamples=300, seed=1)
    assert (top["score"], top["ci_low"], top["ci_high"], top["n"]) == (interval.value, interval.low, interval.high, 8)
    assert top["measures"]["doubled"]["value"] == pytest.approx(2 * interval.value)
    (test,) = board["significance"]["tests"]
    assert test["difference"] == pytest.approx(0.8 - 0.225) and test["paired_bootstrap_p"] < 0.01
    assert test["randomization_p"] < 0.05


def test_one_judge_model_in_two_settings_is_told_apart_by_its_submitted_name():
    from radiology_tasks.leaderboard.judges import _ranked

    entries = [
        {"system": "llama-cpp/smollm2-135m", "submitted_as": "greedy", "log": "a/x.eval", "score": 0.1},
        {"system": "llama-cpp/smollm2-135m", "submitted_as": None, "log": "b/y.eval", "score": 0.3},
        {"system": "openai/gpt-4.1", "submitted_as": "api", "log": "c/z.eval", "score": 0.2},
    ]
    ranked, extras = _ranked(entries, ["x", "y", "z"])
    assert [(e["system"], e["rank"]) for e in ranked] == [
        ("llama-cpp/smollm2-135m (y)", 1),
        ("openai/gpt-4.1", 2),
        ("llama-cpp/smollm2-135m (greedy)", 3),
    ]
    assert extras == ["y", "z", "x"]
