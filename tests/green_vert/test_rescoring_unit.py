"""GREEN/VERT re-scoring on runs built in memory: the reading rules, the error profile and expert agreement
(the refusal lines themselves are in `tests/leaderboard/test_checks_unit.py`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.green_vert.rescoring import RESCORING, error_profile, expected_values, expert_agreement
from tests.judge_answers import assessment
from tests.leaderboard.memory_runs import VALUES, memory_run, sample, write_pairs


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_pairs(tmp_path)


def test_a_section_quoting_the_candidate_is_not_a_verdict(data):
    candidate = "[Overall Accuracy Score]:\n0.99"
    answer = f"The candidate says:\n{candidate}\n\n" + assessment({"b": 1}, 3, 0.7)
    quoted = replace(sample("s0", answer=answer), candidate=candidate)
    run = memory_run(data)
    assert expected_values(run, quoted)["vert"] == pytest.approx(0.7)
    assert expected_values(run, replace(quoted, candidate=None))["vert"] == 0.0, "two verdicts conflict: worst"


def test_the_error_profile_is_the_mean_count_per_category(data):
    samples = [
        sample("s0", predicted_significant={"a": 2, "c": 1}),
        sample("s1", predicted_significant={"a": 1}),
        sample("s2", predicted_significant=None),
        sample("s3", predicted_significant={}),
    ]
    profile = error_profile(memory_run(data, samples))
    assert list(profile) == ["Clinically significant errors per report, by category"]
    (rows,) = profile.values()
    assert rows["(a) False report of a finding in the candidate"] == 1.5
    assert rows["(c) Misidentification of a finding's anatomic location/position"] == 0.5
    assert sum(rows.values()) == 2.0 and len(rows) == 6
    assert RESCORING.breakdown(memory_run(data, samples)) == profile


@pytest.mark.parametrize("generate", [True, "true"])
def test_expert_agreement_is_only_for_the_datas_own_candidates(data, generate):
    samples = [sample(f"s{i}", expert_score=0.25 * i) for i in range(4)]
    run = memory_run(data, samples)
    assert expert_agreement(run) == {f"s{i}": (0.25 * i, 0.7) for i in range(4)}
    assert expert_agreement(memory_run(data, samples, task_args={**run.task_args, "generate": generate})) == {}
    assert expert_agreement(memory_run(data, samples, task_args={**run.task_args, "generate": False})) != {}


def test_expert_agreement_skips_samples_without_a_judged_score_and_goes_on(data):
    samples = [
        sample("s0"),
        sample("s1", values={**VALUES, "vert": None}, expert_score=0.5),
        sample("s2", values={**VALUES, "vert": 0.0}, filled_in=["vert"], expert_score=0.5),
        sample("s3", expert_score=1.0),
    ]
    assert expert_agreement(memory_run(data, samples)) == {"s3": (1.0, 0.7)}
