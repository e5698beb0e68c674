"""Registration with Inspect: stable names, a light registry import, and `radiology-tasks list`."""

from __future__ import annotations

import subprocess
import sys

from inspect_ai.util import registry_info

from radiology_tasks.cli import format_task_list, main, registered_tasks

HEAVY = (
    "scipy",
    "numpy",
    "pandas",
    "datasets",
    "llama_cpp",
    "torch",
    "sacrebleu",
    "rouge_score",
    "matplotlib",
    "radeval",
)


def test_registry_import_stays_light():
    code = (
        "import sys, inspect_ai; before = set(sys.modules); import radiology_tasks._registry; "
        f"print(sorted({{m.split('.')[0] for m in set(sys.modules) - before}} & set({HEAVY!r})))"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"


def test_component_names_carry_the_package_prefix():
    from radiology_tasks.core.metrics import expert_agreement, parse_failure_rate
    from radiology_tasks.core.solvers import generate_report, replay_candidate
    from radiology_tasks.report_judge.scorer import report_judge

    names = [registry_info(f()).name for f in (report_judge, replay_candidate, generate_report, parse_failure_rate)]
    names.append(registry_info(expert_agreement("vert")).name)
    assert names == [
        "radiology_tasks/report_judge",
        "radiology_tasks/replay_candidate",
        "radiology_tasks/generate_report",
        "radiology_tasks/parse_failure_rate",
        "radiology_tasks/expert_agreement",
    ]


def test_list_shows_every_task_with_parameters_and_datasets(capsys):
    names = [name for name, _ in registered_tasks()]
    assert {"radiology_tasks/green", "radiology_tasks/vert", "radiology_tasks/ran_score"} <= set(names)
    text = format_task_list()
    assert "radiology_tasks/vert\n      VERT: the judge counts errors" in text
    assert "-T prompt=vert" in text and "-T on_bad_rows=error" in text
    for dataset in ("demo", "ran-score-demo", "rate-eval", "radeval-expert", "ct-finebench"):
        assert f"\n  {dataset}" in text
    assert main(["list"]) == 0
    assert capsys.readouterr().out.strip() == text.strip()
