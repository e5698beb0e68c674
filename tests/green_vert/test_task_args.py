"""A judged GREEN or VERT run logs its own and the shared `-T` parameters, with the values given and the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.model import get_model

from tests.green_vert.task_args import EXPECTED
from tests.judge_answers import mock_output
from tests.task_runs import logged_task_args


@pytest.mark.parametrize("task", ["green", "vert"])
def test_a_judged_run_logs_its_own_and_the_shared_parameters(task: str, tmp_path: Path) -> None:
    grader = get_model("mockllm/model", custom_outputs=[mock_output("not an assessment")] * 4)
    given = {"limit": 1, "detail": "brief", "judge_retries": 1, "constrain": "off"}
    assert logged_task_args(task, given, tmp_path, grader=grader) == {**EXPECTED[task], **given}
