"""A `report_generation` log as `-T candidates`: what is refused, in one line each, and what a judged run keeps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalError, EvalLog, read_eval_log, write_eval_log
from inspect_ai.model import ModelOutput, get_model

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.generation_log import PAIR_KEY
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.core.task_data import pair_to_sample
from radiology_tasks.report_generation.scorer import report_score
from radiology_tasks.report_generation.tasks import report_generation
from tests.judge_answers import mock_output

# The demo's studies (two or three pairs each), named by their first pair: what a generation run writes for.
DEMO_IDS = [pair.id for pair in load_pairs("demo", per_study=True).pairs]


def _generate(directory: Path, **task_args: object) -> Path:
    outputs = [mock_output(f"Generated report {n}. No acute abnormality.") for n in range(len(DEMO_IDS))]
    generator = get_model("mockllm/model", custom_outputs=outputs)
    (log,) = inspect_eval(report_generation(**task_args), model=generator, log_dir=str(directory), display="none")
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _generate(tmp_path_factory.mktemp("generation"), limit=3)


def _edited(path: Path, target: Path, change) -> Path:
    log = read_eval_log(str(path))
    change(log)
    write_eval_log(log, str(target))
    return target


def _refusal(candidates: Path, data: str | None = None) -> str:
    with pytest.raises(InputError) as refused:
        load_pairs(data, candidates=str(candidates))
    message = str(refused.value)
    assert "\n" not in message and str(candidates) in message
    return message


def test_the_joined_pairs_are_the_generated_reports_with_the_generator_recorded(generated: Path) -> None:
    loaded = load_pairs(None, candidates=str(generated))
    log = read_eval_log(str(generated))
    reports = {str(s.id): s.output.completion for s in log.samples or []}
    assert [p.id for p in loaded.pairs] == DEMO_IDS[:3]
    assert {p.id: p.candidate for p in loaded.pairs} == reports
    # Experts rated the data's own candidates, not these.
    assert all(p.expert is None for p in loaded.pairs)
    recorded = loaded.summary()["generation"]
    assert recorded["model"] == "mockllm/model" and recorded["studies_not_generated"] == len(DEMO_IDS) - 3
    assert recorded["request_configs"] == [{"max_tokens": 1536}]
    assert set(recorded["templates"]) == {"generate_report.jinja"}
    label = str(pair_to_sample(loaded.pairs[0]).input).splitlines()[0]
    assert label.startswith("Candidate report by mockllm/model ")


def test_the_generation_runs_seed_and_limit_are_replayed(tmp_path: Path) -> None:
    log = _generate(tmp_path, seed=7, limit=4)
    chosen = [str(s.id) for s in read_eval_log(str(log)).samples or []]
    (judged,) = inspect_eval(baselines(candidates=str(log)), model="none", display="none", log_dir=str(tmp_path))
    assert judged.status == "success"
    assert sorted(str(s.id) for s in judged.samples or []) == sorted(chosen)
    assert set(chosen) != set(DEMO_IDS[:4])


def test_an_inspect_json_log_is_read_as_a_generation_log(generated: Path, tmp_path: Path) -> None:
    as_json = _edited(generated, tmp_path / "generation.json", lambda log: None)
    assert [p.id for p in load_pairs(None, candidates=str(as_json)).pairs] == DEMO_IDS[:3]


def test_a_log_of_another_task_is_refused(tmp_path: Path) -> None:
    (other,) = inspect_eval(baselines(limit=2), model="none", display="none", log_dir=str(tmp_path))
    assert "a log of task baselines, not of report_generation" in _refusal(Path(other.location))


def test_an_unfinished_run_is_refused(generated: Path, tmp_path: Path) -> None:
    def cancel(log: EvalLog) -> None:
        log.status = "cancelled"

    assert "status is cancelled, not success" in _refusal(_edited(generated, tmp_path / "c.eval", cancel))


def test_errored_samples_are_refused_by_id(generated: Path, tmp_path: Path) -> None:
    def fail(log: EvalLog) -> None:
        sample = next(s for s in log.samples or [] if s.id == DEMO_IDS[1])
        sample.error = EvalError(message="boom", traceback="", traceback_ansi="")

    message = _refusal(_edited(generated, tmp_path / "e.eval", fail))
    assert f"samples {DEMO_IDS[1]} errored" in message


def test_ids_other_than_the_selected_ones_are_named(generated: Path, tmp_path: Path) -> None:
    def drop_and_add(log: EvalLog) -> None:
        samples = log.samples or []
        index = next(i for i, s in enumerate(samples) if s.id == DEMO_IDS[2])
        samples[index] = samples[index].model_copy(update={"id": "not-in-the-data"})

    message = _refusal(_edited(generated, tmp_path / "i.eval", drop_and_add))
    assert f"missing {DEMO_IDS[2]}" in message and "extra not-in-the-data" in message
    assert message.endswith("(missing ctc-03-para; extra not-in-the-data)"), "a per-study log needs no hint"


def test_other_data_is_refused_naming_both_datasets_and_their_sha256(generated: Path, tmp_path: Path) -> None:
    demo = load_pairs("demo").data
    rows = [json.loads(line) for line in Path(demo.files["table"][0]).read_text().splitlines()]
    copy = tmp_path / "edited.jsonl"
    copy.write_text("".join(json.dumps({**row, "indication": "changed"}) + "\n" for row in rows))
    assert _refusal(generated, str(copy)).endswith(
        f"the reports were generated from data demo (SHA-256 {demo.fingerprint()['data_sha256']}), not from the "
        f"judged data {copy} (SHA-256 {file_sha256(copy)}); judge the data they were generated from"
    )


def test_the_judged_run_records_the_data_the_reports_were_generated_from(generated: Path) -> None:
    assert load_pairs(None, candidates=str(generated)).summary()["generation"]["data"] == "demo"


def test_a_log_written_one_report_per_pair_is_refused_with_the_reason(generated: Path, tmp_path: Path) -> None:
    pair_ids = [pair.id for pair in load_pairs("demo").pairs[:3]]

    def per_pair(log: EvalLog) -> None:
        # What report_generation 1.0.0 wrote with -T limit=3: the first three pairs, no record of studies.
        log.eval.task_version = "1.0.0"
        del log.eval.metadata["data"]["studies"]
        for sample, pair_id in zip(log.samples or [], pair_ids, strict=True):
            sample.id = pair_id

    message = _refusal(_edited(generated, tmp_path / "p.eval", per_pair))
    assert f"extra {', '.join(sorted(pair_ids[1:]))}" in message
    assert message.endswith(
        "it holds one report per pair (report_generation 1.0.0): generate again, one report per study"
    )


def test_a_report_the_generator_did_not_write_stays_in_the_judged_data(generated: Path, tmp_path: Path) -> None:
    def empty(log: EvalLog) -> None:
        sample = next(s for s in log.samples or [] if s.id == DEMO_IDS[0])
        sample.output = ModelOutput.from_content(model="mockllm/model", content="")
        sample.metadata["generation"] = {**sample.metadata["generation"], "error": "generator_context_exceeded: x"}

    pairs = load_pairs(None, candidates=str(_edited(generated, tmp_path / "n.eval", empty))).pairs
    assert pairs[0].candidate is None
    assert pairs[0].metadata[PAIR_KEY]["generation"]["error"] == "generator_context_exceeded: x"
    assert "(the generator wrote no report)" in str(pair_to_sample(pairs[0]).input)


def test_the_scorer_records_length_truncation_and_missing_reports() -> None:
    written = report_score("Two words", {"truncated": True, "output_tokens": 3, "error": None})
    assert written.value == {"words": 2.0, "characters": 9.0, "output_tokens": 3.0, "truncated": 1.0, "empty": 0.0}
    assert written.reason is None
    empty = report_score("  ", {"truncated": False, "output_tokens": 0, "error": None})
    assert empty.reason == "no_response" and empty.metadata["unscored"]["words"] == "no_response"
    assert isinstance(empty.value, dict) and empty.value["empty"] == 1.0
    failed = report_score("", {"truncated": False, "output_tokens": None, "error": "generator_request_rejected: 400"})
    assert failed.reason == "no_response" and failed.metadata["unscored"]["words"] == "generator_request_rejected"


def test_a_missing_generated_report_is_scored_against_the_generator(generated: Path, tmp_path: Path) -> None:
    def empty(log: EvalLog) -> None:
        sample = next(s for s in log.samples or [] if s.id == DEMO_IDS[0])
        sample.output = ModelOutput.from_content(model="mockllm/model", content="")
        sample.metadata["generation"] = {**sample.metadata["generation"], "error": "generator_context_exceeded: x"}

    log_path = _edited(generated, tmp_path / "n.eval", empty)
    (log,) = inspect_eval(
        baselines(candidates=str(log_path), baselines="rouge_l"), model="none", display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    scores = {str(s.id): s.scores["lexical_baselines"] for s in log.samples or []}
    assert scores[DEMO_IDS[0]].reason == "no_response", "the generator's failure, not a judge's"
    assert scores[DEMO_IDS[0]].metadata["unscored"]["rouge_l"].startswith("generator_context_exceeded")
    assert all(scores[i].reason is None for i in DEMO_IDS[1:3])
