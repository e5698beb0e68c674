"""An answer that runs into its token budget counts as cut whatever the provider's stop reason says.

Inspect's `hf/` provider reports ``unknown`` when generation stops at ``max_tokens``. The judge here is the
stub served on 127.0.0.1 through Inspect's `openai-api` provider, answering with the finish reason ``abort``,
which Inspect also maps to ``unknown``; its usage carries the answer's tokens (one per word). The log is then
re-scored as the leaderboard does, and so is the same log as a version without the new field wrote it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from radiology_tasks.core.judge import stored_unreadable_reason
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.rescore import rescoring_violations
from tests.conftest import GOOD_ROWS, write_jsonl
from tests.green_vert.test_scorer import SCORER, candidate_in
from tests.judge_answers import assessment
from tests.leaderboard.runs import edited, run_task, scripted_judge
from tests.openai_stub import StubReply
from tests.report_values import report_values

BUDGET = 100
FULL = assessment({"c": 1}, 1, 0.40)  # 138 words: cut at 100, whole at 200
# An answer whose explanation runs on: cut at any budget the task sends.
RAMBLING = FULL.replace("one by one.", "one by one, " + "again and " * 150 + "done.")


def _first_words(text: str, n: int) -> str:
    """`text` up to its n-th word, line breaks kept: what a judge stopped after n tokens would have written."""
    match = re.match(rf"(?:\S+\s+){{{n - 1}}}\S+", text)
    assert match is not None
    return match.group(0)


def _reply(body: dict[str, Any]) -> StubReply:
    budget = body["max_tokens"]
    if candidate_in(body) == GOOD_ROWS[0]["candidate"] and budget > BUDGET:
        return StubReply(FULL)  # the larger budget is enough for the first candidate
    return StubReply(_first_words(RAMBLING, budget), finish_reason="abort")


@pytest.fixture(scope="module")
def cut_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cut")
    data = write_jsonl(root / "pairs.jsonl", [dict(GOOD_ROWS[0], id="long"), dict(GOOD_ROWS[1], id="always-long")])
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch, _reply):
        return run_task(root / "logs", data=str(data), judge_max_tokens=BUDGET)


def _scores(path: Path) -> dict[str, Any]:
    run = read_run(path)
    return {sample.id: sample for sample in run.samples}


def test_an_unknown_stop_at_the_budget_is_asked_again_and_counted_truncated(cut_log: Path) -> None:
    samples = _scores(cut_log)
    long = samples["long"].metadata["judge_attempts"]
    assert [a["stop_reason"] for a in long] == ["unknown", "stop"]
    assert [a["truncated_by_tokens"] for a in long] == [True, False]
    assert [(a["max_tokens"], a["output_tokens"]) for a in long] == [(BUDGET, BUDGET), (2 * BUDGET, 138)]
    assert samples["long"].values["vert"] == pytest.approx(0.40)
    assert samples["long"].metadata["judge_truncated"] is True

    always = samples["always-long"]
    attempts = always.metadata["judge_attempts"]
    assert [a["stop_reason"] for a in attempts] == ["unknown"] * 3
    assert [a["max_tokens"] for a in attempts] == [BUDGET, 2 * BUDGET, 2 * BUDGET]
    assert [a["problem"] for a in attempts] == ["truncated"] * 3
    assert always.metadata["unscored"]["vert"] == "truncated"

    figures = report_values(read_eval_log(str(cut_log)))
    assert figures["truncated"] == 2.0
    assert figures["parse_failure_rate"] == 0.5


def test_the_cut_log_re_scores_with_no_line_and_reads_the_reason_the_scorer_gave(cut_log: Path) -> None:
    run = read_run(cut_log)
    assert rescoring_violations(run) == []
    always = next(sample for sample in run.samples if sample.id == "always-long")
    assert stored_unreadable_reason(always.metadata) == always.metadata["unscored"]["vert"] == "truncated"


def _as_written_before_the_field(log: EvalLog) -> None:
    for sample in log.samples or []:
        for attempt in sample.scores[SCORER].metadata["judge_attempts"]:  # type: ignore[index, union-attr]
            del attempt["truncated_by_tokens"]


def test_a_log_without_the_field_still_re_scores(cut_log: Path) -> None:
    old = edited(cut_log, _as_written_before_the_field, "before-the-field.eval")
    run = read_run(old)
    assert all("truncated_by_tokens" not in a for s in run.samples for a in s.metadata["judge_attempts"])
    assert rescoring_violations(run) == []
