"""The paired test of two metrics' taus: the samples both scored, aligned by id, given to the shared test."""

from __future__ import annotations

from dataclasses import replace

import pytest
from inspect_ai.scorer import SampleScore, Score

from radiology_tasks.agreement.model import PROTOCOL_BY_NAME, ColumnGroup, PairedTest, RowId
from radiology_tasks.agreement.paired import aligned, paired_test, paired_tester
from radiology_tasks.agreement.table import build_table
from radiology_tasks.core.metrics import AgreementPairs
from radiology_tasks.scorers.leaderboard.agreement import tau_difference_test
from tests.agreement.memory import RATE, run, tau

EXPERT = {"a": 0.9, "b": 0.1, "c": 0.5, "d": 0.7, "e": 0.3, "f": 0.2}


def _samples(values: dict[str, dict[str, float | None]]) -> list[SampleScore]:
    return [
        SampleScore(score=Score(value=value, metadata={"expert_score": EXPERT[sample]}), sample_id=sample)
        for sample, value in values.items()
    ]


def _runs():
    """Two runs on the same data: bleu_2 and chrf in the first, rouge_l in the second, which misses sample f and
    left sample e unscored."""
    first = run("a.eval", [*tau("bleu_2", 0.5), *tau("chrf", 0.4)])
    second = run("b.eval", tau("rouge_l", 0.3))
    bleu = {"a": 0.8, "b": 0.3, "c": 0.2, "d": 0.6, "e": 0.1, "f": 0.4}
    chrf = {"a": 0.9, "b": 0.2, "c": 0.6, "d": 0.5, "e": 0.4, "f": 0.1}
    rouge: dict[str, float | None] = {"a": 0.7, "b": 0.1, "c": 0.5, "d": 0.4, "e": None}
    first = type(first)(
        **{**first.__dict__, "samples": _samples({s: {"bleu_2": bleu[s], "chrf": chrf[s]} for s in bleu})}
    )
    second = type(second)(**{**second.__dict__, "samples": _samples({s: {"rouge_l": v} for s, v in rouge.items()})})
    return first, second, bleu, chrf, rouge


def test_aligned_takes_the_ids_in_the_order_given():
    found = AgreementPairs(["a", "b", "c"], [1.0, 2.0, 3.0], [0.1, 0.2, 0.3], 0, 0)
    assert aligned(found, ["c", "a"]) == [(0.3, 3.0), (0.1, 1.0)]


def test_two_metrics_of_one_run_are_tested_on_all_their_samples():
    first, _, bleu, chrf, _ = _runs()
    group = build_table([first]).groups[0]
    test = paired_test(group, (RowId("bleu_2"), first), (RowId("chrf"), first), resamples=200, seed=4)
    ids = sorted(bleu)
    expected = tau_difference_test(
        [(EXPERT[i], bleu[i]) for i in ids], [(EXPERT[i], chrf[i]) for i in ids], resamples=200, seed=4
    )
    assert test == PairedTest(
        group.id, RowId("bleu_2"), RowId("chrf"), expected.difference, expected.bootstrap_p, 6, 200, expected.valid
    )
    assert test.reason is None and test.valid == 200


def test_metrics_of_two_runs_are_tested_on_the_samples_both_scored():
    first, second, bleu, _, rouge = _runs()
    group = build_table([first, second]).groups[0]
    test = paired_test(group, (RowId("bleu_2"), first), (RowId("rouge_l"), second), resamples=100, seed=1)
    shared = ["a", "b", "c", "d"]
    expected = tau_difference_test(
        [(EXPERT[i], bleu[i]) for i in shared], [(EXPERT[i], rouge[i]) for i in shared], resamples=100, seed=1
    )
    assert (test.difference, test.p_value, test.n, test.valid) == (
        expected.difference,
        expected.bootstrap_p,
        4,
        expected.valid,
    )


def test_a_test_on_fewer_than_two_shared_samples_says_why():
    first, second, *_ = _runs()
    lonely = replace(second, samples=_samples({"a": {"rouge_l": 0.5}}))
    group = build_table([first, lonely]).groups[0]
    test = paired_test(group, (RowId("bleu_2"), first), (RowId("rouge_l"), lonely), resamples=50, seed=0)
    assert test == PairedTest(
        group.id,
        RowId("bleu_2"),
        RowId("rouge_l"),
        None,
        None,
        1,
        50,
        0,
        "only 1 sample(s) have both metrics and the experts' value",
    )


def test_a_tau_undefined_on_the_shared_samples_gives_the_tests_reason():
    first, second, *_ = _runs()
    flat = replace(second, samples=_samples({s: {"rouge_l": 0.5} for s in "abcd"}))
    group = build_table([first, flat]).groups[0]
    test = paired_test(group, (RowId("bleu_2"), first), (RowId("rouge_l"), flat), resamples=50, seed=0)
    assert test.reason == "tau_difference_test: Kendall's tau is undefined for a judge on these samples"
    assert (test.difference, test.p_value, test.n, test.valid, test.resamples) == (None, None, 4, 0, 50)


def test_the_tester_passes_the_commands_resamples_and_seed(monkeypatch):
    seen = []
    monkeypatch.setattr(
        "radiology_tasks.agreement.paired.paired_test",
        lambda group, first, second, *, resamples, seed: seen.append((group, first, second, resamples, seed)),
    )
    paired_tester(30, 7)("g", "x", "y")  # type: ignore[arg-type]
    assert seen == [("g", "x", "y", 30, 7)]


@pytest.mark.parametrize("truth", ["score", "significant_errors", "total_errors"])
def test_the_groups_protocol_is_the_truth_compared_with(truth, monkeypatch):
    first, *_ = _runs()
    truths = []

    def pairs(samples, key, wanted):
        truths.append((key, wanted))
        return AgreementPairs([], [], [], 0, 0)

    monkeypatch.setattr("radiology_tasks.core.metrics.agreement_pairs", pairs)
    group = ColumnGroup("g", RATE, "rate", PROTOCOL_BY_NAME[truth])
    paired_test(group, (RowId("bleu_2"), first), (RowId("chrf"), first), resamples=10, seed=0)
    assert truths == [("bleu_2", truth), ("chrf", truth)]


def test_two_shared_samples_are_enough_to_test():
    first, second, bleu, _, rouge = _runs()
    pair = replace(second, samples=_samples({"a": {"rouge_l": 0.7}, "b": {"rouge_l": 0.1}}))
    group = build_table([first, pair]).groups[0]
    test = paired_test(group, (RowId("bleu_2"), first), (RowId("rouge_l"), pair), resamples=20, seed=0)
    assert test.reason is None and test.n == 2
    assert test.difference == 0.0
