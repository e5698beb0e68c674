"""VERT through the grader role on a local OpenAI-compatible stub: orders, ties, an unscored case, judge calls."""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.core.errors import InputError, PrerequisiteError
from radiology_tasks.core.judge import NO_JUDGE_MESSAGE
from radiology_tasks.core.run_report import report_of
from radiology_tasks.ranking_tests.tasks import ranking_tests
from tests.ranking_tests.judge_runs import vert_run, write_cases


def test_vert_orders_ties_and_leaves_a_garbled_case_unscored(monkeypatch, tmp_path):
    log = vert_run(monkeypatch, tmp_path)
    assert log.samples is not None and log.results is not None
    scores = {str(s.id): s.scores["ranking_scorer"] for s in log.samples}
    assert scores["a"].value == {"accuracy": 1.0, "tie": 0.0}
    assert scores["b"].value == {"accuracy": 0.0, "tie": 1.0}
    garbled = scores["c"]
    assert garbled.metadata is not None
    assert garbled.metadata["outcome"] is None and garbled.reason == "grader_failed"
    assert garbled.metadata["unscored"] == {"accuracy": "invalid_response_format", "tie": "invalid_response_format"}
    assert garbled.metadata["unscored_detail"]["accuracy"].startswith("candidate C2: ")
    (kept,) = [r for r in garbled.metadata["candidates"] if r["label"] == "C2"]
    assert kept["metadata"]["judge_answer"] == "I would rather not say."  # the raw answer is kept
    metrics = {name: m.value for score in log.results.scores for name, m in score.metrics.items()}
    assert metrics["accuracy_mean"] == 0.5  # a right, b a tie; c is not counted as wrong
    assert metrics["tie_share"] == 0.5
    assert metrics["unscored_share"] == pytest.approx(1 / 3)
    # One call per readable answer; the garbled one is asked again once (judge_retries=1): 2 + 2 + (1 + 2).
    assert metrics["judge_calls_per_sample"] == pytest.approx(7 / 3)
    report = report_of(log)
    assert report.headline_matches
    figures = {figure.name: figure.value for figure in report.secondary}
    assert figures["retried"] == 1 and figures["unscored_invalid_response_format"] == 1
    assert figures["location_accuracy"] == 1.0 and figures["severity_accuracy"] == 0.0


def test_a_judge_metric_stops_before_its_first_case_without_a_grader(tmp_path):
    logs = tmp_path / "logs"
    args = {"metric": "vert", "data": str(write_cases(tmp_path))}
    with pytest.raises(PrerequisiteError) as caught:
        inspect_eval("radiology_tasks/ranking_tests", task_args=args, model="none", display="none", log_dir=str(logs))
    assert str(caught.value) == NO_JUDGE_MESSAGE
    assert not logs.exists() or list(logs.iterdir()) == []


def test_bad_settings_are_refused_when_the_task_is_built(tmp_path):
    with pytest.raises(InputError, match="tie_tolerance must be a number >= 0"):
        ranking_tests(tie_tolerance=-0.1)
    with pytest.raises(InputError, match="tie_tolerance must be a number >= 0"):
        ranking_tests(tie_tolerance="small")
    with pytest.raises(InputError, match="no such file"):
        ranking_tests(data=str(tmp_path / "none.jsonl"))
