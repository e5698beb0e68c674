"""A generator is asked once per study and judged on one report per study, however many pairs the data has.

The bundled demo holds 41 report pairs over 14 studies (two or three candidates per reference). The generator
is a scripted mock that records every prompt it is sent, so each generator call is counted.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ModelOutput, get_model

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench.rescoring import sample_ids as ct_finebench_sample_ids
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.green_vert.tasks import vert
from radiology_tasks.leaderboard import checks
from radiology_tasks.leaderboard.evidence import read_run
from radiology_tasks.report_generation.tasks import report_generation
from tests.judge_answers import assessment, mock_output
from tests.report_values import assert_summary_only

PAIRS = load_pairs("demo").pairs
# The demo's studies are its distinct references; each is named by its first pair, in data order.
_FIRST: dict[str, str] = {}
for _pair in PAIRS:
    _FIRST.setdefault(_pair.reference, _pair.id)
STUDY_IDS = list(_FIRST.values())


class ScriptedGenerator:
    """A generator that writes a short report per call and keeps the prompt of each call."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    def __call__(self, messages: list[Any], *_: Any) -> ModelOutput:
        self.prompts.append(messages[-1].text)
        return mock_output(f"Report {len(self.prompts)}. No acute abnormality.")


def _grader(n: int):
    return get_model("mockllm/model", custom_outputs=[mock_output(assessment({}, 2, 0.9)) for _ in range(n)])


def _ids(log: EvalLog) -> list[str]:
    return sorted(str(sample.id) for sample in log.samples or [])


@pytest.fixture(scope="module")
def generation(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, ScriptedGenerator]:
    generator = ScriptedGenerator()
    model = get_model("mockllm/model", custom_outputs=generator)
    directory = tmp_path_factory.mktemp("generation")
    (log,) = inspect_eval(report_generation(), model=model, log_dir=str(directory), display="none")
    assert log.status == "success", log.error
    return read_eval_log(log.location), generator


def test_the_demo_has_several_pairs_per_study() -> None:
    assert (len(PAIRS), len(STUDY_IDS)) == (41, 14)


def test_report_generation_asks_the_generator_once_per_study(generation) -> None:
    log, generator = generation
    assert len(generator.prompts) == 14
    assert len(set(generator.prompts)) == 14, "one call per study, never twice for one"
    assert _ids(log) == sorted(STUDY_IDS)
    studies = log.eval.metadata["data"]["studies"]
    assert (studies["pairs"], studies["studies"]) == (41, 14)
    assert studies["fields_not_shared"] == ["error_note"]
    assert log.eval.metadata["data"]["rows_used"] == 41
    by_id = {str(s.id): s.metadata for s in log.samples or []}
    assert by_id["ctc-01-para"]["metadata"]["study_pairs"] == ["ctc-01-para", "ctc-01-err", "ctc-01-multi"]
    # A study carries no candidate's expert scores: they were about reports the generator did not write.
    assert all(metadata["expert"] is None and metadata["candidate"] is None for metadata in by_id.values())
    assert_summary_only(log, {"characters_mean", "output_tokens_mean"})


def test_judging_the_log_gives_one_sample_per_study_and_no_expert_agreement(generation, tmp_path: Path) -> None:
    log, generator = generation
    calls = len(generator.prompts)
    (judged,) = inspect_eval(
        vert(candidates=log.location),
        model="none",
        model_roles={"grader": _grader(14)},
        log_dir=str(tmp_path),
        display="none",
    )
    assert judged.status == "success", judged.error
    assert len(generator.prompts) == calls, "the judged run replays the log"
    assert _ids(judged) == _ids(log)
    data = judged.eval.metadata["data"]
    assert (data["studies"]["pairs"], data["studies"]["studies"], data["samples"]) == (41, 14, 14)
    assert data["generation"]["studies_not_generated"] == 0
    metrics = {name for score in judged.results.scores for name in score.metrics}
    assert "vert_mean" in metrics and not any("kendall" in name for name in metrics)

    # The leaderboard expects the same study-level sample set, and still the pairs of a log made before.
    run = read_run(judged.location)
    assert checks.dataset_ids(run) == STUDY_IDS
    before = replace(run, metadata={**run.metadata, "data": {k: v for k, v in data.items() if k != "studies"}})
    assert checks.dataset_ids(before) == [pair.id for pair in PAIRS]


def test_generate_true_on_vert_asks_once_per_study(tmp_path: Path) -> None:
    generator = ScriptedGenerator()
    (log,) = inspect_eval(
        vert(generate=True),
        model=get_model("mockllm/model", custom_outputs=generator),
        model_roles={"grader": _grader(14)},
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    assert len(generator.prompts) == 14 and len(set(generator.prompts)) == 14
    assert _ids(log) == sorted(STUDY_IDS)
    assert log.eval.metadata["data"]["studies"]["studies"] == 14
    metrics = {name for score in log.results.scores for name in score.metrics}
    assert not any("kendall" in name for name in metrics), "the candidates are the generator's, not the experts'"
    assert checks.dataset_ids(read_run(log.location)) == STUDY_IDS


def test_ct_finebench_expects_the_studies_with_questions_of_a_per_study_run(generation) -> None:
    log, _ = generation
    run = replace(read_run(log.location), task="radiology_tasks/ct_finebench")
    with_questions = {p.id for p in PAIRS if p.qa}
    assert ct_finebench_sample_ids(run) == [i for i in STUDY_IDS if i in with_questions]
    data = {k: v for k, v in run.metadata["data"].items() if k != "studies"}
    assert ct_finebench_sample_ids(replace(run, metadata={**run.metadata, "data": data})) == [
        p.id for p in PAIRS if p.qa
    ]


def test_ct_finebench_generating_judges_each_ct_study_once_and_counts_rows_left_out() -> None:
    task = ct_finebench(generate=True)
    with_questions = {p.id for p in PAIRS if p.qa}
    assert sorted(str(s.id) for s in task.dataset) == sorted(i for i in STUDY_IDS if i in with_questions)
    data = task.metadata["data"]
    # Still data rows: the 20 X-ray and MRI pairs without questions, though they are 7 studies.
    assert (data["rows_without_questions"], data["samples"]) == (20, 7)
    assert task.metadata["questions"] == 42  # 7 CT studies, 6 questions each: once per study
