"""With no judge bound, a run stops before its first sample with one line saying how to bind one."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from radiology_tasks.core.errors import PrerequisiteError
from radiology_tasks.core.judge import NO_JUDGE_MESSAGE
from radiology_tasks.judge_sensitivity.rewrite import NO_INJECTOR_MESSAGE
from tests.judge_answers import mock_output

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    ("task", "args"),
    [
        ("green", {}),
        ("vert", {}),
        ("ct_finebench", {}),
        ("ran_score", {}),
        ("judge_sensitivity", {}),
        ("metric_suite", {"metrics": "bleu,vert"}),
    ],
)
def test_every_judged_task_stops_before_its_first_sample(task: str, args: dict[str, str], tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError) as caught:
        inspect_eval(f"radiology_tasks/{task}", task_args=args, model="none", display="none", log_dir=str(tmp_path))
    assert str(caught.value) == NO_JUDGE_MESSAGE
    assert list(tmp_path.iterdir()) == []  # no log: no sample ran


def test_the_injector_is_asked_for_when_variants_are_to_be_made(tmp_path: Path) -> None:
    judge = get_model("mockllm/model", custom_outputs=[mock_output("unused")])
    with pytest.raises(PrerequisiteError) as caught:
        inspect_eval(
            "radiology_tasks/judge_sensitivity",
            model="none",
            model_roles={"grader": judge},
            display="none",
            log_dir=str(tmp_path),
        )
    assert str(caught.value) == NO_INJECTOR_MESSAGE


def test_tasks_that_need_no_judge_still_run_without_one(tmp_path: Path) -> None:
    (log,) = inspect_eval(
        "radiology_tasks/baselines", task_args={"limit": 2}, model="none", display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success"


@pytest.mark.slow
def test_the_bare_headline_command_prints_one_message_and_no_traceback(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_EVAL_MODEL")}
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/ct_finebench", "--log-dir", str(tmp_path)],
        cwd=tmp_path,
        env={**env, "COLUMNS": "200"},
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    # The whole output is the one message: no traceback, and no notice of a hook before it.
    assert " ".join(output.split()) == NO_JUDGE_MESSAGE
