"""Generation logs built in memory with inspect_ai's log types: every refusal line, the replayed selection, the
join onto the judged studies and what the judged run records (see `test_generation_log` for whole runs)."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalConfig, EvalDataset, EvalError, EvalLog, EvalSample, EvalSpec, write_eval_log
from inspect_ai.model import GenerateConfig, ModelOutput

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.core.generation_log import (
    PAIR_KEY,
    generation_tasks,
    generator_of,
    is_inspect_log,
    join_generated,
    read_generation_log,
)
from radiology_tasks.core.records import ExpertAnnotation, ReportPair
from radiology_tasks.core.tables import file_sha256
from tests.toy_families import ToyFamily

IDS = ["st1", "st2", "st3"]


def _event(role: str | None, max_tokens: int) -> ModelEvent:
    return ModelEvent(
        model="openai/gen",
        role=role,
        input=[],
        tools=[],
        tool_choice="none",
        config=GenerateConfig(max_tokens=max_tokens),
        output=ModelOutput.from_content(model="openai/gen", content="x"),
    )


def _sample(sample_id: str, text: str, *, epoch: int = 1, error: bool = False, **metadata: Any) -> EvalSample:
    return EvalSample(
        id=sample_id,
        epoch=epoch,
        input="x",
        target="",
        output=ModelOutput.from_content(model="openai/gen", content=text),
        metadata=metadata,
        error=EvalError(message="boom", traceback="", traceback_ansi="") if error else None,
        events=[_event(None, 500), _event("grader", 9), _event(None, 500), _event(None, 800)],
    )


def _write(
    path: Path,
    samples: list[EvalSample] | None = None,
    *,
    task: str = "radiology_tasks/report_generation",
    status: str = "success",
    args: dict[str, Any] | None = None,
    data: dict[str, Any] | None = None,
) -> Path:
    samples = (
        samples
        if samples is not None
        else [
            _sample("st1", "Report one.", generation={"stop_reason": "stop"}),
            _sample("st2", "  ", generation={"stop_reason": "max_tokens"}),
            _sample("st3", "Report three."),
        ]
    )
    summary = {"source": "pairs.jsonl", "fingerprint": {"data_sha256": "abc"}, "studies": {"pairs": 4}}
    log = EvalLog(
        status=status,  # type: ignore[arg-type]
        eval=EvalSpec(
            created="2025-01-01T00:00:00+00:00",
            task=task,
            task_version=3,
            task_args=args if args is not None else {"limit": None, "seed": None},
            dataset=EvalDataset(name="pairs"),
            model="openai/gen",
            model_generate_config=GenerateConfig(temperature=0.0),
            config=EvalConfig(),
            metadata={"data": summary if data is None else data, "templates": {"report_generation/x.jinja": "h"}},
        ),
        samples=samples,
    )
    write_eval_log(log, str(path))
    return path


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    return _write(tmp_path / "gen.eval")


def test_the_log_is_read_with_the_generator_and_its_settings(log_file):
    log = read_generation_log(log_file)
    assert (log.path, log.sha256, log.model, log.task_version) == (log_file, file_sha256(log_file), "openai/gen", "3")
    assert log.generate_config == {"temperature": 0.0}
    assert log.request_configs == [{"max_tokens": 500}, {"max_tokens": 800}], "distinct, judge roles left out"
    assert log.templates == {"report_generation/x.jinja": "h"}
    assert (log.data_name, log.data_sha256, log.per_study, log.limit, log.seed) == (
        "pairs.jsonl",
        "abc",
        True,
        None,
        None,
    )
    assert {k: (r.text, r.generation) for k, r in log.reports.items()} == {
        "st1": ("Report one.", {"stop_reason": "stop"}),
        "st2": ("  ", {"stop_reason": "max_tokens"}),
        "st3": ("Report three.", None),
    }
    assert log.record() == {
        "log": str(log_file),
        "log_sha256": log.sha256,
        "data": "pairs.jsonl",
        "task_version": "3",
        "model": "openai/gen",
        "generate_config": {"temperature": 0.0},
        "request_configs": [{"max_tokens": 500}, {"max_tokens": 800}],
        "templates": {"report_generation/x.jinja": "h"},
        "limit": None,
        "seed": None,
    }


def test_a_log_without_data_summary_or_templates(tmp_path):
    log = read_generation_log(_write(tmp_path / "bare.eval", data={}))
    assert (log.data_name, log.data_sha256, log.per_study) == (None, None, False)


def test_a_log_of_another_task_is_refused(tmp_path):
    path = _write(tmp_path / "vert.eval", task="radiology_tasks/vert")
    with pytest.raises(InputError) as error:
        read_generation_log(path)
    (generating,) = generation_tasks()
    assert str(error.value) == (
        f"-T candidates={path}: a log of task vert, not of {generating}; generate the reports with it"
    )
    assert read_generation_log(_write(tmp_path / "short.eval", task=generating)).model == "openai/gen"


def test_the_generation_tasks_are_those_the_families_declare(tmp_path):
    toy = ToyFamily("toy_writer", ("toy_write",))
    toy.generation_tasks = ("toy_write",)
    add_family(toy)
    try:
        assert generation_tasks()[-1] == "toy_write"
        assert read_generation_log(_write(tmp_path / "toy.eval", task="radiology_tasks/toy_write")).model
        with pytest.raises(InputError, match=r"a log of task vert, not of \w+ or toy_write; generate"):
            read_generation_log(_write(tmp_path / "vert.eval", task="radiology_tasks/vert"))
    finally:
        remove_family("toy_writer")


def test_an_unfinished_run_is_refused(tmp_path):
    path = _write(tmp_path / "started.eval", status="started")
    with pytest.raises(InputError) as error:
        read_generation_log(path)
    assert str(error.value) == (
        f"-T candidates={path}: the generation run's status is started, not success; finish it first"
    )


def test_errored_samples_are_named_sorted_and_counted_past_ten(tmp_path):
    samples = [_sample(f"s{i:02d}", "r", error=i % 2 == 0) for i in range(24)]
    path = _write(tmp_path / "errors.eval", samples)
    with pytest.raises(InputError) as error:
        read_generation_log(path)
    shown = ", ".join(f"s{i:02d}" for i in range(0, 20, 2))
    assert str(error.value) == (
        f"-T candidates={path}: samples {shown} and 2 more errored in the generation run; retry them first"
    )


def test_several_epochs_are_refused(tmp_path):
    path = _write(tmp_path / "epochs.eval", [_sample("a", "r"), _sample("a", "r", epoch=2)])
    with pytest.raises(InputError) as error:
        read_generation_log(path)
    assert str(error.value) == f"-T candidates={path}: the generation run has 2 epochs; give a log of one epoch"


def test_a_file_that_is_not_a_log_is_refused(tmp_path):
    path = tmp_path / "broken.eval"
    path.write_text("no")
    with pytest.raises(InputError, match=f"^-T candidates={path}: not a readable Inspect log \\(\\w+: "):
        read_generation_log(path)


def test_which_files_are_inspect_logs(tmp_path, log_file):
    assert is_inspect_log(tmp_path / "any.EVAL")
    json_log = _write(tmp_path / "gen.json")
    assert is_inspect_log(json_log)
    other = tmp_path / "c.json"
    other.write_text(json.dumps([{"id": "a", "candidate": "x"}]))
    assert not is_inspect_log(other)
    assert not is_inspect_log(tmp_path / "missing.json")
    assert not is_inspect_log(tmp_path / "c.jsonl")


def _studies() -> list[ReportPair]:
    expert = ExpertAnnotation(score=3, scale_min=0, scale_max=5)
    return [
        ReportPair(id=i, reference=f"Reference {i}.", candidate="data's own", expert=expert, metadata={"k": i})
        for i in IDS
    ]


def test_the_reports_are_joined_onto_the_studies(log_file):
    log = read_generation_log(log_file)
    joined = join_generated(_studies(), log, "pairs.jsonl", "abc")
    assert [p.id for p in joined] == IDS
    assert [p.candidate for p in joined] == ["Report one.", None, "Report three."], "a blank report is no report"
    assert all(p.expert is None for p in joined)
    assert joined[1].metadata == {
        "k": "st2",
        PAIR_KEY: {"model": "openai/gen", "log_sha256": log.sha256, "generation": {"stop_reason": "max_tokens"}},
    }
    assert generator_of(joined[0].metadata) == "openai/gen"
    assert generator_of({}) is None and generator_of({PAIR_KEY: "x"}) is None
    assert generator_of({PAIR_KEY: {"model": ""}}) is None


def test_other_data_is_refused_naming_both(log_file):
    log = read_generation_log(log_file)
    with pytest.raises(InputError) as error:
        join_generated(_studies(), log, "other.jsonl", "def")
    assert str(error.value) == (
        f"-T candidates={log_file}: the reports were generated from data pairs.jsonl (SHA-256 abc), not from the "
        "judged data other.jsonl (SHA-256 def); judge the data they were generated from"
    )


def test_ids_other_than_the_selected_ones_are_named(log_file):
    log = read_generation_log(log_file)
    studies = [*_studies()[:2], ReportPair(id="st9", reference="R.")]
    with pytest.raises(InputError) as error:
        join_generated(studies, log, "pairs.jsonl", "abc")
    assert str(error.value) == (
        f"-T candidates={log_file}: its sample ids are not those the generation run selected from the judged data "
        "(missing st9; extra st3)"
    )
    with pytest.raises(InputError, match=r"\(missing st9\)$"):
        join_generated([*_studies(), ReportPair(id="st9", reference="R.")], log, "pairs.jsonl", "abc")
    with pytest.raises(InputError, match=r"\(extra st3\)$"):
        join_generated(_studies()[:2], log, "pairs.jsonl", "abc")


def test_a_log_of_one_report_per_pair_is_told_to_generate_again(tmp_path):
    path = _write(tmp_path / "old.eval", data={"source": "pairs.jsonl", "fingerprint": {"data_sha256": "abc"}})
    log = read_generation_log(path)
    with pytest.raises(InputError) as error:
        join_generated(_studies()[:2], log, "pairs.jsonl", "abc")
    assert str(error.value).endswith(
        "(extra st3); it holds one report per pair (report_generation 3): generate again, one report per study"
    )


def test_the_selection_replays_the_generation_runs_seed_and_limit(tmp_path):
    ids = [f"p{i}" for i in range(10)]
    path = _write(tmp_path / "sel.eval", [_sample(i, "r") for i in ids[:4]], args={"limit": 4, "seed": None})
    assert read_generation_log(path).selected_ids(ids) == ids[:4]
    shuffled = list(ids)
    random.Random(7).shuffle(shuffled)
    path = _write(tmp_path / "seed.eval", [_sample(i, "r") for i in shuffled[:3]], args={"limit": 3, "seed": 7})
    log = read_generation_log(path)
    assert (log.limit, log.seed) == (3, 7)
    assert log.selected_ids(ids) == shuffled[:3]
    assert [
        p.id for p in join_generated([ReportPair(id=i, reference="R") for i in ids], log, "pairs.jsonl", "abc")
    ] == [i for i in ids if i in shuffled[:3]], "joined in data order"


def test_exactly_ten_errored_samples_are_all_named(tmp_path):
    path = _write(tmp_path / "ten.eval", [_sample(f"s{i}", "r", error=True) for i in range(10)])
    with pytest.raises(InputError) as error:
        read_generation_log(path)
    shown = ", ".join(f"s{i}" for i in range(10))
    assert str(error.value) == f"-T candidates={path}: samples {shown} errored in the generation run; retry them first"


def test_an_unreadable_log_is_named_with_inspects_own_error(tmp_path):
    from inspect_ai.log import read_eval_log

    path = tmp_path / "broken.eval"
    path.write_text("no")
    with pytest.raises(Exception) as inspect_error:
        read_eval_log(str(path))
    with pytest.raises(InputError) as error:
        read_generation_log(path)
    cause = f"{type(inspect_error.value).__name__}: {inspect_error.value}"
    assert str(error.value) == f"-T candidates={path}: not a readable Inspect log ({cause})"
