"""`radiology-tasks submit` on credentialed data: the bundle holds no report or answer text, and still ranks.

Whole runs of vert, green, ct_finebench, ran_score and judge_sensitivity on demo data marked credentialed are
submitted as one bundle; every file of it (each `.eval` archive's members decompressed) is searched for every
reference, candidate and judge answer, and every run of eight consecutive words of one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, read_eval_log

from radiology_tasks.core.tables import file_sha256
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.checks import run_violations
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.redact import HASH_ONLY, HASH_PREFIX, text_hash
from radiology_tasks.leaderboard.rules import PARSED_ANSWERS
from radiology_tasks.leaderboard.run_data import data_absence, data_checked
from tests.leaderboard.credentialed_runs import family_runs, leaks, mark_flat_credentialed, secret_texts
from tests.leaderboard.runs import edited

pytestmark = pytest.mark.slow

TASKS = ("vert", "green", "ct_finebench", "ran_score", "judge_sensitivity")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return family_runs(tmp_path_factory.mktemp("credentialed"))


@pytest.fixture(scope="module")
def bundle(runs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bundles") / "demo-system"
    with pytest.MonkeyPatch.context() as monkeypatch:
        mark_flat_credentialed(monkeypatch)
        write_bundle(list(runs.values()), out, SystemCard(name="demo system"))
    return out


def _bundled(bundle: Path, runs: dict[str, Path], task: str) -> Path:
    return bundle / "logs" / runs[task].name


def test_a_credentialed_bundle_holds_no_reference_candidate_or_judge_answer(runs, bundle):
    texts = secret_texts(runs.values())
    assert len(texts) > 100, "the search must have the runs' texts to look for"
    assert leaks(bundle, texts) == []


def test_the_search_finds_every_run_s_texts_in_a_bundle_that_keeps_them(runs, tmp_path):
    whole = write_bundle(list(runs.values()), tmp_path / "whole", SystemCard(name="demo system")).parent
    found = leaks(whole, secret_texts(runs.values()))
    for log in runs.values():
        assert any(line.startswith(str(whole / "logs" / log.name)) for line in found), log.name


def test_the_manifest_says_the_bundle_is_redacted_and_why(runs, bundle):
    manifest = json.loads((bundle / "manifest.json").read_text())
    assert "is credentialed (layout flat)" in manifest["redacted"]["reason"]
    for entry in manifest["runs"]:
        original = runs[entry["task"]]
        assert entry["redaction"]["source_sha256"] == file_sha256(original)
        assert entry["sha256"] == file_sha256(bundle / entry["log"]) != file_sha256(original)
        assert entry["redaction"]["hashed"] > 0


def test_a_redacted_log_opens_with_inspect_and_keeps_numbers_codes_and_parsed_answers(runs, bundle):
    original = read_eval_log(str(runs["vert"]))
    redacted = read_eval_log(str(_bundled(bundle, runs, "vert")))
    assert redacted.eval.metadata["redaction"]["reason"].startswith("dataset ")
    assert len(redacted.samples) == len(original.samples) == 8
    for before, after in zip(original.samples, redacted.samples, strict=True):
        assert after.target == text_hash(before.target)
        score, kept = before.scores["report_judge"], after.scores["report_judge"]
        assert kept.value == score.value
        assert kept.answer == text_hash(score.answer)
        assert kept.metadata["judge_answer"] == text_hash(score.metadata["judge_answer"])
        for field in ("predicted_significant", "matched", "unscored", "judge_input_tokens", "judge_output_tokens"):
            assert kept.metadata[field] == score.metadata[field], field
        assert kept.metadata[PARSED_ANSWERS]["values"]["vert"] == score.value["vert"]
        model_events = [e for e in after.events if e.event == "model"]
        assert model_events and all(e.output.completion.startswith(HASH_PREFIX) for e in model_events)
        assert all(e.output.usage is not None and e.output.usage.input_tokens > 0 for e in model_events)
    assert redacted.eval.metadata["templates"] == original.eval.metadata["templates"]
    means = [log.results.scores[0].metrics["vert_mean"].value for log in (redacted, original)]
    assert means[0] == means[1]


def test_a_redacted_bundle_ranks_with_the_same_scores_and_its_label(runs, bundle, tmp_path):
    settings = Settings(resamples=50)
    whole = build_leaderboard(list(runs.values()), tmp_path / "whole", settings)
    redacted = build_leaderboard([bundle], tmp_path / "redacted", settings)
    assert whole["not_ranked"] == [] and redacted["not_ranked"] == []
    scores = {board["task"]: [e["score"] for e in board["entries"]] for board in whole["boards"]}
    assert {board["task"]: [e["score"] for e in board["entries"]] for board in redacted["boards"]} == scores
    assert len(scores) == len(TASKS)
    assert {e["checks"] for board in redacted["boards"] for e in board["entries"]} == {HASH_ONLY}
    assert HASH_ONLY not in {e["checks"] for board in whole["boards"] for e in board["entries"]}


@pytest.mark.parametrize("task", TASKS)
def test_a_redacted_run_passes_the_leaderboard_s_checks(runs, bundle, task):
    run = read_run(_bundled(bundle, runs, task))
    assert run.redacted
    assert run_violations(run) == []


@pytest.mark.parametrize("task", ["vert", "green", "judge_sensitivity"])
def test_a_redacted_run_passes_without_its_data_as_its_log_recorded_it(runs, bundle, task):
    # On a leaderboard machine without the data: each family's log records the count of samples it checks against
    # (judge_sensitivity's variants included). Only the runs read from a file of the test's own can lose it.
    run = read_run(_bundled(bundle, runs, task))
    data = Path(run.task_args["data"])
    hidden = data.rename(data.with_name(data.name + ".away"))
    try:
        assert data_absence(run) is not None and not data_checked(run)
        assert run_violations(run) == []
    finally:
        hidden.rename(data)
    assert data_checked(run)


def test_a_forged_score_in_a_redacted_log_is_refused_from_its_parsed_answer(runs, bundle):
    def forge(log: EvalLog) -> None:
        score = log.samples[1].scores["report_judge"]
        score.value = {**score.value, "vert": 0.99}

    forged = read_run(edited(_bundled(bundle, runs, "vert"), forge, "forged.eval"))
    assert any(
        line.startswith(f"sample {forged.samples[1].id}: logged vert 0.99 but its stored judge answer gives")
        for line in run_violations(forged)
    )


def test_a_forged_parsed_answer_in_a_redacted_log_is_refused(runs, bundle):
    def forge(log: EvalLog) -> None:
        parsed = log.samples[1].scores["report_judge"].metadata[PARSED_ANSWERS]
        parsed["values"]["vert"] = 0.11

    forged = read_run(edited(_bundled(bundle, runs, "vert"), forge, "parsed.eval"))
    assert any(
        line.startswith(f"sample {forged.samples[1].id}: logged vert ") and line.endswith("gives 0.11")
        for line in run_violations(forged)
    )


def test_a_changed_answer_hash_is_not_one_the_judge_returned(runs, bundle):
    def forge(log: EvalLog) -> None:
        log.samples[0].scores["report_judge"].metadata["judge_answer"] = text_hash("another answer")

    forged = read_run(edited(_bundled(bundle, runs, "vert"), forge, "hash.eval"))
    assert f"sample {forged.samples[0].id}: the stored judge answer is not one the judge returned in this run" in (
        run_violations(forged)
    )


def test_a_forged_label_in_a_redacted_ran_score_log_changes_its_corpus_figures_and_is_refused(runs, bundle):
    def forge(log: EvalLog) -> None:
        labels = log.samples[0].scores["finding_agreement"].metadata["candidate_labels"]
        labels["Fracture"] = 1 - labels["Fracture"]

    lines = run_violations(read_run(edited(_bundled(bundle, runs, "ran_score"), forge, "label.eval")))
    assert any(line.startswith("sample ") and "label_agreement" in line for line in lines), lines
    assert any(line.startswith("results: logged ran_score ") for line in lines), lines


def test_a_forged_grade_in_a_redacted_ct_finebench_log_is_refused(runs, bundle):
    def forge(log: EvalLog) -> None:
        log.samples[0].scores["qa_comparison"].metadata["questions"][0]["grade"] = 0.0

    forged = read_run(edited(_bundled(bundle, runs, "ct_finebench"), forge, "grade.eval"))
    assert any(
        line.startswith(f"sample {forged.samples[0].id}: logged ct_finebench 1 but") for line in run_violations(forged)
    )


def test_a_run_on_data_that_is_not_credentialed_is_bundled_whole_unless_asked(runs, tmp_path):
    log = runs["vert"]
    manifest = json.loads(write_bundle([log], tmp_path / "whole", SystemCard()).read_text())
    assert manifest["redacted"] is None and "redaction" not in manifest["runs"][0]
    assert (tmp_path / "whole" / "logs" / log.name).read_bytes() == log.read_bytes()
    asked = json.loads(write_bundle([log], tmp_path / "asked", SystemCard(), redact=True).read_text())
    assert asked["redacted"]["reason"] == "--redact-text"
    assert read_eval_log(str(tmp_path / "asked" / "logs" / log.name)).samples[0].target.startswith(HASH_PREFIX)


def test_credentialed_data_can_be_bundled_whole_when_told(runs, tmp_path, monkeypatch):
    mark_flat_credentialed(monkeypatch)
    log = runs["vert"]
    manifest = json.loads(write_bundle([log], tmp_path / "whole", SystemCard(), redact=False).read_text())
    assert manifest["redacted"] is None
    assert (tmp_path / "whole" / "logs" / log.name).read_bytes() == log.read_bytes()


def test_a_task_scored_from_its_texts_cannot_be_submitted_redacted(tmp_path):
    from inspect_ai import eval as inspect_eval

    from radiology_tasks.baselines.tasks import baselines
    from tests.leaderboard.runs import write_data

    data = write_data(tmp_path)
    (log,) = inspect_eval(baselines(data=str(data)), model="none", log_dir=str(tmp_path / "logs"), display="none")
    path = Path(log.location)
    assert run_violations(read_run(path)) == []
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([path], tmp_path / "bundle", SystemCard(), redact=True)
    assert refused.value.lines == [
        f"{path.name}: task baselines cannot be re-scored without its texts, so it cannot be submitted redacted"
    ]
    assert not (tmp_path / "bundle").exists()


def test_verify_finds_every_family_s_redacted_run_to_be_its_original_s_redaction(runs, bundle):
    from radiology_tasks.leaderboard.verify import verify_bundle

    # judge_sensitivity's undefined (NaN) values must compare equal to themselves.
    assert verify_bundle(bundle, originals=list(runs.values())) == []


def test_a_redacted_bundle_s_logs_submitted_again_are_bundled_as_they_are(bundle, tmp_path):
    first = {entry["log"]: entry for entry in json.loads((bundle / "manifest.json").read_text())["runs"]}
    logs = [bundle / name for name in first]  # not the forged copies other tests write beside them
    again = json.loads(write_bundle(logs, tmp_path / "again", SystemCard(), redact=False).read_text())
    assert again["redacted"]["reason"] == "the logs were redacted already"
    for entry in again["runs"]:
        assert (tmp_path / "again" / entry["log"]).read_bytes() == (bundle / entry["log"]).read_bytes()
        assert entry["redaction"] == first[entry["log"]]["redaction"]
