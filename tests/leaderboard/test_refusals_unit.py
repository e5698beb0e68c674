"""Every refusal of the submission checks and the bundle, on runs built in memory: the exact line, naming the
sample or field, and the boundary each check draws (see also `test_checks_unit`)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.leaderboard import checks
from tests.leaderboard.memory_runs import memory_run, write_pairs


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_pairs(tmp_path)


def test_a_run_over_several_epochs_passes(data):
    run = memory_run(data)
    second = [replace(s, epoch=2) for s in run.samples]
    assert checks.run_violations(replace(run, samples=[*run.samples, *second])) == []
