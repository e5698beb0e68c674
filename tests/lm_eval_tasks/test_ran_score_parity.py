"""Ran Score extraction: the lm-eval task's F1 against gold labels is the Inspect task's ``extractor_f1``."""

from __future__ import annotations

from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ran_score.tasks import DEMO_DATA, ran_score
from tests.lm_eval_tasks.harnesses import prompts, run_inspect, run_lm_eval
from tests.ran_score.helpers import ASKED, KEY_OF, batch_answer, report_in
from tests.report_values import report_values

pytest.importorskip("lm_eval")
pytestmark = pytest.mark.slow  # whole evaluations in both harnesses

LIMIT = 6
PAIRS = load_pairs(DEMO_DATA).pairs[:LIMIT]


def _reply(body: dict[str, Any]) -> str:
    """Labels that follow the gold ones with a miss and a false alarm in every other report."""
    report = report_in(body)
    matching = [pair for pair in PAIRS if pair.reference in report]
    if not matching:  # a candidate report (Inspect labels those too): nothing found
        return batch_answer({})
    (pair,) = matching
    gold = {KEY_OF[column] for column, value in pair.metadata["gold_labels"].items() if value}
    gold &= set(ASKED)
    if int(pair.id[-2:]) % 2:
        gold = set(sorted(gold)[1:]) | {"fracture"}
    return batch_answer(dict.fromkeys(gold, pair.reference[:20]))


def test_same_prompts_and_f1_against_gold_labels(monkeypatch):
    inspect_run = run_inspect(ran_score(limit=LIMIT, label_cache="off"), _reply, monkeypatch)
    lm_run = run_lm_eval(["radiology_ran_score_extraction"], _reply, limit=LIMIT)

    reference_prompts = [p for p in prompts(inspect_run.requests) if any(pair.reference in p for pair in PAIRS)]
    assert sorted(reference_prompts) == sorted(prompts(lm_run.requests))
    assert len(lm_run.requests) == LIMIT

    metrics = report_values(inspect_run.output)
    aggregates = lm_run.output["results"]["radiology_ran_score_extraction"]
    assert 0 < metrics["extractor_macro_f1"] < 1 and 0 < metrics["extractor_micro_f1"] < 1
    assert aggregates["macro_f1,none"] == pytest.approx(metrics["extractor_macro_f1"])
    assert aggregates["micro_f1,none"] == pytest.approx(metrics["extractor_micro_f1"])
    assert aggregates["parse_failure,none"] == 0.0
