"""baselines re-scoring on runs built in memory: keys, policy, texts checked against the data, each refusal line."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.baselines.family import FAMILY
from radiology_tasks.baselines.rescoring import RESCORING
from radiology_tasks.core.family import family_of
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rules import RankedScore
from radiology_tasks.scorers.lexical import lexical_scores

ROWS = [
    ("s0", "Small left pleural effusion.", "Small left effusion."),
    ("s1", "Heart size is normal. Lungs are clear.", "Normal heart. Clear lungs."),
]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "pairs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "reference": r, "candidate": c}) + "\n" for i, r, c in ROWS))
    return path


def _sample(sample_id: str, reference: str | None, candidate: str | None, keys: list[str]) -> SampleEvidence:
    values = lexical_scores(reference or "", candidate, keys)[0] if candidate else dict.fromkeys(keys, 0.0)
    return SampleEvidence(sample_id, 1, None, dict(values), {}, candidate, [], False, target=reference)


def _run(data: Path, samples: list[SampleEvidence] | None = None, **args: Any) -> RunEvidence:
    keys = ["rouge_l", "bleu_2"]
    return RunEvidence(
        path=Path("b.eval"),
        sha256="0" * 64,
        task="radiology_tasks/baselines",
        task_version="1.3.0",
        task_args={"data": str(data), "baselines": "rouge_l,bleu_2", "unscored": "worst", **args},
        status="success",
        model="none/none",
        judge=None,
        metadata={},
        scorer="lexical_baselines",
        results={},
        samples=[_sample(i, r, c, keys) for i, r, c in ROWS] if samples is None else samples,
    )


def test_an_honest_run_is_ranked_on_its_first_key_and_gives_no_line(data):
    run = _run(data)
    assert RESCORING.ranked(run) == RankedScore("bleu_2", bounded=True, corpus=False), "in LEXICAL_KEYS order"
    for sample in run.samples:
        expected = lexical_scores(sample.target or "", sample.candidate or "", ["bleu_2", "rouge_l"])[0]
        assert RESCORING.expected(run, sample) == pytest.approx(expected)
    assert RESCORING.run_checks(run) == []
    assert not RESCORING.needs_judge() and RESCORING.answers(run.samples[0]) == []
    assert FAMILY.rescoring("baselines") is RESCORING and family_of("metric_suite") is not FAMILY


def test_the_defaults_are_the_tasks(data):
    run = _run(data, baselines=None, unscored=None)
    assert RESCORING.ranked(run).key == "bleu_1"
    assert list(RESCORING.expected(run, run.samples[0])) == ["bleu_1", "bleu_2", "bleu_3", "bleu_4", "chrf", "rouge_l"]
    assert RESCORING.run_checks(run) == []


def test_a_sample_without_a_candidate_gets_the_policys_value(data):
    empty = _sample("s0", ROWS[0][1], None, ["rouge_l", "bleu_2"])
    assert RESCORING.expected(_run(data), empty) == {"bleu_2": 0.0, "rouge_l": 0.0}
    excluded = RESCORING.expected(_run(data, unscored="exclude"), empty)
    assert list(excluded) == ["bleu_2", "rouge_l"] and all(math.isnan(v) for v in excluded.values())


def test_a_missing_reference_is_scored_as_empty(data):
    sample = _sample("s0", None, ROWS[0][2], ["rouge_l", "bleu_2"])
    assert RESCORING.expected(_run(data), sample) == {"bleu_2": 0.0, "rouge_l": 0.0}


def test_unreadable_settings_are_named_and_nothing_is_recomputed(data):
    run = _run(data, baselines="meteor", unscored="best")
    assert RESCORING.expected(run, run.samples[0]) == {}
    assert RESCORING.ranked(run) == RankedScore("bleu_1")
    assert RESCORING.run_checks(run) == [
        "-T baselines='meteor' names no lexical metric the task computes",
        "-T unscored='best' is not a policy the task accepts",
    ]
    assert RESCORING.expected(_run(data, baselines="rouge_l", unscored="best"), run.samples[0]) == {}
    assert RESCORING.expected(_run(data, baselines="meteor"), run.samples[0]) == {}


def test_a_task_other_than_baselines_is_not_recomputed(data):
    run = replace(_run(data), task="radiology_tasks/metric_suite")
    assert RESCORING.expected(run, run.samples[0]) == {}


@pytest.mark.parametrize("generate", [True, "true"])
def test_generated_reports_are_refused_but_their_references_checked(data, generate):
    samples = [_sample("s0", ROWS[0][1], "A report the model wrote.", ["rouge_l", "bleu_2"])]
    samples.append(_sample("s1", "Edited reference.", "Another report.", ["rouge_l", "bleu_2"]))
    assert RESCORING.run_checks(_run(data, samples, generate=generate)) == [
        "-T generate=true: the generated reports cannot be checked against the model's outputs yet; "
        "submit them as -T candidates=FILE",
        "sample s1: the logged reference is not the data's",
    ]
    assert RESCORING.expected(_run(data, samples, generate=generate), samples[0]) != {}


def test_edited_texts_are_named_by_sample(data):
    run = _run(data)
    edited = [
        replace(run.samples[0], target=ROWS[0][2]),
        replace(run.samples[1], candidate=ROWS[1][1]),
    ]
    assert RESCORING.run_checks(replace(run, samples=edited)) == [
        "sample s0: the logged reference is not the data's",
        f"sample s1: the logged candidate is not the data's ({len(ROWS[1][1])} characters, "
        f"the data's {len(ROWS[1][2])} characters)",
    ]
    dropped = [replace(run.samples[0], candidate=None), run.samples[1]]
    assert RESCORING.run_checks(replace(run, samples=dropped)) == [
        f"sample s0: the logged candidate is not the data's (none, the data's {len(ROWS[0][2])} characters)"
    ]


def test_samples_outside_the_data_or_failed_are_left_to_other_checks(data):
    run = _run(data)
    stray = replace(run.samples[0], id="zz", target="x")
    failed = replace(run.samples[1], target="edited", error="boom")
    assert RESCORING.run_checks(replace(run, samples=[stray, failed])) == []


def test_data_that_cannot_be_loaded_is_one_line(data, tmp_path):
    run = _run(tmp_path / "missing.jsonl", baselines="meteor")
    lines = RESCORING.run_checks(run)
    assert lines[0] == "-T baselines='meteor' names no lexical metric the task computes"
    assert len(lines) == 2 and lines[1].startswith("the data cannot be loaded here to check the logged reports: ")
    assert "missing.jsonl" in lines[1]


def test_a_sample_outside_the_data_does_not_stop_the_checks_of_the_next(data):
    run = _run(data)
    stray = replace(run.samples[0], id="zz")
    edited = replace(run.samples[1], target="Edited.")
    assert RESCORING.run_checks(replace(run, samples=[stray, edited])) == [
        "sample s1: the logged reference is not the data's"
    ]


def test_a_missing_reference_scores_like_an_empty_one_whatever_the_candidate(data):
    for candidate in ("XXXX", "Small left effusion."):
        sample = _sample("s0", None, candidate, ["rouge_l", "bleu_2"])
        assert RESCORING.expected(_run(data), sample) == {"bleu_2": 0.0, "rouge_l": 0.0}
