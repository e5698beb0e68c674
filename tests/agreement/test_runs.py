"""Reading logs for the table: a run's data, its metrics, its judge, and the logs it refuses (naming the file)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from inspect_ai.log import EvalLog, write_eval_log
from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.agreement.model import RowId, Value
from radiology_tasks.agreement.runs import (
    dataset_of,
    judge_of,
    judged_keys,
    read_run,
    read_runs,
    row_of,
    run_of,
    score_keys,
)
from radiology_tasks.core.errors import InputError
from radiology_tasks.suite.tasks import metric_suite
from tests.agreement.logs import JUDGE, run_task


def _sample(value: object, sample_id: str = "1") -> SampleScore:
    return SampleScore(score=Score(value=value), sample_id=sample_id)  # type: ignore[arg-type]


def test_score_keys_are_the_numeric_keys_in_the_order_they_first_appear():
    samples = [
        _sample({"b": 1.0, "a": None, "note": "text", "flag": True}),
        _sample(0.5),
        _sample({"c": 2, "b": float("nan")}),
    ]
    assert score_keys(samples) == ["b", "a", "c"]
    assert score_keys([]) == []


def test_a_dataset_is_pinned_by_layout_files_and_sample_ids():
    summary = {
        "source": "/data/RaTE-Eval/",
        "layout": "rate-eval",
        # The summary's own layout is the one read; the fingerprint's stands in only where the summary has none.
        "fingerprint": {"layout": "flat", "data_sha256": "d" * 64, "candidates_sha256": "c", "reports_sha256": "r"},
    }
    dataset = dataset_of(summary, ["b", "a"])
    assert (dataset.name, dataset.layout, dataset.data, dataset.candidates, dataset.reports) == (
        "RaTE-Eval",
        "rate-eval",
        "d" * 64,
        "c",
        "r",
    )
    assert dataset.samples == hashlib.sha256(b"a\nb").hexdigest() and dataset.n_samples == 2
    assert dataset_of(summary, ["a", "b"]).identity == dataset.identity
    assert dataset_of(summary, ["a"]).identity != dataset.identity


def test_a_dataset_without_file_hashes_falls_back_to_its_revision_and_fingerprint_layout():
    summary = {"source": "rate-eval", "fingerprint": {"layout": "rate-eval", "revision": "abc"}}
    dataset = dataset_of(summary, ["x"])
    assert (dataset.name, dataset.layout, dataset.data) == ("rate-eval", "rate-eval", "revision abc")
    assert dataset_of({}, []).name == "unnamed data" and dataset_of({}, []).data is None


def test_the_judge_is_the_grader_roles_model():
    roles = {"grader": SimpleNamespace(model="openai/gpt-4.1-mini"), "other": SimpleNamespace(model="x")}
    assert judge_of(roles, "grader") == "openai/gpt-4.1-mini"
    assert judge_of({"grader": [SimpleNamespace(model="a"), SimpleNamespace(model="b")]}, "grader") == "a, b"
    assert judge_of({"other": SimpleNamespace(model="x")}, "grader") is None


def test_the_llm_judge_metrics_are_known_without_naming_a_family():
    assert {"vert", "green", "green_ec", "green_f1", "crimson"} <= judged_keys()
    assert not {"bleu_2", "rouge_l", "chrf", "bertscore"} & judged_keys()


@pytest.mark.slow
def test_a_run_gives_its_data_metrics_judge_and_figures(rate_logs):
    suite = read_run(rate_logs[0].location)
    assert (suite.log, suite.task, suite.created) == (rate_logs[0].location, "metric_suite", rate_logs[0].eval.created)
    assert suite.rows[:2] == (RowId("bleu_1"), RowId("bleu_2")) and len(suite.rows) == 7
    assert (suite.dataset.name, suite.dataset.layout, suite.dataset.n_samples) == ("RaTE-Eval", "rate-eval", 12)
    assert suite.figures["chrf_kendall_tau"].value is not None and len(suite.samples) == 12
    judged = read_run(rate_logs[1].location)
    # A VERT run: its GREEN keys come from the VERT prompt; a GREEN run's are GREEN's own.
    assert judged.rows == (
        RowId("vert", JUDGE),
        RowId("green", JUDGE, "vert"),
        RowId("green_ec", JUDGE, "vert"),
        RowId("green_f1", JUDGE, "vert"),
    )
    assert read_run(rate_logs[2].location).rows == tuple(RowId(k, JUDGE) for k in ("green", "green_ec", "green_f1"))
    assert judged.dataset.identity == suite.dataset.identity


def _rewritten(log: EvalLog, folder: Path, **eval_changes: object) -> str:
    path = folder / "changed.eval"
    changed = log.model_copy(update={"eval": log.eval.model_copy(update=eval_changes), "location": str(path)})
    write_eval_log(changed, str(path))
    return str(path)


@pytest.mark.slow
def test_a_log_without_a_data_summary_is_refused(rate_logs, tmp_path):
    path = _rewritten(rate_logs[0], tmp_path, metadata={"templates": {}})
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: the log records no data summary"):
        read_run(path)


@pytest.mark.slow
def test_a_log_of_no_family_is_refused(rate_logs, tmp_path):
    path = _rewritten(rate_logs[0], tmp_path, task="elsewhere/unknown_task")
    with pytest.raises(
        InputError, match=rf"^{re.escape(str(path))}: task elsewhere/unknown_task belongs to no radiology-tasks family"
    ):
        read_run(path)


def test_an_unreadable_log_is_refused_naming_it(tmp_path):
    path = tmp_path / "broken.eval"
    path.write_text("not a log")
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: not a readable Inspect log"):
        read_run(path)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: not a readable Inspect log"):
        read_runs([str(path)])


@pytest.mark.slow
def test_a_run_on_data_without_experts_is_refused(tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text('{"id": "1", "reference": "No effusion.", "candidate": "No effusion."}\n')
    log = run_task(metric_suite(metrics="chrf", data=str(data)), tmp_path / "logs")
    with pytest.raises(InputError, match="gives no agreement with experts: its data") as raised:
        read_run(log.location)
    assert str(raised.value).startswith(f"{log.location}: the metric_suite run")


@pytest.mark.slow
def test_the_same_log_twice_is_refused(rate_logs, tmp_path):
    location = rate_logs[0].location
    with pytest.raises(InputError, match=rf"^{re.escape(location)}: the same log is given twice"):
        read_runs([location, rate_logs[1].location, location])
    with pytest.raises(InputError, match="given twice"):
        read_runs([location, str(Path(location).parent / "." / Path(location).name)])
    assert [run.log for run in read_runs([location, rate_logs[1].location])] == [location, rate_logs[1].location]


def _fake(summary: object, roles: dict, samples: list[SampleScore], figures: list) -> tuple:
    """A log and run report as `run_of` reads them: only the fields it uses."""
    log = SimpleNamespace(eval=SimpleNamespace(metadata={"data": summary}, model_roles=roles, created="2026-03-01"))
    report = SimpleNamespace(log="run.eval", task="metric_suite", samples=samples, figures=figures)
    return log, report


def _figure(name: str, value: float | None, reason: str | None = None) -> SimpleNamespace:
    return SimpleNamespace(name=name, value=value, reason=reason)


def test_run_of_reads_data_rows_judge_and_figures():
    samples = [_sample({"green": 0.5, "bleu_2": 0.1}, "s2"), _sample({"green": 0.2, "bleu_2": 0.3}, "s1")]
    summary = {"source": "data/rate", "layout": "rate-eval", "fingerprint": {"data_sha256": "f" * 64}}
    figures = [_figure("green_kendall_tau", 0.4), _figure("bleu_2_kendall_tau", None, "constant")]
    log, report = _fake(summary, {"grader": SimpleNamespace(model="judge/x")}, samples, figures)
    found = run_of(log, report)  # type: ignore[arg-type]
    assert (found.log, found.task, found.created) == ("run.eval", "metric_suite", "2026-03-01")
    assert found.rows == (RowId("green", "judge/x"), RowId("bleu_2"))
    assert found.dataset == dataset_of(summary, ["s2", "s1"])
    assert found.figures == {"green_kendall_tau": Value(0.4), "bleu_2_kendall_tau": Value(None, "constant")}
    assert list(found.samples) == samples


def test_run_of_refuses_a_log_without_a_data_summary_or_without_agreement():
    samples = [_sample({"chrf": 0.5})]
    log, report = _fake(None, {}, samples, [_figure("chrf_kendall_tau", 0.4)])
    with pytest.raises(InputError, match=r"^run\.eval: the log records no data summary \(metadata 'data'\)"):
        run_of(log, report)  # type: ignore[arg-type]
    log, report = _fake({"source": "x/pairs.jsonl"}, {}, samples, [_figure("chrf_mean", 0.5)])
    with pytest.raises(InputError) as raised:
        run_of(log, report)  # type: ignore[arg-type]
    assert str(raised.value) == (
        "run.eval: the metric_suite run gives no agreement with experts: its data (pairs.jsonl) has no expert "
        "scores, error counts or preferences for its metrics"
    )


@pytest.mark.parametrize(
    "name",
    ["chrf_kendall_tau", "chrf_vs_errors_kendall_tau", "chrf_vs_total_errors_kendall_tau", "chrf_preference_accuracy"],
)
def test_a_figure_of_any_protocol_counts_as_agreement(name):
    log, report = _fake({"source": "d"}, {}, [_sample({"chrf": 0.5})], [_figure(name, None, "undefined")])
    assert run_of(log, report).has_agreement()  # type: ignore[arg-type]


def test_read_runs_refuses_a_path_given_twice_before_reading_it(tmp_path, monkeypatch):
    read: list[str] = []
    monkeypatch.setattr("radiology_tasks.agreement.runs.read_run", lambda path: read.append(str(path)) or path)
    (tmp_path / "a.eval").touch()
    assert read_runs([str(tmp_path / "a.eval"), str(tmp_path / "b.eval")]) == [
        str(tmp_path / "a.eval"),
        str(tmp_path / "b.eval"),
    ]
    same = str(tmp_path / "sub" / ".." / "a.eval")
    with pytest.raises(InputError, match=rf"^{re.escape(same)}: the same log is given twice$"):
        read_runs([str(tmp_path / "a.eval"), same])
    assert read == [str(tmp_path / "a.eval"), str(tmp_path / "b.eval"), str(tmp_path / "a.eval")]


def test_read_run_reads_the_log_and_its_report_at_the_path(monkeypatch, tmp_path):
    seen: list[tuple] = []
    log = object()
    monkeypatch.setattr("inspect_ai.log.read_eval_log", lambda location: seen.append(("read", location)) or log)
    monkeypatch.setattr(
        "radiology_tasks.core.run_report.report_of",
        lambda found, location: seen.append(("report", found, location)) or "the report",
    )
    monkeypatch.setattr(
        "radiology_tasks.agreement.runs.run_of", lambda found, report: seen.append(("run", found, report)) or "run"
    )
    assert read_run(tmp_path / "x.eval") == "run"
    location = str(tmp_path / "x.eval")
    assert seen == [("read", location), ("report", log, location), ("run", log, "the report")]


def test_an_unreadable_log_says_what_went_wrong(monkeypatch):
    def fail(location):
        raise KeyError("header.json")

    monkeypatch.setattr("inspect_ai.log.read_eval_log", fail)
    with pytest.raises(InputError) as raised:
        read_run("x.eval")
    assert str(raised.value) == "x.eval: not a readable Inspect log (KeyError: 'header.json')"


def test_a_judged_key_s_row_names_the_prompt_only_where_the_task_is_another_metric_s():
    # green_ec is read from GREEN's prompt: a run of GREEN gives its own row, a run of the VERT prompt another one.
    assert row_of("green_ec", "green", "judge-m") == RowId("green_ec", "judge-m", None)
    assert row_of("green_ec", "vert", "judge-m") == RowId("green_ec", "judge-m", "vert")
    # A task that is no metric's prompt (a suite of several judges) leaves the key's own prompt.
    assert row_of("green_ec", "report_judge_suite", "judge-m") == RowId("green_ec", "judge-m", None)
    # A metric no judge scores has neither judge nor prompt.
    assert row_of("bleu_2", "vert", None) == RowId("bleu_2")
