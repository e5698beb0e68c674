"""A CRIMSON log submitted, re-scored from its stored judge answers and ranked; edits to it are refused by sample."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.core.family import family_of
from radiology_tasks.crimson.family import FAMILY
from radiology_tasks.crimson.rescoring import RESCORING
from radiology_tasks.leaderboard.board import Settings, build_leaderboard, expert_points
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.rescore import rescoring_violations
from tests.crimson.stub_judge import ANSWERS, readable_reply, reply
from tests.crimson.test_task import run
from tests.leaderboard.runs import edited

READABLE = {"a": 1.0, "b": 2 / 3, "c": 0.5, "d": 0.0}


@pytest.fixture(scope="module")
def log_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    with pytest.MonkeyPatch.context() as monkeypatch:
        log, _ = run(monkeypatch, tmp_path_factory.mktemp("honest"), readable_reply)
    return Path(log.location)


def _score(log: EvalLog, sample_id: str):
    assert log.samples is not None
    return next(s for s in log.samples if s.id == sample_id).scores["crimson_judge"]


def test_the_family_names_its_rescoring_and_ranks_the_unbounded_mean():
    assert family_of("crimson") is FAMILY and FAMILY.rescoring("crimson") is RESCORING
    ranked = RESCORING.ranked(None)  # type: ignore[arg-type]  # the ranked score does not depend on the run
    assert (ranked.key, ranked.bounded, ranked.corpus) == ("crimson", False, False)


def test_an_honest_log_is_re_scored_to_its_own_values_and_ranked(log_path, tmp_path):
    evidence = read_run(log_path)
    assert {s.id: RESCORING.expected(evidence, s)["crimson"] for s in evidence.samples} == pytest.approx(READABLE)
    assert rescoring_violations(evidence) == []
    # The judges' track pairs the CRIMSON score with the experts' score of each candidate (samples a-d in order).
    assert RESCORING.agreement_key(evidence) == "crimson"
    points = expert_points(evidence)
    assert [tuple(point) for point in points] == [
        pytest.approx(p) for p in [(1.0, 1.0), (0.6, 2 / 3), (0.8, 0.5), (0.2, 0.0)]
    ]
    profile = RESCORING.breakdown(evidence)
    assert profile == {
        "Weighted errors per report": pytest.approx(
            {"false findings": 0.0, "missing findings": (0.5 + 0.5) / 4, "attribute errors": 0.5 / 4}
        )
    }
    bundle = tmp_path / "bundle"
    write_bundle([log_path], bundle, SystemCard(name="system a"))
    board = build_leaderboard([bundle], tmp_path / "site", Settings(resamples=200))
    assert board["not_ranked"] == []
    (ranked,) = board["boards"]
    assert (ranked["task"], ranked["score"], ranked["task_version"]) == ("crimson", "crimson", FAMILY.version)
    (entry,) = ranked["entries"]
    assert entry["score"] == pytest.approx(sum(READABLE.values()) / 4)


def _refused(path: Path, tmp_path: Path) -> list[str]:
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([path], tmp_path / "refused", SystemCard())
    return refused.value.lines


def test_an_edited_score_is_refused_naming_the_sample(log_path, tmp_path):
    def forge(log: EvalLog) -> None:
        _score(log, "d").value["crimson"] = 1.0

    lines = _refused(edited(log_path, forge, "score.eval"), tmp_path)
    assert any(line.startswith("score.eval: sample d: logged crimson 1 but") for line in lines), lines


def test_an_edited_stored_answer_is_refused_naming_the_sample(log_path, tmp_path):
    def forge(log: EvalLog) -> None:
        score = _score(log, "d")
        score.metadata["judge_answer"] = ANSWERS["a"]

    lines = _refused(edited(log_path, forge, "answer.eval"), tmp_path)
    assert any(line.startswith("answer.eval: sample d:") and "judge" in line for line in lines), lines


def test_an_edited_mean_is_refused(log_path, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.results is not None
        log.results.scores[0].metrics["crimson_mean"].value = 0.99

    lines = _refused(edited(log_path, forge, "mean.eval"), tmp_path)
    assert any("crimson_mean 0.99 is not the mean" in line for line in lines), lines


def test_an_unscored_sample_is_re_scored_to_the_floor(monkeypatch, tmp_path):
    log, _ = run(monkeypatch, tmp_path, reply)
    evidence = read_run(Path(log.location))
    c = next(s for s in evidence.samples if s.id == "c")
    assert RESCORING.expected(evidence, c) == {"crimson": -1.0} == c.values
    assert rescoring_violations(evidence) == []
