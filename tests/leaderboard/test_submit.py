"""`radiology-tasks submit`: a clean run is bundled; each dishonest or unfit log is refused with its own line."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.cli import main
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.checks import TRIAL_HINT, run_violations
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.leaderboard.rescore import rescorable_tasks
from tests.leaderboard.runs import (
    SYSTEM_A,
    UNREADABLE,
    edited,
    run_task,
    scripted_judge,
    write_candidates,
    write_data,
)


@pytest.fixture(scope="module")
def clean_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("clean")
    data = write_data(directory)
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch):
        return run_task(directory / "logs", data=str(data))


def _refusal(log: Path, **kwargs: object) -> list[str]:
    out = log.parent / f"bundle-of-{log.name}"
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([log], out, SystemCard(), **kwargs)  # type: ignore[arg-type]
    assert not out.exists(), "a refused submission writes nothing"
    return refused.value.lines


def test_a_clean_run_passes_and_is_bundled_with_its_manifest(clean_log, tmp_path):
    assert run_violations(read_run(clean_log)) == []
    manifest_path = write_bundle(
        [clean_log], tmp_path / "bundle", SystemCard(institution="Demo Hospital", track="findings")
    )
    manifest = json.loads(manifest_path.read_text())
    copied = tmp_path / "bundle" / "logs" / clean_log.name
    assert copied.read_bytes() == clean_log.read_bytes()
    (run,) = manifest["runs"]
    assert run["sha256"] == hashlib.sha256(clean_log.read_bytes()).hexdigest()
    assert (run["task"], run["score"], run["n"], run["n_unscored"]) == ("vert", "vert", 8, 0)
    assert run["mean"] == pytest.approx(sum(float(c[-5:-1]) for c in SYSTEM_A.values()) / 8)
    assert run["judge"] == {"model": "openai-api/stubsvc/stub-judge", "temperatures": [0.0], "seeded": False}
    assert "candidates" not in run["task_config"] and run["task_config"]["prompt"] == "vert"
    assert manifest["system"] == {
        "name": "pairs candidates",
        "institution": "Demo Hospital",
        "paper": None,
        "code": None,
        "description": None,
    }
    assert manifest["track"] == "findings"


def test_the_system_name_defaults_to_the_candidates_file(clean_log, tmp_path, monkeypatch):
    data = write_data(tmp_path)
    candidates = write_candidates(tmp_path, SYSTEM_A, name="my_generator.jsonl")
    with scripted_judge(monkeypatch):
        log = run_task(tmp_path / "logs", data=str(data), candidates=str(candidates))
    manifest = json.loads(write_bundle([log], tmp_path / "bundle", SystemCard()).read_text())
    assert manifest["system"]["name"] == "my_generator"


def test_a_forged_score_is_refused_naming_the_sample(clean_log):
    def forge(log: EvalLog) -> None:
        score = log.samples[2].scores["report_judge"]
        score.value = {**score.value, "vert": 1.0}

    forged = edited(clean_log, forge, "forged.eval")
    sample_id = read_run(forged).samples[2].id
    lines = _refusal(forged)
    assert any(
        line.startswith(f"forged.eval: sample {sample_id}: logged vert 1 but its stored judge answer") for line in lines
    )


def test_a_forged_aggregate_is_refused(clean_log):
    def forge(log: EvalLog) -> None:
        log.results.scores[0].metrics["vert_mean"].value = 0.99

    lines = _refusal(edited(clean_log, forge, "aggregate.eval"))
    assert any("results: vert_mean 0.99 is not the mean of the samples' vert" in line for line in lines)


def test_an_answer_rewritten_to_match_a_forged_score_is_refused(clean_log):
    def forge(log: EvalLog) -> None:
        score = log.samples[0].scores["report_judge"]
        score.metadata["judge_answer"] = score.metadata["judge_answer"].replace("0.90", "0.99")
        score.value = {**score.value, "vert": 0.99}

    forged = edited(clean_log, forge, "rewritten.eval")
    sample_id = read_run(forged).samples[0].id
    assert f"rewritten.eval: sample {sample_id}: the stored judge answer is not one the judge returned in this run" in (
        _refusal(forged)
    )


def test_a_dropped_sample_is_refused_naming_it(clean_log):
    dropped_id = read_run(clean_log).samples[-1].id

    def drop(log: EvalLog) -> None:
        log.samples = log.samples[:-1]

    lines = _refusal(edited(clean_log, drop, "dropped.eval"))
    assert f"dropped.eval: 1 of the dataset's 8 samples are missing: {dropped_id} ({TRIAL_HINT})" in lines


def test_a_duplicated_sample_is_refused_naming_it(clean_log):
    duplicated_id = read_run(clean_log).samples[0].id

    def duplicate(log: EvalLog) -> None:
        log.samples = [*log.samples, log.samples[0]]

    # The .eval format stores one file per sample and epoch, so only a .json log can hold a duplicate.
    lines = _refusal(edited(clean_log, duplicate, "duplicated.json"))
    assert f"duplicated.json: sample {duplicated_id} (epoch 1) appears 2 times" in lines


def test_a_limited_run_is_refused_as_incomplete(tmp_path, monkeypatch):
    data = write_data(tmp_path)
    with scripted_judge(monkeypatch):
        log = run_task(tmp_path / "logs", data=str(data), limit=5)
    lines = _refusal(log)
    assert any(line.startswith(f"{log.name}: 3 of the dataset's 8 samples are missing: ") for line in lines), lines


def test_a_changed_prompt_template_is_refused(clean_log):
    def change(log: EvalLog) -> None:
        log.eval.metadata["templates"]["green_vert/vert.jinja"] = "0" * 64

    lines = _refusal(edited(clean_log, change, "template.eval"))
    assert lines == ["template.eval: prompt template green_vert/vert.jinja differs from the released one"]


def test_a_log_without_template_hashes_or_fingerprint_is_refused(clean_log):
    def strip(log: EvalLog) -> None:
        del log.eval.metadata["templates"]
        del log.eval.metadata["data"]["fingerprint"]

    lines = _refusal(edited(clean_log, strip, "old.eval"))
    assert "old.eval: the log records no prompt-template hashes (made before they were recorded); run it again" in lines
    assert any("records no data fingerprint" in line for line in lines)


def test_another_task_version_is_refused(clean_log):
    def change(log: EvalLog) -> None:
        log.eval.task_version = "0.9.0"

    lines = _refusal(edited(clean_log, change, "version.eval"))
    assert any(line.startswith("version.eval: task version 0.9.0 is not the released vert version") for line in lines)


def test_an_unpinned_judge_is_refused(clean_log):
    def unpin(log: EvalLog) -> None:
        for sample in log.samples[:1]:
            for event in sample.events:
                if event.event == "model":
                    event.config.temperature = 0.7
                    event.config.seed = None

    forged = edited(clean_log, unpin, "unpinned.eval")
    sample_id = read_run(forged).samples[0].id
    assert _refusal(forged) == [f"unpinned.eval: sample {sample_id}: the judge ran at temperature 0.7 without a seed"]


def test_a_seeded_judge_at_a_temperature_passes(clean_log):
    def seed(log: EvalLog) -> None:
        for sample in log.samples:
            for event in sample.events:
                if event.event == "model":
                    event.config.temperature = 0.7
                    event.config.seed = 42

    assert run_violations(read_run(edited(clean_log, seed, "seeded.eval"))) == []


def test_a_run_without_a_named_judge_is_refused(clean_log):
    def unname(log: EvalLog) -> None:
        log.eval.model_roles = {}

    assert _refusal(edited(clean_log, unname, "unnamed.eval")) == [
        "unnamed.eval: no judge named: run with --model-role grader=<judge model>"
    ]


def test_too_many_unscored_samples_are_refused(tmp_path, monkeypatch):
    data = write_data(tmp_path)
    candidates = write_candidates(tmp_path, {**SYSTEM_A, "p3": f"Cardiomegaly. {UNREADABLE}"})
    with scripted_judge(monkeypatch):
        log = run_task(tmp_path / "logs", data=str(data), candidates=str(candidates))
    assert _refusal(log) == [f"{log.name}: 1 of 8 samples (12.5%) are unscored, above --max-unscored 2.0%"]
    manifest = json.loads(write_bundle([log], tmp_path / "b", SystemCard(), max_unscored=0.2).read_text())
    assert (manifest["runs"][0]["n_unscored"], manifest["max_unscored"]) == (1, 0.2)


def test_a_changed_data_file_is_refused(tmp_path, monkeypatch):
    data = write_data(tmp_path)
    with scripted_judge(monkeypatch):
        log = run_task(tmp_path / "logs", data=str(data))
    before = file_sha256(data)
    data.write_text(data.read_text().replace("Cardiomegaly.", "Mild cardiomegaly."))
    assert _refusal(log) == [
        f"{log.name}: data {data} changed since the run (data_sha256 {before} in the log, {file_sha256(data)} here)"
    ]


def test_an_unsupported_task_is_refused(clean_log):
    def rename(log: EvalLog) -> None:
        log.eval.task = "radiology_tasks/unknown"

    supported = ", ".join(rescorable_tasks())
    assert _refusal(edited(clean_log, rename, "other.eval")) == [
        f"other.eval: task radiology_tasks/unknown cannot be submitted yet (supported: {supported})"
    ]


def test_submit_command_prints_one_line_per_violation(clean_log, tmp_path, capsys):
    def drop(log: EvalLog) -> None:
        log.samples = log.samples[1:]
        log.eval.metadata["templates"]["green_vert/vert.jinja"] = "0" * 64

    forged = edited(clean_log, drop, "two-problems.eval")
    assert main(["submit", str(forged), "--out", str(tmp_path / "b")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "radiology-tasks submit: refused, 3 problem(s):"
    assert err[1].startswith("  two-problems.eval: 1 of the dataset's 8 samples are missing: ")
    assert err[2] == "  two-problems.eval: prompt template green_vert/vert.jinja differs from the released one"
    # Dropping a sample also leaves the logged mean without the samples it was computed from.
    assert err[3].startswith("  two-problems.eval: results: vert_mean ")
    assert main(["submit", str(clean_log), "--out", str(tmp_path / "ok"), "--system", "A"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert main(["submit", str(clean_log), "--out", str(tmp_path / "ok")]) == 2
    assert "is not empty" in capsys.readouterr().err


def test_a_hub_dataset_needs_a_pinned_revision(clean_log):
    def to_hub(log: EvalLog) -> None:
        log.eval.task_args["data"] = "rate-eval"
        log.eval.metadata["data"]["fingerprint"] = {
            "data_sha256": None,
            "revision": None,
            "candidates_sha256": None,
            "reports_sha256": None,
        }

    lines = run_violations(read_run(edited(clean_log, to_hub, "hub.eval")))
    assert lines[0] == "dataset rate-eval comes from the Hugging Face hub and the run did not pin -T revision"
    # Offline, the hub data cannot be loaded again: the sample set is unchecked, and that is a violation too.
    assert lines[1].startswith("the dataset rate-eval cannot be loaded here to check the sample set: ")
