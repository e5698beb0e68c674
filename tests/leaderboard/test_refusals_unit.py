"""Every refusal of the submission checks and the bundle, on runs built in memory: the exact line, naming the
sample or field, and the boundary each check draws (see also `test_checks_unit`)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.leaderboard import bundle, checks, comparison, rescore
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard
from radiology_tasks.leaderboard.evidence import JudgeCall, RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.manifest import read_bundle
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
from tests.leaderboard.memory_runs import JUDGE, VALUES, memory_run, sample, write_pairs
from tests.toy_families import ToyFamily


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return write_pairs(tmp_path)


def test_a_run_over_several_epochs_passes(data):
    run = memory_run(data)
    second = [replace(s, epoch=2) for s in run.samples]
    assert checks.run_violations(replace(run, samples=[*run.samples, *second])) == []


def test_ids_are_listed_up_to_five_then_counted():
    assert checks._ids(["a", "b", "c", "d", "e"]) == "a, b, c, d, e"
    assert checks._ids(["a", "b", "c", "d", "e", "f"]) == "a, b, c, d, e and 1 more"


def test_the_runs_data_options_are_its_task_arguments(data):
    args = {
        "data": "x.jsonl",
        "candidates": "c.jsonl",
        "reports": "r.jsonl",
        "revision": "abc",
        "layout": "rexval",
        "track": "findings",
        "image_root": "/img",
        "expert_scale": "0,5",
        "on_bad_rows": "skip",
    }
    options = checks.run_data_options(memory_run(data, task_args=args))
    assert {name: getattr(options, name) for name in args} == {**args, "expert_scale": (0.0, 5.0)}
    assert checks.run_data_options(memory_run(data, task_args={})).on_bad_rows == "error"
    assert checks.run_data_options(memory_run(data, task_args={})).data == "demo"


def test_hub_data_must_be_pinned_to_a_revision(data):
    run = memory_run(data, task_args={"data": "rate-eval"})
    assert (
        "dataset rate-eval comes from the Hugging Face hub and the run did not pin -T revision"
        in checks.run_violations(run)
    )
    pinned = memory_run(data, task_args={"data": "rate-eval", "revision": "main"})
    assert not any("did not pin" in line for line in checks.run_violations(pinned))
    recorded = memory_run(data, task_args={"data": "rate-eval"}, metadata={"data": {"fingerprint": {"revision": "r"}}})
    assert not any("did not pin" in line for line in checks.run_violations(recorded))
    local = memory_run(data, task_args={"data": "rexval"})
    assert not any("did not pin" in line for line in checks.run_violations(local))


def test_data_that_cannot_be_loaded_is_one_line(data, tmp_path):
    missing = tmp_path / "gone.jsonl"
    lines = checks.run_violations(memory_run(data, task_args={"data": str(missing), "prompt": "vert"}))
    assert lines[0].startswith(f"the dataset {missing} cannot be loaded here to check the sample set: ")
    assert not any("fingerprint" in line for line in lines), "the sample-set check stops at the first failure"


def test_templates_not_recorded_are_one_line(data):
    run = memory_run(data)
    without = replace(run, metadata={"data": run.metadata["data"]})
    assert checks.run_violations(without) == [
        "the log records no prompt-template hashes (made before they were recorded); run it again"
    ]
    assert checks.released_templates("unknown") == {}


def test_a_failed_sample_is_named_with_the_first_line_of_its_error(data):
    failed = replace(sample("s1"), error="judge unreachable\nTraceback ...")
    run = memory_run(data, [sample("s0"), failed, sample("s2"), sample("s3")])
    assert checks.run_violations(run)[:1] == ["sample s1: error: judge unreachable"]


def test_a_failed_sample_does_not_hide_that_no_events_were_kept(data):
    kept = [replace(sample(f"s{i}"), has_events=i == 0) for i in range(4)]
    kept[0] = replace(kept[0], error="boom")
    lines = checks.run_violations(memory_run(data, kept))
    assert lines[-1].startswith("the log keeps no model events, so the judge's settings cannot be checked")
    all_failed = [replace(s, error="boom") for s in kept]
    assert not any("model events" in line for line in checks.run_violations(memory_run(data, all_failed)))


def test_one_unseeded_sampling_call_is_named_once_per_sample(data):
    calls = [JudgeCall(JUDGE, 0.5, None, "x"), JudgeCall(JUDGE, 0.9, None, "y")]
    samples = [replace(sample("s0"), judge_calls=calls), *[sample(f"s{i}") for i in range(1, 4)]]
    lines = [line for line in checks.run_violations(memory_run(data, samples)) if "without a seed" in line]
    assert lines == ["sample s0: the judge ran at temperature 0.5 without a seed"]
    failed = replace(samples[0], error="boom")
    assert not any("without a seed" in line for line in checks.run_violations(memory_run(data, [failed, *samples[1:]])))


@pytest.mark.parametrize(("share", "refused"), [(0.25, False), (0.2499, True)])
def test_the_unscored_share_may_reach_the_limit_but_not_pass_it(data, share, refused):
    missing = sample("s0", values={**VALUES, "vert": None})
    run = memory_run(data, [missing, *[sample(f"s{i}") for i in range(1, 4)]])
    lines = [line for line in checks.run_violations(run, max_unscored=share) if "unscored" in line]
    assert lines == ([f"1 of 4 samples (25.0%) are unscored, above --max-unscored {share:.1%}"] if refused else [])


def test_the_default_unscored_limit_is_two_percent(data):
    missing = sample("s0", values={**VALUES, "vert": None})
    run = memory_run(data, [missing, *[sample(f"s{i}") for i in range(1, 4)]])
    assert "1 of 4 samples (25.0%) are unscored, above --max-unscored 2.0%" in checks.run_violations(run)


def test_the_logged_mean_is_checked_only_when_logged_or_there_are_values(data):
    none = memory_run(data, [sample(f"s{i}", values={**VALUES, "vert": None}) for i in range(4)], results={})
    assert not any(line.startswith("results:") for line in checks.run_violations(none, max_unscored=1.0))
    logged = replace(none, results={"vert_mean": 0.5})
    assert "results: vert_mean is missing or has no samples" in checks.run_violations(logged, max_unscored=1.0)
    exact = memory_run(data, results={"vert_mean": 0.7 + 1e-9})
    assert not any(line.startswith("results:") for line in checks.run_violations(exact))


# A toy family whose rules can be switched per test: a corpus statistic, no judge, left-out samples.
def _toy(run: RunEvidence) -> RankedScore:
    return RankedScore("vert", corpus=run.task_args.get("corpus", False))


def _toy_expected(run: RunEvidence, one: SampleEvidence) -> dict[str, float]:
    return {"vert": 0.7}


class _Toy(Rescoring):
    def ranked(self, run: RunEvidence) -> RankedScore:
        return _toy(run)

    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        return _toy_expected(run, sample)

    def needs_judge(self) -> bool:
        return False

    def left_out(self, sample: SampleEvidence) -> bool:
        return bool(sample.metadata.get("left_out"))

    def sample_ids(self, run: RunEvidence) -> list[str] | None:
        return ["s0", "s1", "s2", "s3"]

    def run_checks(self, run: RunEvidence) -> list[str]:
        return ["run: toy check"]


TOY = _Toy()


@pytest.fixture
def toy():
    add_family(ToyFamily("toy_refusals", ("toy_ranked", "toy_other"), rules={"toy_ranked": TOY}))
    yield
    remove_family("toy_refusals")


def _toy_run(data: Path, samples: list[SampleEvidence] | None = None, **changes: Any) -> RunEvidence:
    metadata = {"data": memory_run(data).metadata["data"], "templates": {}}
    fields = {"task": "radiology_tasks/toy_ranked", "task_version": "1.0.0", "metadata": metadata, **changes}
    return memory_run(data, samples, **fields)


def test_a_family_without_a_judge_skips_the_judge_checks(data, toy):
    run = _toy_run(data, judge=None)
    assert checks.run_violations(run) == ["run: toy check"]
    assert rescore.rescoring_violations(replace(run, samples=[sample("s0", values={"vert": 0.1})])) == [
        "sample s0: logged vert 0.1 but its stored texts give 0.7",
        "run: toy check",
    ]


def test_a_corpus_statistic_is_left_to_the_familys_run_checks(data, toy):
    run = _toy_run(data, task_args={"corpus": True, "data": str(data)}, results={"vert_mean": 0.1}, judge=None)
    assert checks.run_violations(run) == ["run: toy check"]


def test_left_out_samples_count_in_neither_share(data, toy):
    samples = [sample("s0", values={"vert": None}, left_out=True), *[sample(f"s{i}") for i in range(1, 4)]]
    run = _toy_run(data, samples, judge=None)
    assert checks.unscored_share(run) == (0, 3)
    assert checks.dataset_ids(run) == ["s0", "s1", "s2", "s3"]


def test_only_the_tasks_a_family_rescores_can_be_submitted(data, toy):
    assert "toy_ranked" in rescore.rescorable_tasks() and "toy_other" not in rescore.rescorable_tasks()
    other = _toy_run(data, task="radiology_tasks/toy_other")
    (line,) = checks.run_violations(other)
    assert line.startswith("task radiology_tasks/toy_other cannot be submitted yet (supported: ")
    assert rescore.rescoring_violations(other) == [line]
    with pytest.raises(ValueError, match="toy_other cannot be submitted yet"):
        rescore.rescoring(other)


def test_a_family_without_rescoring_has_no_submittable_task(data):
    add_family(ToyFamily("toy_bare", ("toy_bare_task",)))
    try:
        assert "toy_bare_task" not in rescore.rescorable_tasks()
        run = _toy_run(data, task="radiology_tasks/toy_bare_task")
        assert checks.run_violations(run)[0].startswith("task radiology_tasks/toy_bare_task cannot be submitted yet")
    finally:
        remove_family("toy_bare")


def test_a_logged_nan_is_missing_and_a_small_difference_is_tolerated(data):
    near = [sample("s0", values={**VALUES, "vert": 0.7 + 1e-10}), *[sample(f"s{i}") for i in range(1, 4)]]
    assert rescore.rescoring_violations(memory_run(data, near)) == []
    off = [sample("s0", values={**VALUES, "vert": 0.7 + 1e-8}), *[sample(f"s{i}") for i in range(1, 4)]]
    assert rescore.rescoring_violations(memory_run(data, off)) == [
        "sample s0: logged vert 0.7 but its stored judge answer gives 0.7"
    ]
    assert rescore._same(None, float("nan")) and not rescore._same(0.0, float("nan"))
    assert not rescore._same(None, 0.0) and rescore._shown(float("nan")) == "missing"


# The bundle's refusals.
def test_check_logs_names_each_log_and_each_repeat(data, tmp_path, monkeypatch):
    runs = {"a.eval": memory_run(data), "b.eval": memory_run(data, status="error")}
    monkeypatch.setattr(bundle, "read_run", lambda path: runs[Path(path).name])
    paths = [tmp_path / "a.eval", tmp_path / "b.eval", tmp_path / "b.eval", tmp_path / "a.eval"]
    with pytest.raises(SubmissionRefused) as refused:
        bundle.check_logs(paths)
    assert refused.value.lines == [
        "b.eval: log status is error, not success",
        "b.eval: log status is error, not success",
        "a.eval: given twice",
        "b.eval: given twice",
    ]
    assert str(refused.value) == "\n".join(refused.value.lines)
    assert bundle.check_logs(paths[:1]) == [runs["a.eval"]]


def test_check_logs_passes_the_unscored_limit_on(data, tmp_path, monkeypatch):
    filled = {"vert": 0.0, "green": 0.0, "green_ec": None, "green_f1": 0.0}
    refused = sample("s0", answer=None, values=filled, unscored=dict.fromkeys(filled, "judge_refused"))
    one_unscored = memory_run(data, [refused, *[sample(f"s{i}") for i in (1, 2, 3)]])
    monkeypatch.setattr(bundle, "read_run", lambda path: one_unscored)
    assert bundle.check_logs([tmp_path / "a.eval"], max_unscored=0.25) == [one_unscored]
    with pytest.raises(SubmissionRefused):
        bundle.check_logs([tmp_path / "a.eval"])


def test_the_data_track_must_be_the_submissions(data, tmp_path, monkeypatch):
    tracked = memory_run(
        data, metadata={**memory_run(data).metadata, "data": {**memory_run(data).metadata["data"], "track": "findings"}}
    )
    monkeypatch.setattr(bundle, "read_run", lambda path: tracked)
    log = tmp_path / "a.eval"
    log.write_text("x")
    with pytest.raises(SubmissionRefused) as refused:
        bundle.write_bundle([log], tmp_path / "out", SystemCard(track="findings_impression"))
    assert refused.value.lines == ["a.eval: the data's track is findings, the submission's --track findings_impression"]
    for track in (None, "judges", "findings"):
        out = tmp_path / f"out-{track}"
        assert json.loads(bundle.write_bundle([log], out, SystemCard(track=track)).read_text())["track"] == track


def _generated(run: RunEvidence, sha: str | None, model: str = "gen/model") -> RunEvidence:
    data = dict(run.metadata["data"])
    if sha is not None:
        data["generation"] = {"log_sha256": sha, "model": model}
    return replace(run, metadata={**run.metadata, "data": data})


def test_one_systems_runs_judge_one_generation_log(data):
    run = memory_run(data)
    rule = "one system's runs must judge the reports of one generation log"
    assert bundle.mixed_generation_logs([("a", _generated(run, "x")), ("b", _generated(run, "x"))]) == []
    assert bundle.mixed_generation_logs([("a", run), ("b", run)]) == []
    assert bundle.mixed_generation_logs([("a", _generated(run, "x")), ("b", _generated(run, "y"))]) == [
        f"a: candidates from generation log x; {rule}",
        f"b: candidates from generation log y; {rule}",
    ]
    assert bundle.mixed_generation_logs([("a", _generated(run, "x")), ("b", run)]) == [
        f"a: candidates from generation log x; {rule}",
        f"b: candidates not from a generation log, beside runs that judge one; {rule}",
    ]
    assert bundle.generation_of(replace(run, metadata={"data": {"generation": "x"}})) is None


def test_the_generator_names_the_system(data):
    run = memory_run(data)
    assert bundle.default_system_name(_generated(run, "x", "openai/gen")) == "openai/gen"
    assert bundle.default_system_name(_generated(run, "x", "")) == "pairs candidates"


def test_a_bundle_of_mixed_generation_logs_is_refused(data, tmp_path, monkeypatch):
    runs = {"a.eval": _generated(memory_run(data), "x"), "b.eval": memory_run(data)}
    monkeypatch.setattr(bundle, "read_run", lambda path: runs[Path(path).name])
    for name in runs:
        (tmp_path / name).write_text(name)
    with pytest.raises(SubmissionRefused) as refused:
        bundle.write_bundle([tmp_path / "a.eval", tmp_path / "b.eval"], tmp_path / "out", SystemCard())
    assert [line.split(":")[0] for line in refused.value.lines] == ["a.eval", "b.eval"]
    assert not (tmp_path / "out").exists()


def test_an_empty_output_directory_may_be_given(data, tmp_path, monkeypatch):
    monkeypatch.setattr(bundle, "read_run", lambda path: memory_run(data))
    (tmp_path / "a.eval").write_text("a")
    (tmp_path / "out").mkdir()
    manifest = bundle.write_bundle([tmp_path / "a.eval"], tmp_path / "out", SystemCard(name="A"))
    written = json.loads(manifest.read_text())
    assert written["system"]["name"] == "A" and written["runs"][0]["log"] == "logs/a.eval"
    assert written["radiology_tasks_version"] and written["created"].endswith("+00:00")


def test_the_manifest_entry_of_a_corpus_statistic(data, toy):
    run = _toy_run(data, task_args={"corpus": True, "data": str(data)}, judge=None)
    entry = bundle.run_entry(run, "logs/x.eval")
    assert entry["mean"] is None, "the toy family gives no corpus_score"
    none = _toy_run(data, [sample(f"s{i}", values={"vert": None}) for i in range(4)], judge=None)
    assert bundle.run_entry(none, "logs/x.eval")["mean"] is None
    assert bundle.run_entry(none, "logs/x.eval")["n_unscored"] == 4


def test_an_unreadable_log_does_not_hide_the_next_logs_lines(data, tmp_path, monkeypatch):
    def read(path: Path) -> RunEvidence:
        if path.name == "broken.eval":
            raise ValueError("broken.eval: not a readable Inspect log")
        return memory_run(data, status="error")

    monkeypatch.setattr(bundle, "read_run", read)
    with pytest.raises(SubmissionRefused) as refused:
        bundle.check_logs([tmp_path / "broken.eval", tmp_path / "b.eval"])
    assert refused.value.lines == [
        "broken.eval: not a readable Inspect log",
        "b.eval: log status is error, not success",
    ]


def test_the_bundle_applies_its_own_unscored_limit_and_writes_a_readable_manifest(data, tmp_path, monkeypatch):
    filled = {"vert": 0.0, "green": 0.0, "green_ec": None, "green_f1": 0.0}
    refused = sample("s0", answer=None, values=filled, unscored=dict.fromkeys(filled, "judge_refused"))
    run = memory_run(data, [refused, *[sample(f"s{i}") for i in (1, 2, 3)]])
    monkeypatch.setattr(bundle, "read_run", lambda path: run)
    (tmp_path / "a.eval").write_text("a")
    manifest = bundle.write_bundle([tmp_path / "a.eval"], tmp_path / "out", SystemCard(), max_unscored=0.25)
    text = manifest.read_text()
    assert text.startswith('{\n  "manifest_version": "1",\n  "created": ') and text.endswith("}\n")
    (entry,) = json.loads(text)["runs"]
    assert entry == {
        "log": "logs/a.eval",
        "sha256": run.sha256,
        "task": "vert",
        "task_version": run.task_version,
        "score": "vert",
        "mean": pytest.approx(0.7 * 3 / 4),
        "n": 4,
        "n_unscored": 1,
        "dataset": {"name": str(data), **run.fingerprint, "sample_ids_sha256": run.sample_ids_sha256()},
        "judge": {"model": JUDGE, "temperatures": [0.0], "seeded": False},
        "task_config": {"detail": "full", "prompt": "vert", "unscored": "worst"},
        "templates": run.templates,
    }


def test_a_family_with_two_template_folders_releases_both():
    from radiology_tasks.templates import template_hashes

    assert checks.released_templates("judge_sensitivity") == {
        **template_hashes("judge_sensitivity"),
        **template_hashes("green_vert"),
    }


def _fingerprinted(data: Path, recorded: dict[str, Any]) -> RunEvidence:
    run = memory_run(data)
    return replace(run, metadata={**run.metadata, "data": {"fingerprint": recorded}})


def test_a_changed_data_file_is_named_by_its_field(data):
    recorded = dict(memory_run(data).fingerprint)
    assert recorded["data_sha256"] is not None
    data.write_text(data.read_text() + "\n")
    lines = checks.run_violations(_fingerprinted(data, recorded))
    assert len(lines) == 1 and "data_sha256" in lines[0] and "changed since the run" in lines[0]
    without_layout = {k: v for k, v in recorded.items() if k != "layout"}
    assert len(checks.run_violations(_fingerprinted(data, without_layout))) == 1, "hashed data without a layout"
    layout_only = {**recorded, "data_sha256": None}
    (line,) = checks.run_violations(_fingerprinted(data, layout_only))
    assert "data_sha256" in line, "a layout recorded means the data was hashed"


def test_a_log_from_before_hub_data_was_hashed_checks_only_its_candidates(data):
    old = {"candidates_sha256": None, "revision": None}
    data.write_text(data.read_text() + "\n")
    assert checks.run_violations(_fingerprinted(data, old)) == []
    changed = {**old, "candidates_sha256": "0" * 64}
    (line,) = checks.run_violations(_fingerprinted(data, changed))
    assert "candidates_sha256" in line


def test_the_dataset_of_a_run_over_studies_is_its_studies(tmp_path):
    path = tmp_path / "pairs.jsonl"
    rows = [("p1", "Same reference."), ("p2", "Same reference."), ("p3", "Other reference.")]
    path.write_text("".join(json.dumps({"id": i, "reference": r, "candidate": f"c {i}"}) + "\n" for i, r in rows))
    run = memory_run(path, [sample(i) for i, _ in rows])
    assert checks.dataset_ids(run) == ["p1", "p2", "p3"]
    studies = replace(run, metadata={**run.metadata, "data": {**run.metadata["data"], "studies": {"pairs": 3}}})
    assert checks.dataset_ids(studies) == ["p1", "p3"]


def test_a_familys_own_sample_list_is_asked_with_the_run(data, toy, monkeypatch):
    monkeypatch.setattr(TOY, "sample_ids", lambda run: list(run.task_args["ids"]))
    run = _toy_run(data, judge=None, task_args={"ids": ["x", "y"], "data": str(data)})
    assert checks.dataset_ids(run) == ["x", "y"]


def test_means_and_scores_within_the_tolerance_are_the_same(data):
    from tests.leaderboard.memory_runs import scored_run

    zero = scored_run(data, [0.0, 0.0, 0.0, 0.0])
    assert checks.run_violations(replace(zero, results={"vert_mean": 1e-9})) == []
    assert checks.run_violations(replace(zero, results={"vert_mean": 2e-9})) == [
        "results: vert_mean 2e-09 is not the mean of the samples' vert (0)"
    ]
    nudged = [replace(s, values={**s.values, "vert": 1e-9}) if s.id == "s0" else s for s in zero.samples]
    assert rescore.rescoring_violations(replace(zero, samples=nudged)) == []


# Which runs a board ranks together.
def test_the_settings_two_runs_must_share(data):
    from radiology_tasks.leaderboard import board

    run = memory_run(data)
    fingerprint = run.fingerprint
    assert board.comparability(run) == {
        "data revision": {
            "layout": fingerprint["layout"],
            "data_sha256": fingerprint["data_sha256"],
            "reports_sha256": fingerprint["reports_sha256"],
        },
        "sample set": run.sample_ids_sha256(),
        "task version": run.task_version,
        "prompt template set": board._digest(run.templates),
        "task configuration": {"detail": "full", "prompt": "vert", "unscored": "worst"},
        "judge": {"model": JUDGE, "temperatures": [0.0], "seeded": False},
    }
    pinned = replace(run, metadata={**run.metadata, "data": {"fingerprint": {"revision": "abc"}}})
    assert board.comparability(pinned)["data revision"] == {
        "layout": None,
        "data_sha256": "revision abc",
        "reports_sha256": None,
    }
    other_templates = replace(run, metadata={**run.metadata, "templates": {"x": "y"}})
    assert (
        board.comparability(other_templates)["prompt template set"] != board.comparability(run)["prompt template set"]
    )
    import hashlib

    assert board._digest({"b": 1, "a": Path("p")}) == hashlib.sha256(b'{"a": "p", "b": 1}').hexdigest()[:12]


def test_a_difference_names_every_differing_field_and_value():

    mine = {
        "task configuration": {"prompt": "vert", "detail": "brief", "extra": {"b": 1, "a": 2}},
        "task version": 2,
        "judge": "x",
    }
    theirs = {"task configuration": {"prompt": "vert", "detail": "full"}, "task version": 1, "judge": {"model": "m"}}
    assert comparison.difference(mine, theirs) == (
        'task configuration differs (detail: brief vs the board\'s full, extra: {"a": 2, "b": 1} vs the board\'s '
        'null); task version differs (2 vs the board\'s 1); judge differs (x vs the board\'s {"model": "m"})'
    )


def test_task_config_of_a_task_of_no_family_keeps_every_scoring_setting(data):
    run = memory_run(data, task="radiology_tasks/unknown", task_args={"data": "x", "prompt": "vert", "b": 1})
    assert bundle.task_config(run) == {"b": 1, "prompt": "vert"}


def test_how_the_generator_was_asked_is_the_system_not_the_scoring(data):
    # The images a generator was sent describe the system under test, like `generate` and `report_max_tokens`.
    asked = {"generate": True, "report_max_tokens": 512, "images": "key", "missing_images": "omit"}
    run = memory_run(data, task="radiology_tasks/unknown", task_args={"data": "x", "prompt": "vert", **asked})
    assert bundle.task_config(run) == {"prompt": "vert"}


def test_a_manifest_without_runs_names_the_keys_it_has(tmp_path):
    (tmp_path / "manifest.json").write_text('{"system": {}, "track": null}')
    with pytest.raises(ValueError, match=r"needs a list under 'runs' \(found: system, track\)$"):
        read_bundle(tmp_path)
