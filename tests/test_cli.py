"""The `radiology-tasks` command line on real logs and the demo data."""

from __future__ import annotations

import json

from inspect_ai import eval as inspect_eval

from radiology_tasks.cli import main
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.green_vert.tasks import vert
from tests.green_vert.test_scorer import candidate_in
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub


def _judge_logs(monkeypatch, tmp_path) -> list[str]:
    demo = {p.candidate: p for p in load_pairs(None).pairs}
    judges = {
        "strict": lambda p: 1.0 - 0.25 * p.expert.significant.total,
        "lenient": lambda p: 1.0 - 0.1 * p.expert.significant.total - 0.1 * (len(p.id) % 2),
    }
    paths = []
    for name, rule in judges.items():
        with openai_stub(
            lambda b, rule=rule: assessment({}, 2, max(0.0, round(rule(demo[candidate_in(b)]), 2)))
        ) as srv:
            monkeypatch.setenv("STUBSVC_BASE_URL", srv.base_url)
            monkeypatch.setenv("STUBSVC_API_KEY", "x")
            (log,) = inspect_eval(
                vert(),
                model="none",
                model_roles={"grader": f"openai-api/stubsvc/{name}"},
                log_dir=str(tmp_path / name),
                display="none",
            )
        paths.append(log.location)
    return paths


def test_ensemble_command_prints_tau_of_each_judge_and_ensemble(monkeypatch, tmp_path, capsys):
    logs = _judge_logs(monkeypatch, tmp_path)
    assert main(["ensemble", *logs, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "Kendall's tau with expert scores (score: vert)" in out
    for label in ("openai-api/stubsvc/strict", "openai-api/stubsvc/lenient", "average ensemble", "regression ensemble"):
        assert label in out


def test_ensemble_command_reports_bad_input(tmp_path, capsys):
    assert main(["ensemble", str(tmp_path / "missing.eval")]) == 2
    assert capsys.readouterr().err.startswith("radiology-tasks ensemble: ")


def test_export_sft_on_the_demo_set(tmp_path, capsys):
    assert main(["export-sft", "--data", "demo", "--out", str(tmp_path), "--val-fraction", "0.1"]) == 0
    train = (tmp_path / "train.jsonl").read_text().splitlines()
    validation = (tmp_path / "validation.jsonl").read_text().splitlines()
    assert len(train) + len(validation) == len(load_pairs(None).pairs)
    assert len(validation) == 4
    first = json.loads(train[0])
    assert [m["role"] for m in first["messages"]] == ["user", "assistant"]
    assert len(first["messages"][1]["content"]) == 3  # one decimal: "0.7"
    assert "wrote" in capsys.readouterr().out


def test_inspect_eval_reports_a_bad_row_in_one_line(pairs_file):
    import subprocess
    import sys

    path = pairs_file([{"id": "a", "reference": "Normal.", "candidate": "Normal.", "expert_score": "bad"}])
    result = subprocess.run(
        [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/vert", "--model", "none", "-T", f"data={path}"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"{path}, row 1, field 'expert_score': expected a number, got 'bad'" in " ".join(output.split())
    assert "Traceback" not in output
