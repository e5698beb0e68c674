"""The lm-eval task configs as users run them: from any directory, through the `lm_eval` command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

pytest.importorskip("lm_eval")

from radiology_tasks.cli import main  # noqa: E402
from radiology_tasks.core.rows import DataError  # noqa: E402
from radiology_tasks.lm_eval_tasks import config_dir  # noqa: E402
from radiology_tasks.ran_score.taxonomy import load_taxonomy  # noqa: E402
from radiology_tasks.report_judge.scorer import judge_contract  # noqa: E402
from radiology_tasks.scorers.ran_score.contract import batch_contract  # noqa: E402
from tests.judge_answers import assessment  # noqa: E402
from tests.lm_eval_tasks.harnesses import run_lm_eval  # noqa: E402
from tests.openai_stub import openai_stub  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TASKS = [
    "radiology_green",
    "radiology_vert",
    "radiology_vert_formula",
    "radiology_vert_rubric",
    "radiology_ct_finebench_qa",
    "radiology_ran_score_extraction",
]


def _vert_answer(body: dict) -> str:
    return assessment({"b": 1}, 3, 0.7 if "[Overall Accuracy Score]" in body["messages"][-1]["content"] else None)


def test_lm_eval_path_prints_the_config_directory(capsys):
    assert main(["lm-eval-path"]) == 0
    printed = Path(capsys.readouterr().out.strip())
    assert printed == config_dir()
    assert {path.stem for path in printed.glob("*.yaml")} == {"radiology", *TASKS}


def test_the_group_lists_every_task():
    group = yaml.safe_load((config_dir() / "radiology.yaml").read_text(encoding="utf-8"))
    assert group["group"] == "radiology" and group["task"] == TASKS


def _generation_budget(text: str) -> int:
    (budget,) = re.findall(r"max_gen_toks: (\d+)", text)
    return int(budget)


def test_answer_budgets_are_the_inspect_tasks_contract_budgets():
    judge = (config_dir() / "_judge_template_yaml").read_text(encoding="utf-8")
    assert {_generation_budget(judge)} == {judge_contract(p).max_tokens for p in ("green", "vert", "formula", "rubric")}
    ran = (config_dir() / "radiology_ran_score_extraction.yaml").read_text(encoding="utf-8")
    asked = [label.key for label in load_taxonomy().asked]
    assert _generation_budget(ran) == batch_contract(asked).max_tokens


def test_ci_and_the_readme_install_the_lm_eval_extra():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[dev,local,lm-eval,train]'" in readme
    assert "pip install -q -e '.[dev,local,lm-eval,train]'" in ci


@pytest.mark.slow
def test_the_lm_eval_command_runs_the_group_from_another_directory(tmp_path):
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"}
    path = subprocess.run(
        [sys.executable, "-m", "radiology_tasks.cli", "lm-eval-path"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    with openai_stub(_vert_answer) as server:
        model_args = f"base_url={server.base_url}/chat/completions,model=stub-judge,tokenized_requests=False"
        result = subprocess.run(
            [sys.executable, "-m", "lm_eval", "--model", "local-chat-completions", "--model_args", model_args,
             "--include_path", path, "--tasks", "radiology", "--limit", "5", "--apply_chat_template"],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    table = result.stdout
    for task in TASKS:
        assert re.search(rf"\|\s*- {task}\s*\|", table), task
    assert re.search(r"\|\s*vert\s*\|↑\s*\|0\.7000\|", table)
    assert re.search(r"\|\s*green\s*\|↑\s*\|0\.7500\|", table)
    # The scripted server answers every task in the GREEN/VERT format: the other tasks count parse failures.
    assert len(server.requests) == 5 * len(TASKS)


@pytest.mark.slow
def test_a_local_jsonl_is_read_by_the_same_loader(tmp_path):
    rows = [
        {"id": "a", "reference": "No pleural effusion.", "candidate": "Small left effusion.", "expert_score": 0.4},
        {"id": "b", "reference": "Normal heart size.", "candidate": "Heart size is normal.", "expert_score": 1},
    ]
    data = tmp_path / "pairs.jsonl"
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    run = run_lm_eval(["radiology_vert"], _vert_answer, metadata={"data": str(data)})
    assert [sample["doc"]["id"] for sample in run.output["samples"]["radiology_vert"]] == ["a", "b"]
    assert any("Small left effusion." in request["messages"][-1]["content"] for request in run.requests)


@pytest.mark.slow
def test_a_bad_row_stops_with_the_loaders_message(tmp_path):
    data = tmp_path / "pairs.jsonl"
    data.write_text(json.dumps({"id": "a", "reference": "No effusion."}) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match="candidate"):
        run_lm_eval(["radiology_vert"], _vert_answer, metadata={"data": str(data)})
