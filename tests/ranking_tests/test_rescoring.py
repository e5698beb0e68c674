"""The leaderboard side: ranking runs are re-scored from their stored judge answers, and judges ranked by accuracy."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.ranking_tests.rescoring import RESCORING
from radiology_tasks.ranking_tests.tasks import ranking_tests
from tests.judge_answers import assessment
from tests.leaderboard.runs import edited
from tests.ranking_tests.judge_runs import careful_reply, flat_reply, vert_run

SCORER = "ranking_scorer"
JUDGES = SystemCard(track="judges")


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    """Two VERT runs over the same cases: a careful judge (a right, b a tie, c right) and a flat one (all ties)."""
    folder = tmp_path_factory.mktemp("ranking")
    with pytest.MonkeyPatch.context() as patch:
        careful = vert_run(patch, folder, careful_reply)
        flat = vert_run(patch, folder, flat_reply, judge="openai-api/stubsvc/flat-judge")
    yield {"careful": Path(careful.location), "flat": Path(flat.location)}


def _refusal(log: Path, tmp_path: Path) -> list[str]:
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([log], tmp_path / "bundle", JUDGES)
    return refused.value.lines


def test_an_honest_run_is_accepted_and_re_scored_alike(logs, tmp_path):
    write_bundle([logs["careful"]], tmp_path / "bundle", JUDGES)
    run = read_run(logs["careful"])
    assert {s.id: RESCORING.expected(run, s) for s in run.samples} == {
        "a": {"accuracy": 1.0, "tie": 0.0},
        "b": {"accuracy": 0.0, "tie": 1.0},
        "c": {"accuracy": 1.0, "tie": 0.0},
    }
    # Every candidate's answer is offered for the check against the judge's model events: two per case.
    assert all(len(RESCORING.answers(s)) == 2 for s in run.samples)


def test_an_edited_case_score_is_refused_naming_the_case(logs, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.samples is not None
        (sample,) = [s for s in log.samples if s.id == "b"]
        sample.scores[SCORER].value = {"accuracy": 1.0, "tie": 0.0}  # the tie claimed as right

    lines = _refusal(edited(logs["careful"], forge, "forged.eval"), tmp_path)
    assert any(line.startswith("forged.eval: sample b: logged accuracy 1 but") for line in lines), lines


def test_an_edited_candidate_score_is_refused_as_its_stored_answer_reads_otherwise(logs, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.samples is not None
        (sample,) = [s for s in log.samples if s.id == "b"]
        score = sample.scores[SCORER]
        assert score.metadata is not None
        score.metadata["candidates"][0]["score"] = 0.9  # C1 above C2's 0.7, and the case claimed right to match
        score.value = {"accuracy": 1.0, "tie": 0.0}

    lines = _refusal(edited(logs["careful"], forge, "candidate.eval"), tmp_path)
    assert any(line.startswith("candidate.eval: sample b: logged accuracy 1 but") for line in lines), lines


def test_an_edited_stored_answer_is_refused(logs, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.samples is not None
        (sample,) = [s for s in log.samples if s.id == "b"]
        metadata = sample.scores[SCORER].metadata
        assert metadata is not None
        metadata["candidates"][0]["metadata"]["judge_answer"] = assessment({}, matched=1, score=0.9)
        sample.scores[SCORER].value = {"accuracy": 1.0, "tie": 0.0}

    lines = _refusal(edited(logs["careful"], forge, "answer.eval"), tmp_path)
    assert any(line.startswith("answer.eval: sample b:") and "judge" in line for line in lines), lines


def test_an_edited_logged_mean_is_refused(logs, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.results is not None
        log.results.scores[0].metrics["accuracy_mean"].value = 1.0

    lines = _refusal(edited(logs["careful"], forge, "mean.eval"), tmp_path)
    assert any(line.startswith("mean.eval: results: accuracy_mean 1 is not the mean") for line in lines), lines


def test_a_lexical_run_is_refused_with_the_reason(tmp_path):
    (log,) = inspect_eval(ranking_tests(), model="none", display="none", log_dir=str(tmp_path / "logs"))
    lines = _refusal(Path(log.location), tmp_path)
    assert any(
        "-T metric=rouge_l has no judge: ranking runs are ranked on the judges' track only" in line for line in lines
    )


def test_judges_are_ranked_by_ranking_test_accuracy(logs, tmp_path):
    bundles = [
        write_bundle([logs[name]], tmp_path / name, SystemCard(name=name, track="judges")).parent
        for name in ("flat", "careful")
    ]
    board = build_leaderboard(bundles, tmp_path / "site", Settings(resamples=200, seed=0))
    assert board["not_ranked"] == [] and board["boards"] == []
    (judges,) = board["judge_boards"]
    assert (judges["kind"], judges["task"], judges["score"]) == ("measures", "ranking_tests", "accuracy")
    entries = {e["submitted_as"]: e for e in judges["entries"]}
    # careful: a and c right, b a tie; flat: three ties (accuracy 0, tie share 1).
    assert entries["careful"]["score"] == pytest.approx(2 / 3) and entries["careful"]["rank"] == 1
    assert entries["flat"]["score"] == 0.0 and entries["flat"]["rank"] == 2
    assert entries["careful"]["measures"]["tie_share"]["value"] == pytest.approx(1 / 3)
    assert entries["flat"]["measures"]["tie_share"]["value"] == 1.0
    assert entries["flat"]["measures"]["unscored_share"]["value"] == 0.0


def test_an_unscored_case_counts_as_not_ordered_on_the_board():
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence

    def sample(case: str, accuracy: float | None, tie: float | None) -> SampleEvidence:
        values = {"accuracy": accuracy, "tie": tie}
        return SampleEvidence(case, 1, None, values, {}, None, [], True)

    run = RunEvidence(
        Path("x.eval"),
        "0" * 64,
        "radiology_tasks/ranking_tests",
        "1.0.0",
        {},
        "success",
        "none",
        "judge",
        {},
        SCORER,
        {},
        [sample("a", 1.0, 0.0), sample("b", None, None), sample("c", 0.0, 1.0)],
    )
    assert RESCORING.judge_measures(run) == {
        "accuracy": {"a": 1.0, "b": 0.0, "c": 0.0},
        "tie_share": pytest.approx({"a": 0.0, "b": float("nan"), "c": 1.0}, nan_ok=True),
        "unscored_share": {"a": 0.0, "b": 1.0, "c": 0.0},
    }
