"""Generate once, judge many: one `report_generation` run, then every metric over its log, then one submission.

The generator and the judge are two scripted OpenAI-compatible servers on 127.0.0.1, so every request either
model receives is counted.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai import eval_set
from inspect_ai.log import EvalLog, read_eval_log

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.core.catalog import bundled_dataset
from radiology_tasks.core.family import family_of
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.rescore import family_rescoring
from radiology_tasks.ran_score.tasks import ran_score
from radiology_tasks.report_generation.tasks import report_generation
from tests.ct_finebench.stub_judge import answer, asked_ids, is_extraction, items_in
from tests.judge_answers import assessment
from tests.leaderboard.runs import edited
from tests.openai_stub import openai_stub
from tests.ran_score.helpers import REPORT, batch_answer

GENERATOR = "openai-api/stubgen/stub-generator"
JUDGE = "openai-api/stubsvc/stub-judge"
# Two CT studies with questions, one chest X-ray and one brain MRI without: ct_finebench judges the CT two only.
ROWS = ["ctc-01-para", "cta-01-err", "cxr-01-para", "mrb-01-para"]
WITH_QUESTIONS = {"ctc-01-para", "cta-01-err"}


def _four_rows(directory: Path) -> Path:
    rows = [json.loads(line) for line in bundled_dataset("demo").read_text().splitlines() if line.strip()]
    chosen = [row for row in rows if row["id"] in ROWS]
    path = directory / "four.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in chosen))
    return path


def _generator(body: dict[str, Any]) -> str:
    content = body["messages"][-1]["content"]
    text = content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)
    indication = re.search(r"Clinical indication: (.*)", text)
    return f"Report for: {indication[1] if indication else 'no indication'} No acute abnormality."


def _judge(body: dict[str, Any]) -> str:
    prompt = body["messages"][-1]["content"]
    if "Clinically Significant Errors" in prompt:
        return assessment({"b": 1}, 3, 0.75)
    if is_extraction(body):
        return answer(dict.fromkeys(asked_ids(body)))
    if items_in(body):
        return answer(dict.fromkeys(items_in(body), 1))
    assert REPORT.search(prompt), prompt
    return batch_answer({})


def _judged_tasks(data: str, log: str) -> list[Any]:
    common = {"data": data, "candidates": log}
    return [
        green(**common),
        vert(**common),
        ct_finebench(**common),
        ran_score(**common, label_cache="off"),
        baselines(**common),
    ]


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch):
    with openai_stub(_generator, model="stub-generator") as generator, openai_stub(_judge) as judge:
        for service, server in (("STUBGEN", generator), ("STUBSVC", judge)):
            monkeypatch.setenv(f"{service}_BASE_URL", server.base_url)
            monkeypatch.setenv(f"{service}_API_KEY", "not-a-real-key")
        yield generator, judge


def _logs_by_task(logs: list[EvalLog]) -> dict[str, EvalLog]:
    return {log.eval.task.removeprefix("radiology_tasks/"): read_eval_log(log.location) for log in logs}


def test_generate_once_then_judge_every_metric_and_submit(servers, tmp_path: Path) -> None:
    generator, judge = servers
    data = str(_four_rows(tmp_path))
    (generated,) = inspect_eval(
        report_generation(data=data), model=GENERATOR, log_dir=str(tmp_path / "generation"), display="none"
    )
    assert generated.status == "success", generated.error
    assert len(generator.requests) == len(ROWS)
    generation_log = Path(generated.location)

    ok, logs = eval_set(
        _judged_tasks(data, str(generation_log)),
        log_dir=str(tmp_path / "judged"),
        model="none",
        model_roles={"grader": JUDGE},
        display="none",
    )
    assert ok, [log.error for log in logs]
    # Exactly one generator call per report over the whole recipe: the judged runs replay the log.
    assert len(generator.requests) == len(ROWS)
    judge_calls = len(judge.requests)
    assert judge_calls > 0

    by_task = _logs_by_task(logs)
    assert set(by_task) == {"green", "vert", "ct_finebench", "ran_score", "baselines"}
    reports = {str(s.id): s.output.completion for s in read_eval_log(str(generation_log)).samples or []}
    for task, log in by_task.items():
        recorded = log.eval.metadata["data"]["generation"]
        assert recorded["log_sha256"] == file_sha256(generation_log), task
        assert recorded["model"] == GENERATOR, task
        assert recorded["request_configs"] == [{"max_tokens": 1536}], task
        assert set(recorded["templates"]) == {"generate_report.jinja"}, task
        expected_ids = WITH_QUESTIONS if task == "ct_finebench" else set(ROWS)
        assert {str(s.id) for s in log.samples or []} == expected_ids, task
        for sample in log.samples or []:
            label, candidate = str(sample.input).split("\n", 1)
            assert label.startswith(f"Candidate report by {GENERATOR} "), task
            assert candidate == reports[str(sample.id)], task

    # Run again over the same log directory: every task is already complete, so no model is asked anything.
    ok, _ = eval_set(
        _judged_tasks(data, str(generation_log)),
        log_dir=str(tmp_path / "judged"),
        model="none",
        model_roles={"grader": JUDGE},
        display="none",
    )
    assert ok and len(judge.requests) == judge_calls and len(generator.requests) == len(ROWS)

    submittable = [task for task in by_task if (family := family_of(task)) and family_rescoring(family, task)]
    assert sorted(submittable) == ["baselines", "ct_finebench", "green", "ran_score", "vert"]
    paths = [Path(by_task[task].location) for task in submittable]
    manifest = json.loads(write_bundle(paths, tmp_path / "bundle", SystemCard()).read_text())
    assert manifest["system"]["name"] == GENERATOR
    assert len(manifest["runs"]) == len(submittable)

    # A run over other generated reports cannot join the same system, at submission or on the board.
    other = edited(
        paths[0],
        lambda log: log.eval.metadata["data"]["generation"].update(log_sha256="0" * 64),
        "other_generation.eval",
    )
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([paths[1], other], tmp_path / "mixed", SystemCard())
    assert [line.split(":")[0] for line in refused.value.lines] == [paths[1].name, other.name]
    assert all("one system's runs must judge the reports of one generation log" in line for line in refused.value.lines)

    bundle = tmp_path / "bundle"
    (bundle / "logs" / other.name).write_bytes(other.read_bytes())
    listed = json.loads((bundle / "manifest.json").read_text())
    listed["runs"].append({"log": f"logs/{other.name}", "sha256": file_sha256(other)})
    (bundle / "manifest.json").write_text(json.dumps(listed))
    board = build_leaderboard([bundle], tmp_path / "board", Settings(resamples=20))
    refused_logs = {Path(entry["log"]).name for entry in board["not_ranked"]}
    assert refused_logs == {*(path.name for path in paths), other.name}
