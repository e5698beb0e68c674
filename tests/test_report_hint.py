"""The report hint prints after this package's `inspect eval` runs only, and installing the package changes nothing
that other packages' evaluations, `score()` or a reward function print: Inspect announces each hook registered
before a run ("hooks enabled: ..."), and ours is registered only once one of our tasks is built inside a run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

NOTICE = "hooks enabled"

TINY_TASK = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.scorer import includes


@task
def tiny():
    return Task(dataset=[Sample(input="hi", target="hi")], solver=[], scorer=includes())
"""


def _run(command: list[str], cwd: Path) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("INSPECT_EVAL_MODEL")}
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**env, "COLUMNS": "200"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one stream, in the order printed
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    return done.stdout


def _python(code: str, cwd: Path) -> str:
    return _run([sys.executable, "-c", textwrap.dedent(code)], cwd)


def test_the_registry_import_registers_no_hook_and_building_our_task_does(tmp_path):
    found = _python(
        """
        from inspect_ai.hooks._hooks import get_all_hooks
        from inspect_ai.util import registry_info

        import radiology_tasks._registry
        from radiology_tasks.baselines.tasks import baselines
        from radiology_tasks.core.report_hook import quiet_report_hint

        def names():
            return [registry_info(hook).name for hook in get_all_hooks()]

        print(names())
        with quiet_report_hint():
            baselines(limit=1)
        print(names())
        baselines(limit=1)
        baselines(limit=1)
        print(names())
        """,
        tmp_path,
    )
    assert found.splitlines() == ["[]", "[]", "['radiology_tasks/report_hint']"]


@pytest.mark.slow
def test_an_evaluation_of_another_package_s_task_prints_nothing_of_ours(tmp_path):
    (tmp_path / "tiny.py").write_text(TINY_TASK)
    command = [sys.executable, "-m", "inspect_ai", "eval", "tiny.py", "--model", "none", "--display", "plain"]
    output = _run([*command, "--log-dir", str(tmp_path / "logs")], tmp_path)
    assert "tiny (1 sample)" in output, output  # the run and its summary were printed
    assert NOTICE not in output and "radiology" not in output and "All metrics" not in output, output


@pytest.mark.slow
def test_our_evaluation_ends_with_the_report_hint_and_announces_no_hook(tmp_path):
    command = [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/baselines", "-T", "limit=2"]
    command += ["--model", "none", "--display", "plain", "--log-dir", "logs"]
    output = _run(command, tmp_path)
    assert NOTICE not in output, output
    (log,) = (tmp_path / "logs").glob("*.eval")
    assert output.rstrip().splitlines()[-1] == f"All metrics: radiology-tasks report logs/{log.name}"


@pytest.mark.slow
def test_score_and_a_reward_call_print_nothing(tmp_path):
    output = _python(
        """
        import asyncio
        from radiology_tasks import reward_function, score

        result = score(["No effusion."], ["No effusion."], "baselines", log_dir="logs", baselines="rouge_l")
        assert result.values() == [1.0]
        rouge = reward_function("baselines", baselines="rouge_l", log_dir="logs")
        (reward,) = asyncio.run(rouge(prompts=["p"], completions=["Effusion."], reference=["No effusion."]))
        assert 0 < reward < 1
        """,
        tmp_path,
    )
    assert output == ""
    # score() writes Inspect's .eval archive; a reward call writes its log as JSON (REWARD_EVAL_DEFAULTS).
    logs = tmp_path / "logs"
    assert [len(list(logs.glob("*.eval"))), len(list(logs.glob("*.json")))] == [1, 1]
