"""The RadEval adapter's contract, against a fake `radeval` module (the real one and its weights are not here)."""

from __future__ import annotations

import logging
import math
import sys

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.core.errors import InputError
from radiology_tasks.scorers.suite import radeval_adapter
from radiology_tasks.scorers.suite.radeval_adapter import (
    RADEVAL_METRICS,
    ModelFile,
    RadEvalRunner,
    plan_radeval,
    radeval_keys,
)
from radiology_tasks.suite.tasks import metric_suite
from tests.conftest import GOOD_ROWS
from tests.report_values import report_values
from tests.suite.fake_radeval import OUTPUTS, fake_radeval

RATE_NER = ModelFile("Angelakeke/RaTE-NER-Deberta")


def test_a_missing_model_gives_one_line_naming_metric_and_model():
    plan = plan_radeval(["bertscore", "ratescore"], cached=lambda model: model != RATE_NER, installed=lambda: True)
    assert plan.runnable == ["bertscore"]
    assert plan.skipped == ["metric ratescore needs model Angelakeke/RaTE-NER-Deberta (not in the Hugging Face cache)"]


def test_without_radeval_every_metric_is_skipped_with_the_extra_to_install():
    plan = plan_radeval(["bertscore", "radcliq"], cached=lambda model: True, installed=lambda: False)
    assert plan.runnable == []
    assert plan.skipped == [
        f"metric {name} needs the radeval package (pip install 'radiology-tasks[radeval]')"
        for name in ("bertscore", "radcliq")
    ]
    with pytest.raises(ValueError, match="unknown RadEval metric 'meteor'"):
        plan_radeval(["meteor"], cached=lambda model: True, installed=lambda: True)


def test_checkpoint_files_are_looked_up_by_file():
    assert str(ModelFile("StanfordAIMI/RRG_scorers", "chexbert.pth")) == "StanfordAIMI/RRG_scorers/chexbert.pth"
    assert "StanfordAIMI/RRG_scorers/radgraph-xl.tar.gz" in [str(m) for m in RADEVAL_METRICS["radgraph"].models]


def test_the_cache_lookup_finds_a_cached_model_and_only_that(monkeypatch, tmp_path):
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path))
    model = ModelFile("distilbert-base-uncased")
    assert not radeval_adapter.in_hf_cache(model)
    # The Hugging Face cache layout: a ref naming a snapshot that holds the file.
    repo = tmp_path / "models--distilbert-base-uncased"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("abc123")
    (repo / "snapshots" / "abc123").mkdir(parents=True)
    (repo / "snapshots" / "abc123" / "config.json").write_text("{}")
    assert radeval_adapter.in_hf_cache(model)
    assert not radeval_adapter.in_hf_cache(ModelFile("distilbert-base-uncased", "pytorch_model.bin"))


def test_runner_calls_radeval_per_pair_and_renames_its_keys(monkeypatch):
    calls: list[dict] = []
    monkeypatch.setitem(sys.modules, "radeval", fake_radeval(calls))
    runner = RadEvalRunner(["bertscore", "radcliq"])
    first = runner.score("A long reference report.", "Short one.")
    second = runner.score("Ref.", "A candidate of five words.")
    assert first == {"bertscore": pytest.approx(0.52), "radcliq_v1": 1.0}
    assert second == {"bertscore": pytest.approx(0.55), "radcliq_v1": 0.0}
    # One evaluator per metric, built once, with per-sample output; every call carries exactly one pair.
    assert [c for c in calls if "init" in c] == [
        {"init": "bertscore", "per_sample": True},
        {"init": "radcliq", "per_sample": True},
    ]
    assert all(len(c["refs"]) == len(c["hyps"]) == 1 for c in calls if "call" in c)
    assert radeval_keys(["radcliq", "green_model"]) == ["radcliq_v1", "green_model"]


def test_runner_refuses_an_answer_without_its_key_or_with_several_values(monkeypatch):
    monkeypatch.setitem(sys.modules, "radeval", fake_radeval([]))
    monkeypatch.setitem(OUTPUTS, "ratescore", {"rate": lambda ref, hyp: 0.1})
    with pytest.raises(ValueError, match="RadEval metric ratescore gave no 'ratescore'"):
        RadEvalRunner(["ratescore"]).score("a", "b")
    with pytest.raises(ValueError, match="holds 2 values"):
        radeval_adapter._one_value([0.1, 0.2], "bertscore")
    assert math.isnan(radeval_adapter._one_value([float("inf")], "bertscore"))


def test_suite_runs_the_cached_metrics_and_says_which_one_is_missing(monkeypatch, pairs_file, caplog):
    calls: list[dict] = []
    monkeypatch.setitem(sys.modules, "radeval", fake_radeval(calls))
    monkeypatch.setattr(radeval_adapter, "in_hf_cache", lambda model: model != RATE_NER)
    with caplog.at_level(logging.WARNING):
        task = metric_suite(metrics="bleu_2,bertscore,ratescore", data=str(pairs_file(GOOD_ROWS)))
    lines = [r.getMessage() for r in caplog.records if "ratescore" in r.getMessage()]
    assert lines == [
        "metric_suite: metric ratescore needs model Angelakeke/RaTE-NER-Deberta (not in the Hugging Face cache); "
        "the other metrics still run"
    ]
    (log,) = inspect_eval(task, model="none", display="none")
    assert log.status == "success", log.error
    for sample in log.samples:
        value = sample.scores["suite_scorer"].value
        assert set(value) == {"bleu_2", "bertscore"}
        assert value["bertscore"] == pytest.approx(0.5 + 0.01 * len(sample.output.completion.split()))
    metrics = report_values(log)
    assert "bertscore_mean" in metrics and "bleu_2_vs_bertscore_kendall" in metrics
    assert log.eval.metadata["skipped_metrics"] == [lines[0].removeprefix("metric_suite: ").split(";")[0]]


def test_suite_with_only_missing_metrics_fails_in_one_line(monkeypatch):
    monkeypatch.setattr(radeval_adapter, "radeval_installed", lambda: False)
    with pytest.raises(InputError, match="none of the metrics asked for can run here"):
        metric_suite(metrics="bertscore")


def test_only_scores_on_zero_to_one_may_be_filled_in_with_zero():
    assert RADEVAL_METRICS["bertscore"].bounded == []
    assert RADEVAL_METRICS["radcliq"].bounded == []
    assert RADEVAL_METRICS["radgraph"].bounded == ["radgraph_simple", "radgraph_partial", "radgraph_complete"]
    assert RADEVAL_METRICS["chexbert"].bounded == ["chexbert_acc_5", "chexbert_acc_all"]
