"""Runs built in memory, as `read_run` would return them, for fast tests of the leaderboard logic."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

from radiology_tasks.core.task_data import DataOptions, data_fingerprint
from radiology_tasks.green_vert.tasks import TASK_VERSION
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, SampleEvidence
from radiology_tasks.templates import template_hashes
from tests.judge_answers import assessment

ANSWER = assessment({"b": 1}, 3, 0.7)
VALUES = {"vert": 0.7, "green": 0.75, "green_ec": 1.0, "green_f1": 6 / 7}
JUDGE = "openai-api/stubsvc/stub-judge"


def sample(sample_id: str, *, answer: str | None = ANSWER, values: dict | None = None, **metadata) -> SampleEvidence:
    """A judged sample whose values are those `answer` gives (unless `values` says otherwise)."""
    calls = [JudgeCall(JUDGE, 0.0, None, answer)] if answer is not None else []
    return SampleEvidence(
        id=sample_id,
        epoch=1,
        error=None,
        values=dict(VALUES if values is None else values),
        metadata={"judge_answer": answer, "prompt": "vert", "unscored": {}, "filled_in": [], **metadata},
        candidate=f"candidate {sample_id}",
        judge_calls=calls,
        has_events=True,
    )


def write_pairs(tmp_path: Path) -> Path:
    """Four report pairs s0-s3 as the tasks read them."""
    path = tmp_path / "pairs.jsonl"
    rows = [{"id": f"s{i}", "reference": f"Reference {i}.", "candidate": f"candidate s{i}"} for i in range(4)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def memory_run(data_file: Path, samples: list[SampleEvidence] | None = None, **changes) -> RunEvidence:
    """A clean vert run over `data_file` with a greedy judge; `changes` replace any of its fields."""
    samples = samples if samples is not None else [sample(f"s{i}") for i in range(4)]
    present = [s.values["vert"] for s in samples if s.values.get("vert") is not None]
    run = RunEvidence(
        path=Path("run.eval"),
        sha256="0" * 64,
        task="radiology_tasks/vert",
        task_version=TASK_VERSION,
        task_args={"prompt": "vert", "data": str(data_file), "unscored": "worst", "detail": "full"},
        status="success",
        model="none/none",
        judge=JUDGE,
        metadata={
            "data": {"fingerprint": data_fingerprint(DataOptions(str(data_file)))},
            "templates": template_hashes("green_vert"),
        },
        scorer="report_judge",
        results={"vert_mean": sum(present) / len(present)} if present else {},
        samples=samples,
    )
    return replace(run, **changes)


def scored_run(data_file: Path, scores: list[float], **changes) -> RunEvidence:
    """A clean run whose judge gave sample s<i> the vert score scores[i] (one (b) error, three matches)."""
    samples = [
        sample(f"s{i}", answer=assessment({"b": 1}, 3, score), values={**VALUES, "vert": score})
        for i, score in enumerate(scores)
    ]
    return memory_run(data_file, samples, **changes)
