"""Re-scoring ran_score logs: real runs on demo rows with a scripted judge, then the log read back and edited.

The hooks are called directly, the way the leaderboard's generic checks use a family's `Rescoring`.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.core.catalog import bundled_dataset
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle
from radiology_tasks.leaderboard.checks import run_violations
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.rescore import rescoring_violations
from radiology_tasks.ran_score.commands import add_commands
from radiology_tasks.ran_score.rescoring import BREAKDOWN_TITLE, RESCORING
from radiology_tasks.ran_score.tasks import ran_score
from tests.conftest import write_jsonl
from tests.leaderboard.runs import edited, scripted_judge
from tests.openai_stub import StubReply
from tests.ran_score.helpers import KEY_OF, batch_answer, label_answer, report_in

JUDGE = "openai-api/stubsvc/stub-judge"
SCORER = "finding_agreement"
DEMO = [json.loads(line) for line in bundled_dataset("ran-score-demo").read_text(encoding="utf-8").splitlines()]
ROWS = DEMO[:4]
REFERENCE_POSITIVES = {
    row["reference"]: {column for column, value in row["gold_labels"].items() if value and column != "No Finding"}
    for row in ROWS
}
# The scripted candidates: 01 misses Atelectasis, 02 is read on the retry, 03 adds Cardiomegaly, 04 is never read.
CANDIDATE_POSITIVES = {
    ROWS[0]["candidate"]: REFERENCE_POSITIVES[ROWS[0]["reference"]] - {"Atelectasis"},
    ROWS[1]["candidate"]: set(),
    ROWS[2]["candidate"]: REFERENCE_POSITIVES[ROWS[2]["reference"]] | {"Cardiomegaly"},
}


def _answer(positives: set[str], report: str) -> str:
    return batch_answer({KEY_OF[column]: report[:12] for column in positives})


def demo_reply(body: dict[str, Any]) -> str:
    report = report_in(body)
    if report in REFERENCE_POSITIVES:
        return _answer(REFERENCE_POSITIVES[report], report)
    if report == ROWS[1]["candidate"] and body.get("seed") is None:
        return "not json"
    if report in CANDIDATE_POSITIVES:
        return _answer(CANDIDATE_POSITIVES[report], report)
    return "I cannot tell."


def _run(log_dir: Path, reply: Callable[[dict[str, Any]], str | StubReply], **task_args: Any) -> Path:
    with pytest.MonkeyPatch.context() as patch, scripted_judge(patch, reply):
        (log,) = inspect_eval(
            ran_score(**task_args), model="none", model_roles={"grader": JUDGE}, log_dir=str(log_dir), display="none"
        )
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def demo_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _run(tmp_path_factory.mktemp("demo"), demo_reply, data="ran-score-demo", limit=4, label_cache="off")


violations = rescoring_violations


def _sample(log: EvalLog, sample_id: str) -> Any:
    return next(s for s in log.samples or [] if s.id == sample_id).scores[SCORER]


def test_an_honest_log_gives_no_line_and_its_figures_follow_from_the_labels(demo_log):
    run = read_run(demo_log)
    assert violations(run) == []
    values = {s.id: s.values["label_agreement"] for s in run.samples}
    assert values == pytest.approx({"cxr-ran-01": 20 / 21, "cxr-ran-02": 1.0, "cxr-ran-03": 20 / 21, "cxr-ran-04": 0.0})
    assert RESCORING.ranked(run).key == "ran_score" and RESCORING.ranked(run).corpus
    # Worst: 04's unread candidate is the opposite of its reference on every label. Nonzero F1s: Cardiomegaly 1/2,
    # Lung Opacity 4/5, and 2/3 for Consolidation, No Finding, Pleural Effusion, Pneumonia, Support Devices.
    assert RESCORING.corpus_score(run.samples) == pytest.approx((1 / 2 + 4 / 5 + 5 * 2 / 3) / 21)
    assert run.results["ran_score"] == pytest.approx((1 / 2 + 4 / 5 + 5 * 2 / 3) / 21)
    table = RESCORING.breakdown(run)[BREAKDOWN_TITLE]
    assert table["Lung Opacity"] == pytest.approx(0.8) and table["Atelectasis"] == 0.0 and len(table) == 21


def test_the_corpus_score_applies_the_samples_unscored_policy(demo_log):
    run = read_run(demo_log)
    excluded = [dataclasses.replace(s, metadata={**s.metadata, "unscored_policy": "exclude"}) for s in run.samples]
    # Exclude leaves 04's candidate out: Cardiomegaly 2/3, six labels 1, the rest 0.
    assert RESCORING.corpus_score(excluded) == pytest.approx((2 / 3 + 6) / 21)
    assert "sample cxr-ran-02: scored under unscored=exclude, not the run's worst" in RESCORING.run_checks(
        dataclasses.replace(run, samples=excluded)
    )


def test_an_edited_label_agreement_is_refused_naming_the_sample(demo_log):
    def change(log: EvalLog) -> None:
        _sample(log, "cxr-ran-03").value["label_agreement"] = 1.0

    lines = violations(read_run(edited(demo_log, change, "agreement.eval")))
    # From 1.4.0 the mean label agreement is the report's, not the log's, so only the sample is named.
    assert lines == [f"sample cxr-ran-03: logged label_agreement 1 but its stored judge answer gives {20 / 21:.6g}"]


def test_an_edited_stored_answer_is_refused_naming_the_sample(demo_log):
    forged = _answer(REFERENCE_POSITIVES[ROWS[0]["reference"]], ROWS[0]["candidate"])

    def change(log: EvalLog) -> None:
        attempts = _sample(log, "cxr-ran-01").metadata["judge_attempts"]
        next(a for a in attempts if a["report"] == "candidate")["answer"] = forged

    lines = violations(read_run(edited(demo_log, change, "answer.eval")))
    assert "sample cxr-ran-01: the stored judge answer is not one the judge returned in this run" in lines
    assert any(line.startswith("sample cxr-ran-01: logged label_agreement") for line in lines)
    assert all(line.startswith("sample cxr-ran-01: ") for line in lines)


def test_an_edited_stored_label_is_refused_naming_the_sample(demo_log):
    def change(log: EvalLog) -> None:
        _sample(log, "cxr-ran-01").metadata["candidate_labels"]["Atelectasis"] = 1

    lines = violations(read_run(edited(demo_log, change, "label.eval")))
    assert (
        "sample cxr-ran-01: its stored candidate labels are not what its stored judge answers give "
        "(Atelectasis: logged 1, answers give 0)"
    ) in lines


def test_an_edited_logged_macro_f1_is_refused_naming_the_figure(demo_log):
    def change(log: EvalLog) -> None:
        for score in log.results.scores:
            if "ran_score" in score.metrics:
                score.metrics["ran_score"].value = 0.5

    lines = violations(read_run(edited(demo_log, change, "macro.eval")))
    assert lines == [f"results: logged ran_score 0.5 but the samples give {(1 / 2 + 4 / 5 + 10 / 3) / 21:.6g}"]


def test_a_reused_reference_is_checked_against_its_reading_and_an_earlier_runs_cache_is_refused(tmp_path):
    # Two candidates of the first demo reference and one of the second; the reference is read once per run.
    rows = [
        {"id": "a", "reference": ROWS[0]["reference"], "candidate": ROWS[0]["candidate"]},
        {"id": "b", "reference": ROWS[0]["reference"], "candidate": ROWS[2]["candidate"]},
        {"id": "c", "reference": ROWS[1]["reference"], "candidate": ROWS[1]["candidate"]},
    ]
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    cache = str(tmp_path / "cache")
    first = _run(tmp_path / "first", demo_reply, data=str(data), label_cache=cache)
    run = read_run(first)
    sources = sorted(s.metadata["reference_source"] for s in run.samples if s.id in ("a", "b"))
    assert sources == ["cache", "judge"] and violations(run) == []

    reused = next(s.id for s in run.samples if s.metadata["reference_source"] == "cache")

    def change(log: EvalLog) -> None:
        _sample(log, reused).metadata["reference_labels"]["Atelectasis"] = 0

    assert any(
        line.startswith(f"sample {reused}: its stored reference labels are not what")
        for line in violations(read_run(edited(first, change, "reused.eval")))
    )
    again = read_run(_run(tmp_path / "second", demo_reply, data=str(data), label_cache=cache))
    assert [line for line in violations(again) if "label cache" in line] == [
        f"sample {i}: its reference labels come from the label cache of an earlier run, so no judge answer in this "
        "log gives them (run with -T label_cache=off)"
        for i in ("a", "b", "c")
    ]


def test_per_label_answers_are_read_again_label_by_label(tmp_path):
    row = ROWS[0]
    positives = {row["reference"]: REFERENCE_POSITIVES[row["reference"]], row["candidate"]: {"Cardiomegaly"}}
    asked_key = {key: column for column, key in KEY_OF.items()}

    def reply(body: dict[str, Any]) -> str:
        report = report_in(body)
        key = next(k for k in asked_key if f"- {k} (" in body["messages"][-1]["content"])
        return label_answer(report[:12] if asked_key[key] in positives[report] else None)

    data = write_jsonl(tmp_path / "one.jsonl", [{k: row[k] for k in ("id", "reference", "candidate")}])
    log = _run(tmp_path, reply, data=str(data), extraction="per_label", label_cache="off")
    run = read_run(log)
    assert violations(run) == [] and len(run.samples[0].metadata["judge_attempts"]) == 40

    def change(log: EvalLog) -> None:
        attempts = _sample(log, row["id"]).metadata["judge_attempts"]
        attempts[:] = [a for a in attempts if a["label"] != "edema"]

    assert (
        "sample cxr-ran-01: candidate report: the task would have asked the judge about edema again, but the log "
        "stores no answer" in violations(read_run(edited(log, change, "dropped.eval")))
    )


def test_label_files_cannot_be_checked(demo_log):
    run = read_run(demo_log)
    with_file = dataclasses.replace(run, task_args={**run.task_args, "candidate_labels": "cand.csv"})
    assert "-T candidate_labels: labels read from a file cannot be checked against judge answers" in (
        RESCORING.run_checks(with_file)
    )


def test_ran_labels_subcommand(demo_log, tmp_path, capsys):
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["ran-labels", str(demo_log), "--out", str(tmp_path)])
    assert args.run(args) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"wrote 4 reference label rows to {tmp_path / 'reference_labels.csv'}"
    assert out[1] == f"wrote 3 candidate label rows to {tmp_path / 'candidate_labels.csv'}"
    assert out[2].startswith("skipped cxr-ran-04: unknown candidate labels: Atelectasis, ")


GOLD = {row["reference"]: {c for c, v in row["gold_labels"].items() if v and c != "No Finding"} for row in DEMO}
# Each candidate is read as its reference's gold labels without the first: some disagreement, nothing unread.
WHOLE = GOLD | {row["candidate"]: set(sorted(GOLD[row["reference"]])[1:]) for row in DEMO}


def whole_reply(body: dict[str, Any]) -> str:
    report = report_in(body)
    return _answer(WHOLE[report], report)


@pytest.fixture(scope="module")
def whole_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # Without -T data: the family's own default set.
    return _run(tmp_path_factory.mktemp("whole"), whole_reply, label_cache="off")


def test_a_whole_demo_run_passes_the_leaderboards_checks_and_a_forged_label_does_not(whole_log):
    log = whole_log
    run = read_run(log)
    assert run.dataset_name == "ran-score-demo"
    assert run_violations(run) == []

    def change(log: EvalLog) -> None:
        labels = _sample(log, "cxr-ran-05").metadata["reference_labels"]
        labels["Fracture"] = 1 - labels["Fracture"]

    lines = run_violations(read_run(edited(log, change, "forged.eval")))
    assert lines[0].startswith("sample cxr-ran-05: its stored reference labels are not what its stored judge answers")
    assert any(line.startswith("results: logged ran_score ") for line in lines[1:])


def test_two_systems_are_ranked_on_the_corpus_macro_f1_with_reports_resampled(whole_log, tmp_path):
    # System B writes each reference back as its candidate: the scripted judge labels it as the reference.
    perfect = write_jsonl(tmp_path / "perfect.jsonl", [{"id": r["id"], "candidate": r["reference"]} for r in DEMO])
    other = _run(tmp_path / "b", whole_reply, label_cache="off", candidates=str(perfect))
    bundles = []
    for name, log in (("A", whole_log), ("B", other)):
        bundles.append(tmp_path / f"bundle-{name}")
        write_bundle([log], bundles[-1], SystemCard(name=f"system {name}"))
    leaderboard = build_leaderboard(bundles, tmp_path / "site", Settings(resamples=50))
    assert leaderboard["not_ranked"] == []
    (board,) = leaderboard["boards"]
    assert (board["task"], board["score"], board["dataset"]["name"]) == ("ran_score", "ran_score", "ran-score-demo")
    assert "resamples reports" in board["note"]
    first, second = board["entries"]
    assert (first["system"], second["system"]) == ("system B", "system A")
    a, b = read_run(whole_log), read_run(other)
    assert (first["score"], second["score"]) == pytest.approx((b.results["ran_score"], a.results["ran_score"]))
    assert first["score"] > second["score"]
    assert second["ci_low"] <= second["score"] <= second["ci_high"] and second["n"] == len(DEMO)
    assert len(second["breakdown"][BREAKDOWN_TITLE]) == 21
    (test,) = board["significance"]["tests"]
    assert test["difference"] == pytest.approx(first["score"] - second["score"]) and test["n"] == len(DEMO)


# An answer cut by its token count: Inspect's hf/ provider says `unknown` at the budget ("abort" maps to it too).
CUT_BUDGET = 300


def cut_reply(body: dict[str, Any]) -> str | StubReply:
    """The first candidate's answer runs into the budget it was given; the larger budget is enough."""
    if report_in(body) == ROWS[0]["candidate"] and body["max_tokens"] == CUT_BUDGET:
        words = ('{"atelectasis": {"evidence": "' + " ".join(["again"] * CUT_BUDGET)).split()[:CUT_BUDGET]
        return StubReply(" ".join(words), finish_reason="abort")
    return demo_reply(body)


def _cut_run(log_dir: Path) -> Path:
    return _run(
        log_dir,
        cut_reply,
        data="ran-score-demo",
        limit=2,
        label_cache="off",
        judge_max_tokens=CUT_BUDGET,
        judge_retries=0,
    )


def _candidate_attempts(path: Path) -> list[dict[str, Any]]:
    sample = next(s for s in read_run(path).samples if s.id == "cxr-ran-01")
    return [a for a in sample.metadata["judge_attempts"] if a.get("report") == "candidate"]


def test_an_answer_cut_by_its_token_count_is_replayed_as_the_scorer_counted_it(tmp_path):
    log = _cut_run(tmp_path)
    attempts = _candidate_attempts(log)
    # No retries were allowed: the second call is the larger budget a cut answer gets.
    assert [(a["stop_reason"], a["truncated_by_tokens"], a["max_tokens"]) for a in attempts] == [
        ("unknown", True, CUT_BUDGET),
        ("stop", False, 2 * CUT_BUDGET),
    ]
    assert violations(read_run(log)) == []


def test_a_log_from_before_token_counts_counted_still_re_scores(tmp_path, monkeypatch):
    """Written as the scorer wrote it before: the stop reason alone decided, and attempts had no such field."""
    from radiology_tasks.core import judge

    def as_dict_before(attempt: judge.Attempt) -> dict[str, Any]:
        return {k: v for k, v in attempt.model_dump().items() if k != "truncated_by_tokens"}

    with monkeypatch.context() as before:
        before.setattr(judge, "stopped_at_budget", lambda stop, tokens, budget: stop == "max_tokens")
        before.setattr(judge.Attempt, "as_dict", as_dict_before)
        log = _cut_run(tmp_path)
    attempts = _candidate_attempts(log)
    assert [(a["stop_reason"], a["max_tokens"], a["output_tokens"]) for a in attempts] == [
        ("unknown", CUT_BUDGET, CUT_BUDGET)
    ]
    assert "truncated_by_tokens" not in attempts[0]
    sample = next(s for s in read_run(log).samples if s.id == "cxr-ran-01")
    # Read then as an unreadable answer, not a cut one.
    codes = {reason.partition(": ")[0] for reason in sample.metadata["candidate_unscored"].values()}
    assert codes == {"invalid_response_format"}
    assert violations(read_run(log)) == []
