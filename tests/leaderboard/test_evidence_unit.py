"""`read_run` on Inspect logs built in memory with inspect_ai's log types: every field the leaderboard reads."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalMetric,
    EvalResults,
    EvalSample,
    EvalScore,
    EvalSpec,
    write_eval_log,
)
from inspect_ai.model import GenerateConfig, ModelConfig, ModelOutput
from inspect_ai.scorer import Score

from radiology_tasks.core.tables import file_sha256
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, ids_sha256, read_run

JUDGE = "openai-api/stubsvc/stub-judge"


def _event(
    role: str | None, text: str | None, *, temperature: float | None = 0.0, seed: int | None = None
) -> ModelEvent:
    return ModelEvent(
        model=JUDGE if role else "none/none",
        role=role,
        input=[],
        tools=[],
        tool_choice="none",
        config=GenerateConfig(temperature=temperature, seed=seed),
        output=ModelOutput.from_content(model="m", content=text),
    )


def _log(path: Path, *, samples: list[EvalSample] | None = None, roles: bool = True, results: bool = True) -> Path:
    samples = (
        samples
        if samples is not None
        else [
            EvalSample(
                id=1,
                epoch=1,
                input="x",
                target=["Reference one.", "Line two."],
                scores={
                    "report_judge": Score(
                        value={"vert": 0.5, "green": float("nan"), "flag": True, "n": 3},
                        answer="candidate one",
                        metadata={"judge_answer": "A"},
                    )
                },
                events=[
                    _event("grader", "A"),
                    _event(None, "the generator"),
                    _event("other", "B"),
                    _event("grader", "C", temperature=0.7, seed=3),
                ],
            ),
            EvalSample(
                id="s2",
                epoch=2,
                input="x",
                target="Reference two.",
                scores={"report_judge": Score(value=0.25)},
                error=EvalError(message="boom", traceback="tb", traceback_ansi="tb"),
            ),
            EvalSample(id="s3", epoch=1, input="x", target=[], scores=None),
        ]
    )
    log = EvalLog(
        status="success",
        eval=EvalSpec(
            created="2025-01-01T00:00:00+00:00",
            task="radiology_tasks/vert",
            task_version=2,
            task_args={"prompt": "vert"},
            dataset=EvalDataset(name="pairs"),
            model="openai/gen",
            model_roles={"grader": ModelConfig(model=JUDGE)} if roles else None,
            config=EvalConfig(),
            metadata={"data": {"fingerprint": {"data_sha256": "d"}}},
        ),
        results=EvalResults(
            total_samples=3,
            completed_samples=3,
            scores=[
                EvalScore(
                    name="report_judge",
                    scorer="report_judge",
                    metrics={"vert_mean": EvalMetric(name="vert_mean", value=0.5)},
                ),
                EvalScore(
                    name="other", scorer="other", metrics={"other_mean": EvalMetric(name="other_mean", value=0.1)}
                ),
            ],
        )
        if results
        else None,
        samples=samples,
    )
    write_eval_log(log, str(path))
    return path


def test_every_field_of_the_run_and_its_samples(tmp_path):
    path = _log(tmp_path / "run.eval")
    run = read_run(path)
    assert (run.path, run.sha256, run.task, run.task_version) == (path, file_sha256(path), "radiology_tasks/vert", "2")
    assert (run.task_args, run.status, run.model, run.judge) == ({"prompt": "vert"}, "success", "openai/gen", JUDGE)
    assert run.metadata == {"data": {"fingerprint": {"data_sha256": "d"}}} and run.scorer == "report_judge"
    assert run.results == {"vert_mean": 0.5, "other_mean": 0.1}
    first, second, third = sorted(run.samples, key=lambda s: s.id)
    assert (first.id, first.epoch, first.error, first.candidate) == ("1", 1, None, "candidate one")
    assert first.values == {"vert": 0.5, "green": None, "flag": None, "n": 3.0}
    assert first.metadata == {"judge_answer": "A"} and first.has_events
    assert first.target == "Reference one.\nLine two."
    assert first.judge_calls == [JudgeCall(JUDGE, 0.0, None, "A"), JudgeCall(JUDGE, 0.7, 3, "C")]
    assert (second.id, second.epoch, second.error, second.values) == ("s2", 2, "boom", {"value": 0.25})
    assert (second.metadata, second.candidate, second.judge_calls, second.has_events) == ({}, None, [], False)
    assert second.target == "Reference two."
    assert (third.values, third.metadata, third.candidate, third.target) == ({}, {}, None, None)


def test_a_json_log_reads_the_same(tmp_path):
    eval_run, json_run = read_run(_log(tmp_path / "run.eval")), read_run(_log(tmp_path / "run.json"))
    assert json_run.samples == eval_run.samples and json_run.results == eval_run.results


def test_a_run_without_a_judge_role_or_results(tmp_path):
    run = read_run(_log(tmp_path / "run.eval", roles=False, results=False))
    assert run.judge is None and run.scorer is None and run.results == {}
    assert all(s.values == {} for s in run.samples)


def test_a_file_that_is_not_a_log_is_refused_by_name(tmp_path):
    from inspect_ai.log import read_eval_log

    broken = tmp_path / "broken.eval"
    broken.write_text("not a log")
    with pytest.raises(Exception) as inspect_error:
        read_eval_log(str(broken))
    cause = f"{type(inspect_error.value).__name__}: {inspect_error.value}"
    with pytest.raises(ValueError) as error:
        read_run(broken)
    assert str(error.value) == f"{broken}: not a readable Inspect log ({cause})"


def _bare(**changes) -> RunEvidence:
    fields = dict(
        path=Path("r.eval"),
        sha256="",
        task="radiology_tasks/vert",
        task_version="1",
        task_args={},
        status="success",
        model="m",
        judge=None,
        metadata={},
        scorer=None,
        results={},
    )
    return RunEvidence(**{**fields, **changes})


def test_the_runs_derived_names():
    assert _bare().short_task == "vert" and _bare(task="vert").short_task == "vert"
    assert _bare().fingerprint == {} and _bare(metadata={"data": None}).fingerprint == {}
    assert _bare(metadata={"data": {"fingerprint": {"layout": "rexval"}}}).fingerprint == {"layout": "rexval"}
    assert _bare().data_name == "demo" and _bare(task_args={"data": "x.jsonl"}).data_name == "x.jsonl"
    assert _bare(task="radiology_tasks/ran_score").data_name == "ran-score-demo"
    assert _bare(task="radiology_tasks/unknown").data_name == "demo"
    flat = {"data": {"fingerprint": {"layout": "flat"}}}
    assert _bare(metadata=flat, task_args={"data": "f.jsonl"}).dataset_name == "f.jsonl"
    layout = {"data": {"fingerprint": {"layout": "rexval"}}}
    assert _bare(metadata=layout, task_args={"data": "/dl/rexval"}).dataset_name == "rexval"
    assert _bare().data_track is None and _bare(metadata={"data": {"track": 1}}).data_track == "1"
    assert _bare().templates is None and _bare(metadata={"templates": {"a": "b"}}).templates == {"a": "b"}


def test_sample_id_hashes_ignore_order():
    assert ids_sha256(["b", "a"]) == ids_sha256(["a", "b"]) != ids_sha256(["a"])
    import hashlib

    assert ids_sha256([2, 1]) == hashlib.sha256(b"1\n2").hexdigest()
