"""Parity: the Inspect GREEN/VERT tasks and their lm-eval configs give the same scores for the same answers."""

from __future__ import annotations

import math
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ReportPair
from radiology_tasks.green_vert.tasks import green, vert
from tests.judge_answers import assessment
from tests.lm_eval_tasks.harnesses import prompts, run_inspect, run_lm_eval

LIMIT = 9
PAIRS = load_pairs().pairs[:LIMIT]


def _pair_in(prompt: str) -> ReportPair:
    """The demo pair whose candidate report the prompt shows."""
    (pair,) = [pair for pair in PAIRS if pair.candidate in prompt]
    return pair


def _answer(prompt: str) -> str:
    """A well-formed answer that follows the experts' counts loosely, so the correlations are not trivial."""
    pair = _pair_in(prompt)
    significant = pair.expert.significant.as_dict() if pair.expert and pair.expert.significant else {}
    errors = sum(significant.values())
    score = round(max(0.0, 0.9 - 0.2 * errors) + 0.05 * (len(pair.id) % 3), 2)
    return assessment(significant, 2 + len(pair.id) % 4, score if "[Overall Accuracy Score]" in prompt else None)


def _reply(body: dict[str, Any]) -> str:
    return _answer(body["messages"][-1]["content"])


def _lm_eval_samples(results: dict[str, Any], task: str) -> dict[str, dict[str, Any]]:
    return {sample["doc"]["id"]: sample for sample in results["samples"][task]}


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, abs=1e-12)


@pytest.mark.parametrize(
    ("task", "name", "main"),
    [
        (lambda: vert(limit=LIMIT), "radiology_vert", "vert"),
        (lambda: vert(prompt="formula", limit=LIMIT), "radiology_vert_formula", "formula"),
        (lambda: vert(prompt="rubric", limit=LIMIT), "radiology_vert_rubric", "rubric"),
        (lambda: green(limit=LIMIT), "radiology_green", "green"),
    ],
)
def test_same_prompts_scores_and_aggregates(monkeypatch, task, name, main):
    inspect_run = run_inspect(task(), _reply, monkeypatch)
    lm_run = run_lm_eval([name], _reply, limit=LIMIT)

    # The same prompt reached the judge for every document, and nothing else did.
    assert sorted(prompts(inspect_run.requests)) == sorted(prompts(lm_run.requests))
    assert len(lm_run.requests) == LIMIT

    log = inspect_run.output
    lm_samples = _lm_eval_samples(lm_run.output, name)
    assert set(lm_samples) == {sample.id for sample in log.samples} == {pair.id for pair in PAIRS}
    for sample in log.samples:
        inspect_values = sample.scores["report_judge"].value
        lm_sample = lm_samples[sample.id]
        for key, value in inspect_values.items():
            assert _same(lm_sample[key], value), (sample.id, key, lm_sample[key], value)
        assert lm_sample["parse_failure"] == 0.0

    metrics = {key: metric.value for key, metric in log.results.scores[0].metrics.items()}
    aggregates = lm_run.output["results"][name]
    for key in inspect_values:
        assert _same(aggregates[f"{key},none"], metrics[f"{key}_mean"]), key
    assert aggregates["parse_failure,none"] == metrics["parse_failure_rate"] == 0.0
    for key in dict.fromkeys([main, "green_ec"]):
        for correlation in ("kendall_tau", "spearman"):
            value = metrics[f"{key}_{correlation}"]
            assert not math.isnan(value), f"{key}_{correlation} is undefined: the scripted answers are too uniform"
            assert _same(aggregates[f"{key}_{correlation},none"], value), (key, correlation)
