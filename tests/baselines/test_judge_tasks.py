"""-T baselines on CT-FineBench and Ran Score, and CT-FineBench inside metric_suite, with scripted judges."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.ran_score.tasks import ran_score
from radiology_tasks.scorers.lexical import lexical_scores
from radiology_tasks.suite.tasks import metric_suite
from tests.conftest import write_jsonl
from tests.ct_finebench.stub_judge import answer
from tests.judge_answers import mock_output
from tests.ran_score.helpers import report_in
from tests.ran_score.test_task import STUDIES, _rows
from tests.ran_score.test_task import run as run_with_stub
from tests.report_values import report_values


def all_null() -> Iterator[Any]:
    """A CT-FineBench judge that finds no answer in any report."""
    while True:
        yield mock_output(answer({f"q{n}": None for n in range(1, 7)}))


def metrics(log) -> dict[str, float]:
    return report_values(log)


def test_ct_finebench_with_baselines_keeps_its_question_metrics():
    judge = get_model("mockllm/model", custom_outputs=all_null())
    (log,) = inspect_eval(
        ct_finebench(limit=3, baselines="rouge_l"), model="none", model_roles={"grader": judge}, display="none"
    )
    assert log.status == "success", log.error
    for sample in log.samples:
        score = sample.scores["with_baselines"]
        expected, _ = lexical_scores(sample.target, sample.output.completion, ["rouge_l"])
        assert score.value == {"ct_finebench": 0.0, "rouge_l": pytest.approx(expected["rouge_l"])}
    values = metrics(log)
    assert values["unanswered_share"] == 1.0 and values["ct_finebench_mean"] == 0.0
    assert "rouge_l_mean" in values and "rouge_l_kendall_tau" in values


def test_ct_finebench_in_the_suite_beside_bleu(tmp_path):
    rows = [p.model_dump(mode="json", exclude_none=True) for p in load_pairs("demo").pairs if p.qa][:4]
    for row in rows:
        expert = row.pop("expert")
        row |= {"expert_score": expert["score"], "expert_score_min": expert["scale_min"]}
        row["expert_score_max"] = expert["scale_max"]
    data = write_jsonl(tmp_path / "ct.jsonl", [{k: v for k, v in r.items() if k != "images"} for r in rows])
    judge = get_model("mockllm/model", custom_outputs=all_null())
    (log,) = inspect_eval(
        metric_suite(metrics="bleu_2,ct_finebench", data=str(data)),
        model="none",
        model_roles={"grader": judge},
        display="none",
    )
    assert log.status == "success", log.error
    for sample in log.samples:
        value = sample.scores["suite_scorer"].value
        assert set(value) == {"bleu_2", "ct_finebench"} and value["ct_finebench"] == 0.0
    values = metrics(log)
    assert values["ct_finebench_mean"] == 0.0 and "bleu_2_vs_ct_finebench_kendall" in values


def test_ran_score_with_baselines(monkeypatch, tmp_path):
    rows, answers = _rows(STUDIES)
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    task = ran_score(data=str(data), label_cache=str(tmp_path / "cache"), baselines="bleu_1")
    log, _ = run_with_stub(task, lambda body: answers[report_in(body)], monkeypatch)
    s1 = next(s for s in log.samples if s.id == "s1").scores["with_baselines"]
    assert s1.value["label_agreement"] == pytest.approx(20 / 21)
    assert s1.metadata["label_outcomes"]["Pleural Effusion"] == "tp"  # the judge's metadata stays at the top
    expected, _ = lexical_scores(rows[0]["reference"], rows[0]["candidate"], ["bleu_1"])
    assert s1.value["bleu_1"] == pytest.approx(expected["bleu_1"])
    values = metrics(log)
    assert values["ran_score"] == pytest.approx((4 / 5 + 2 / 3 + 1) / 21)
    assert "bleu_1_mean" in values and "corpus_bleu_1" in values
