"""GREEN/VERT re-scoring on runs built in memory: the reading rules, the error profile and expert agreement
(the refusal lines themselves are in `tests/leaderboard/test_checks_unit.py`)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.green_vert.rescoring import RESCORING, error_profile, expected_values
from radiology_tasks.leaderboard.board import expert_points
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


def _rated(data: Path, experts: list[float | None]) -> Path:
    """The pairs of `data` with the experts' scores `experts` (None: not rated)."""
    rows = [json.loads(line) for line in data.read_text().splitlines()]
    rated = data.with_name("rated.jsonl")
    rated.write_text(
        "".join(json.dumps({**row, "expert_score": e}) + "\n" for row, e in zip(rows, experts, strict=True))
    )
    return rated


@pytest.mark.parametrize("generate", [True, "true"])
def test_expert_agreement_is_only_for_the_datas_own_candidates(data, generate):
    # The judges' track compares the ranked score with the experts (read from the data by the leaderboard).
    rated = _rated(data, [0.0, 0.25, 0.5, 0.75])
    run = memory_run(rated, [sample(f"s{i}") for i in range(4)])
    assert RESCORING.agreement_key(run) == "vert" == RESCORING.ranked(run).key
    assert expert_points(run) == [[0.25 * i, 0.7] for i in range(4)]
    assert expert_points(memory_run(rated, run.samples, task_args={**run.task_args, "generate": generate})) is None
    assert expert_points(memory_run(rated, run.samples, task_args={**run.task_args, "generate": False})) is not None


def test_expert_agreement_skips_samples_without_a_judged_score_and_goes_on(data):
    samples = [
        sample("s0"),
        sample("s1", values={**VALUES, "vert": None}),
        sample("s2", values={**VALUES, "vert": 0.0}, filled_in=["vert"]),
        sample("s3"),
    ]
    assert expert_points(memory_run(_rated(data, [None, 0.5, 0.5, 1.0]), samples)) == [[1.0, 0.7]]
