"""metric_suite reads its LLM-judge metrics and its refused names from the family descriptors, never by name."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver

import radiology_tasks.green_vert.suite as green_vert_suite
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import SuiteJudge, SuiteMetric, add_family, family_of, remove_family
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.records import ReportPair
from radiology_tasks.green_vert.suite import SUITE
from radiology_tasks.scorers.lexical import lexical_scores
from radiology_tasks.suite.judges import judge_metrics, refused_metrics
from radiology_tasks.suite.tasks import metric_suite
from tests.conftest import GOOD_ROWS, write_jsonl
from tests.judge_answers import assessment, mock_output
from tests.report_values import report_values
from tests.toy_families import ToyFamily

SETTINGS = SuiteJudge(JudgeOptions(constrain="off", judge_max_tokens=77, judge_retries=3, unscored="exclude"), "q")
"""The suite's judge settings as `metric_suite` is given them below, as its factories receive them."""

SEEN: list[SuiteJudge] = []
"""The settings each toy factory was built from."""


@scorer(metrics=[])
def toy_judge() -> Scorer:
    """Scores the candidate's length in words, and one key the suite must drop (not among the metric's keys)."""

    async def score(state: TaskState, target: Target) -> Score:
        words = len(state.output.completion.split())
        return Score(value={"toy_words": float(words), "toy_dropped": 1.0}, metadata={"toy": "ran"})

    return score


@solver
def toy_marker() -> Solver:
    """Marks the sample so the test sees that the metric's solver ran before scoring."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.metadata["toy_marker"] = True
        return state

    return solve


def _toy_scorer(settings: SuiteJudge) -> Scorer:
    SEEN.append(settings)
    return toy_judge()


def _toy_solver(settings: SuiteJudge) -> Solver:
    SEEN.append(settings)
    return toy_marker()


def _toy_check(pairs: list[ReportPair]) -> str | None:
    short = [p.id for p in pairs if len((p.candidate or "").split()) < 5]
    return f"toy needs long candidates; '{short[0]}' is short" if short else None


TOY_SUITE = {"toy": SuiteMetric(("toy_words",), _toy_scorer, solver=_toy_solver, check=_toy_check)}


@pytest.fixture
def toy_family() -> Iterator[None]:
    """A family outside the package that adds `toy` to the suite and refuses `toy_corpus`."""
    SEEN.clear()
    add_family(
        ToyFamily(
            "toy_suite_family",
            (),
            suite=TOY_SUITE,
            suite_notes={"toy_corpus": "toy_corpus is a corpus figure: run its own task"},
        )
    )
    yield
    remove_family("toy_suite_family")


def test_the_suite_offers_what_the_families_declare(toy_family):
    metrics = judge_metrics()
    assert metrics["toy"] is TOY_SUITE["toy"]
    assert metrics["green"].keys == ("green", "green_ec", "green_f1") and metrics["vert"].keys == ("vert",)
    assert refused_metrics()["toy_corpus"] == "toy_corpus is a corpus figure: run its own task"
    with pytest.raises(InputError, match="^-T metrics: toy_corpus is a corpus figure: run its own task$"):
        metric_suite(metrics="bleu_2,toy_corpus")
    with pytest.raises(InputError, match=r"unknown metric 'toy_other' \(known: .*green_model, .*toy\)"):
        metric_suite(metrics="toy_other")


def test_a_family_metric_runs_in_the_suite_with_its_solver_check_and_keys(toy_family, tmp_path):
    long_rows = [{**row, "candidate": row["candidate"] + " Otherwise normal."} for row in GOOD_ROWS]
    data = write_jsonl(tmp_path / "d.jsonl", long_rows)
    task = metric_suite(
        metrics="bleu_2,toy",
        data=str(data),
        unscored="exclude",
        constrain="off",
        judge_retries=3,
        judge_max_tokens=77,
        qa_mode="q",
    )
    assert task.metadata["keys"] == ["bleu_2", "toy_words"]
    (log,) = inspect_eval(task, model="none", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    assert SEEN == [SETTINGS, SETTINGS]  # the solver's factory, then the scorer's: the same settings, whole
    for sample in log.samples:
        score = sample.scores["suite_scorer"]
        expected, _ = lexical_scores(sample.target, sample.output.completion, ["bleu_2"])
        words = float(len(sample.output.completion.split()))
        assert score.value == {"bleu_2": pytest.approx(expected["bleu_2"]), "toy_words": words}
        assert score.metadata["toy"]["toy"] == "ran"  # the metric's own metadata, under its name
        assert sample.metadata["toy_marker"] is True
    metrics = report_values(log)
    assert metrics["toy_words_mean"] == 7.0 and "bleu_2_vs_toy_words_kendall" in metrics


def test_a_family_metric_check_stops_the_suite_in_its_own_line(toy_family, tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", GOOD_ROWS)
    with pytest.raises(InputError, match="^toy needs long candidates; 'r1' is short$"):
        metric_suite(metrics="bleu_2,toy", data=str(data))


def test_two_families_adding_one_name_is_an_error(toy_family):
    add_family(ToyFamily("toy_twin", (), suite=TOY_SUITE))
    try:
        with pytest.raises(ValueError, match="suite metric toy is added by both family toy_suite_family and family"):
            judge_metrics()
    finally:
        remove_family("toy_twin")


@pytest.mark.parametrize("name", ["green", "vert"])
def test_green_and_vert_build_their_judge_from_the_suite_settings(monkeypatch, name):
    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(green_vert_suite, "report_judge", lambda *args, **kwargs: calls.append((args, kwargs)))
    SUITE[name].scorer(SETTINGS)
    judge = JudgeOptions(constrain="off", judge_retries=3, unscored="exclude", judge_max_tokens=77)
    assert calls == [((name,), {"judge": judge})]
    assert SUITE[name].solver is None and SUITE[name].check is None


def test_vert_in_the_suite_keeps_its_direct_score_only(tmp_path):
    data = write_jsonl(tmp_path / "d.jsonl", GOOD_ROWS)
    judge = get_model("mockllm/model", custom_outputs=[mock_output(assessment({"b": 1}, 2, 0.5))] * 2)
    (log,) = inspect_eval(
        metric_suite(metrics="rouge_l,vert", data=str(data)),
        model="none",
        model_roles={"grader": judge},
        display="none",
    )
    assert log.status == "success", log.error
    for sample in log.samples:
        assert sample.scores["suite_scorer"].value["vert"] == 0.5
        assert set(sample.scores["suite_scorer"].value) == {"rouge_l", "vert"}


def test_ct_finebench_comes_from_its_family():
    family = family_of("ct_finebench")
    assert family is not None and "ct_finebench" in family.suite_metrics()
    metric = judge_metrics()["ct_finebench"]
    assert metric.keys == ("ct_finebench",) and metric.solver is not None and metric.check is not None


def test_ran_score_is_refused_with_its_family_line():
    family = family_of("ran_score")
    assert family is not None and "ran_score" in family.suite_notes
    with pytest.raises(InputError, match="run radiology_tasks/ran_score on the same rows"):
        metric_suite(metrics="ran_score")


def test_the_family_adds_suite_report_with_its_options(monkeypatch):
    import argparse

    import radiology_tasks.suite.report as report

    family = family_of("metric_suite")
    assert family is not None
    parser = argparse.ArgumentParser(prog="radiology-tasks")
    family.add_commands(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["suite-report", "a.eval", "b.eval", "--out", "o", "--keys", "k", "--pairs-by-id"])
    calls = []
    monkeypatch.setattr(report, "suite_report_command", lambda *a, **kw: calls.append((a, kw)) or 0)
    assert args.run(args) == 0
    assert calls == [((["a.eval", "b.eval"], "o"), {"keys": "k", "pairs_by_id": True, "resamples": 1000, "seed": 0})]
    with pytest.raises(SystemExit):
        parser.parse_args(["suite-report", "a.eval", "--out", "o", "--resamples", "-1"])
