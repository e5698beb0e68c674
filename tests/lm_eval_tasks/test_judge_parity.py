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
from tests.report_values import report_values

pytest.importorskip("lm_eval")
pytestmark = pytest.mark.slow  # whole evaluations in both harnesses

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
    ids=["vert", "formula", "rubric", "green"],
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

    metrics = report_values(log)
    aggregates = lm_run.output["results"][name]
    for key in inspect_values:
        assert _same(aggregates[f"{key},none"], metrics[f"{key}_mean"]), key
    assert aggregates["parse_failure,none"] == metrics["parse_failure_rate"] == 0.0
    for key in dict.fromkeys([main, "green_ec"]):
        for correlation in ("kendall_tau", "spearman"):
            value = metrics[f"{key}_{correlation}"]
            assert not math.isnan(value), f"{key}_{correlation} is undefined: the scripted answers are too uniform"
            assert _same(aggregates[f"{key}_{correlation},none"], value), (key, correlation)


def _broken_first(always_broken: str, broken_once: str):
    """Answers `always_broken`'s pair unreadably every time, `broken_once`'s only the first time it is asked."""
    asked: dict[str, int] = {}

    def reply(body: dict[str, Any]) -> str:
        prompt = body["messages"][-1]["content"]
        pair = _pair_in(prompt)
        asked[pair.id] = asked.get(pair.id, 0) + 1
        if pair.id == always_broken or (pair.id == broken_once and asked[pair.id] == 1):
            return "The candidate looks fine to me."
        return _answer(prompt)

    return reply


def test_an_unreadable_answer_is_worst_in_both_but_only_inspect_asks_again(monkeypatch):
    always, once = PAIRS[1].id, PAIRS[2].id
    inspect_run = run_inspect(vert(limit=LIMIT), _broken_first(always, once), monkeypatch)
    lm_run = run_lm_eval(["radiology_vert"], _broken_first(always, once), limit=LIMIT)

    inspect_scores = {sample.id: sample.scores["report_judge"] for sample in inspect_run.output.samples}
    lm_samples = _lm_eval_samples(lm_run.output, "radiology_vert")
    # Never readable: both harnesses count a parse failure and score the bounded scores 0 (unscored=worst).
    assert inspect_scores[always].reason == "grader_failed"
    assert inspect_scores[always].metadata["unscored"]["vert"] == "invalid_response_format"
    assert inspect_scores[always].value["vert"] == lm_samples[always]["vert"] == 0.0
    assert math.isnan(inspect_scores[always].value["green_ec"]) and math.isnan(lm_samples[always]["green_ec"])
    assert lm_samples[always]["parse_failure"] == 1.0
    # Readable when asked again: Inspect (judge_retries=1) scores it, lm-eval asks once and counts a failure.
    assert inspect_scores[once].reason is None and inspect_scores[once].value["vert"] > 0
    assert lm_samples[once]["parse_failure"] == 1.0 and lm_samples[once]["vert"] == 0.0
    assert len(inspect_run.requests) == LIMIT + 2 and len(lm_run.requests) == LIMIT

    metrics = report_values(inspect_run.output)
    aggregates = lm_run.output["results"]["radiology_vert"]
    assert metrics["parse_failure_rate"] == pytest.approx(1 / LIMIT)
    assert aggregates["parse_failure,none"] == pytest.approx(2 / LIMIT)
