"""The `-T` names and defaults of every task, as Inspect logs them (`log.eval.task_args`): old commands and old
logs keep working, and the leaderboard reads these. Written out in full here, not derived from the option
classes, so a renamed, dropped or re-defaulted parameter fails."""

from __future__ import annotations

import inspect
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from radiology_tasks.cli import registered_tasks
from tests.judge_answers import mock_output

DATA: dict[str, Any] = {
    "data": None,
    "candidates": None,
    "reports": None,
    "revision": None,
    "limit": None,
    "seed": None,
    "on_bad_rows": "error",
    "layout": None,
    "track": None,
    "image_root": None,
    "expert_scale": None,
    "generate": False,
    "report_max_tokens": 1536,
    "images": "all",
    "missing_images": "error",
}
JUDGE: dict[str, Any] = {"constrain": "auto", "judge_max_tokens": None, "judge_retries": 1, "unscored": "worst"}
READING: dict[str, Any] = {"zero_matched": "perfect_if_no_errors", "missing_categories": "zero", "detail": "full"}
EXAMPLES: dict[str, Any] = {
    "shots": 0,
    "shot_pool": None,
    "shot_seed": 0,
    "curated": "none",
    "error_descriptions": False,
}


def _without(values: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k not in names}


def _only(values: dict[str, Any], *names: str) -> dict[str, Any]:
    return {k: v for k, v in values.items() if k in names}


GREEN = {**DATA, **EXAMPLES, **READING, **JUDGE, "baselines": None}
EXPECTED: dict[str, dict[str, Any]] = {
    "baselines": {"baselines": "bleu,chrf,rouge_l", **DATA, "unscored": "worst"},
    "crimson": {"guidelines": True, **DATA, **JUDGE},
    "ct_finebench": {**_without(DATA, "report_max_tokens"), "qa_mode": "batch", **JUDGE, "baselines": None},
    "green": GREEN,
    "vert": {"prompt": "vert", **GREEN},
    "judge_sensitivity": {
        "prompt": "vert",
        "passes": 1,
        "categories": None,
        "max_errors": 3,
        "paraphrases": 1,
        "injector_attempts": 5,
        "injector_temperature": 0.0,
        "injector_max_tokens": None,
        **_only(DATA, "data", "revision", "limit", "seed", "on_bad_rows", "layout"),
        **READING,
        **JUDGE,
    },
    "metric_suite": {
        "metrics": "bleu,chrf,rouge_l",
        **_without(DATA, "generate", "report_max_tokens", "images", "missing_images"),
        "sensitivity": None,
        "qa_mode": "batch",
        **JUDGE,
    },
    "ran_score": {
        **_without(DATA, "report_max_tokens"),
        "taxonomy": None,
        "extraction": "batch",
        "reference_labels": None,
        "candidate_labels": None,
        "gold_labels": None,
        "label_cache": None,
        **JUDGE,
        "baselines": None,
    },
    "report_generation": _without(DATA, "candidates", "generate"),
    "ranking_tests": {
        "metric": "rouge_l",
        "data": "demo",
        "key": None,
        "direction": "auto",
        "tie_tolerance": 0.01,
        **_without(JUDGE, "unscored"),
    },
}


def test_every_task_takes_the_same_parameters_with_the_same_defaults() -> None:
    """What Inspect matches `-T` names against and logs with defaults applied: the task function's signature."""
    found = {
        name.rsplit("/", 1)[-1]: {p.name: p.default for p in inspect.signature(function).parameters.values()}
        for name, function in registered_tasks()
    }
    assert found == EXPECTED


def _run(task: str, task_args: dict[str, Any], tmp_path: Path, **roles: Any) -> dict[str, Any]:
    (log,) = inspect_eval(
        f"radiology_tasks/{task}",
        task_args=task_args,
        model="none",
        model_roles=roles or None,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "success", log.error
    return dict(log.eval.task_args)


def test_a_run_logs_every_parameter_with_the_values_given_and_the_defaults(tmp_path: Path) -> None:
    # As `inspect eval -T limit=2 -T seed=3 -T unscored=exclude` passes them after reading them as YAML.
    given = {"limit": 2, "seed": 3, "unscored": "exclude"}
    assert _run("baselines", given, tmp_path) == {**EXPECTED["baselines"], **given}


@pytest.mark.parametrize("task", ["green", "vert"])
def test_a_judged_run_logs_its_own_and_the_shared_parameters(task: str, tmp_path: Path) -> None:
    grader = get_model("mockllm/model", custom_outputs=[mock_output("not an assessment")] * 4)
    given = {"limit": 1, "detail": "brief", "judge_retries": 1, "constrain": "off"}
    assert _run(task, given, tmp_path, grader=grader) == {**EXPECTED[task], **given}
