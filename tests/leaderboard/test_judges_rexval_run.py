"""A real `vert` run on ReXVal as downloaded, judged by a scripted judge, submitted on the judges' track: it ranks
against the radiologists' mean significant and total errors, and a log whose experts were edited is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog
from scipy import stats

from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from tests.judge_answers import assessment
from tests.leaderboard.runs import edited, run_task, scripted_judge
from tests.leaderboard.test_judges_truths import IDS, _errors, _mean_totals
from tests.real_layouts import rexval_copy

# The scripted judge's score for each candidate text of the ReXVal copy (study 0's four texts differ only in the
# candidate's name), longest text first so that no text is found inside another.
SCORES = {
    "No acute process (radgraph).": 0.9,
    "No acute process (bertscore).": 0.8,
    "No acute process (s_emb).": 0.6,
    "No acute process (bleu).": 0.7,
    "Left pleural effusion, cardiomegaly.": 0.75,
    "Large right pleural effusion.": 0.2,
    "Small left pleural effusion .": 0.85,
    "No effusion.": 0.1,
}


def _reply(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    score = next(value for text, value in SCORES.items() if text in prompt)
    return assessment({}, 2, score)


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("rexval-run")
    data = rexval_copy(root / "ReXVal", _errors())
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch, _reply):
        return run_task(root / "logs", data=str(data))


@pytest.mark.slow
def test_a_rexval_run_ranks_its_judge_against_both_error_truths(honest, tmp_path):
    bundle = write_bundle([honest], tmp_path / "bundle", SystemCard(track="judges")).parent
    leaderboard = build_leaderboard([bundle], tmp_path / "site", Settings(resamples=100, seed=0))
    assert leaderboard["not_ranked"] == [] and leaderboard["boards"] == []
    boards = {b["truth"]: b for b in leaderboard["judge_boards"]}
    assert set(boards) == {"significant_errors", "total_errors"}
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(honest))
    assert log.samples is not None
    judged = {str(s.id): s.scores["report_judge"].value["vert"] for s in log.samples}  # type: ignore[index]
    for truth, significant_only in (("significant_errors", True), ("total_errors", False)):
        means = _mean_totals(_errors(), significant_only=significant_only)
        expected = stats.kendalltau([judged[i] for i in IDS], [-means[i] for i in IDS], variant="b").statistic
        (entry,) = boards[truth]["entries"]
        assert entry["score"] == pytest.approx(expected, abs=1e-12) and entry["n"] == 8
        assert boards[truth]["id"] == f"judges-vert-vert-rexval-{truth}"


@pytest.mark.slow
def test_a_log_whose_expert_counts_were_edited_is_refused_naming_the_sample(honest, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.samples is not None
        sample = next(s for s in log.samples if s.id == "1-bleu")
        metadata = sample.scores["report_judge"].metadata  # type: ignore[index]
        metadata["expert_significant"] = {**metadata["expert_significant"], "a": 0.0}

    forged = edited(honest, forge, "forged.eval")
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([forged], tmp_path / "bundle", SystemCard(track="judges"))
    assert refused.value.lines == [
        'forged.eval: sample 1-bleu: logged expert_significant {"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0, '
        '"f": 0.0} is not the data\'s {"a": 2.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.0, "f": 0.0}'
    ]
