"""Submission checks, re-scoring and ranking on runs built in memory: fast, and each check on its own."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.core.tables import file_sha256
from radiology_tasks.core.task_data import DataOptions, data_fingerprint
from radiology_tasks.green_vert.rescoring import error_profile
from radiology_tasks.green_vert.tasks import TASK_VERSION
from radiology_tasks.leaderboard import board, bundle, checks, comparison, rescore
from radiology_tasks.leaderboard.evidence import JudgeCall, ids_sha256
from radiology_tasks.leaderboard.rules import RankedScore
from radiology_tasks.templates import template_hashes
from tests.judge_answers import assessment
from tests.leaderboard.memory_runs import ANSWER, JUDGE, VALUES, write_pairs
from tests.leaderboard.memory_runs import memory_run as _run
from tests.leaderboard.memory_runs import sample as _sample


@pytest.fixture
def data_file(tmp_path: Path) -> Path:
    return write_pairs(tmp_path)


def test_a_clean_run_has_no_violation(data_file):
    assert checks.run_violations(_run(data_file)) == []


def test_each_score_key_is_recomputed(data_file):
    for key, forged in (("vert", 0.9), ("green", 1.0), ("green_ec", 0.0), ("green_f1", 0.5)):
        samples = [_sample("s0", values={**VALUES, key: forged}), *[_sample(f"s{i}") for i in range(1, 4)]]
        lines = rescore.rescoring_violations(_run(data_file, samples))
        assert len(lines) == 1 and lines[0].startswith(f"sample s0: logged {key} {forged:.6g} but its stored judge")


def test_a_missing_logged_score_is_shown_as_missing(data_file):
    samples = [_sample("s0", values={**VALUES, "vert": None}), *[_sample(f"s{i}") for i in range(1, 4)]]
    assert rescore.rescoring_violations(_run(data_file, samples)) == [
        "sample s0: logged vert missing but its stored judge answer gives 0.7"
    ]


def test_an_unanswered_sample_must_carry_the_policys_value(data_file):
    filled = {"vert": 0.0, "green": 0.0, "green_ec": None, "green_f1": 0.0}
    reasons = dict.fromkeys(filled, "judge_refused")
    unanswered = _sample("s0", answer=None, values=filled, unscored=reasons, filled_in=["vert", "green", "green_f1"])
    run = _run(data_file, [unanswered, *[_sample(f"s{i}") for i in range(1, 4)]])
    assert rescore.rescoring_violations(run) == []
    raised = replace(unanswered, values={**filled, "vert": 0.5})
    assert rescore.rescoring_violations(_run(data_file, [raised, *run.samples[1:]])) == [
        "sample s0: logged vert 0.5 but its stored judge answer gives 0"
    ]
    excluded = _run(data_file, run.samples, task_args={**run.task_args, "unscored": "exclude"})
    assert (
        rescore.rescoring_violations(excluded)[0]
        == "sample s0: logged vert 0 but its stored judge answer gives missing"
    )


def test_a_failed_sample_is_not_rescored_but_refused(data_file):
    failed = replace(_sample("s0", values={**VALUES, "vert": 0.99}), error="boom\ntraceback")
    run = _run(data_file, [failed, *[_sample(f"s{i}") for i in range(1, 4)]])
    assert rescore.rescoring_violations(run) == []
    assert "sample s0: error: boom" in checks.run_violations(run)


def test_the_stored_answer_must_be_one_the_judge_returned(data_file):
    other = replace(_sample("s0"), judge_calls=[JudgeCall(JUDGE, 0.0, None, "something else")])
    run = _run(data_file, [other, *[_sample(f"s{i}") for i in range(1, 4)]])
    assert rescore.rescoring_violations(run) == [
        "sample s0: the stored judge answer is not one the judge returned in this run"
    ]
    without_events = replace(other, has_events=False)
    assert rescore.rescoring_violations(_run(data_file, [without_events, *run.samples[1:]])) == []


def test_green_ranks_on_green_and_vert_on_its_prompt(data_file):
    assert rescore.ranked_score(_run(data_file)) == RankedScore("vert", True)
    rubric = _run(data_file, task_args={"prompt": "rubric"})
    assert rescore.ranked_score(rubric).key == "rubric"
    assert rescore.ranked_score(_run(data_file, task="radiology_tasks/green")).key == "green"
    assert rescore.ranked_score(_run(data_file, task="vert")).key == "vert", "a name without the package prefix"
    with pytest.raises(ValueError, match="task radiology_tasks/unknown cannot be submitted yet \\(supported: .*vert"):
        rescore.ranked_score(_run(data_file, task="radiology_tasks/unknown"))


def test_status_version_and_judge_lines(data_file):
    assert checks.run_violations(_run(data_file, status="error"))[0] == "log status is error, not success"
    assert checks.run_violations(_run(data_file, task_version="1.0.0")) == [
        f"task version 1.0.0 is not the released vert version {TASK_VERSION}"
    ]
    assert checks.run_violations(_run(data_file, judge=None)) == [
        "no judge named: run with --model-role grader=<judge model>"
    ]
    no_events = [replace(s, has_events=False) for s in _run(data_file).samples]
    assert checks.run_violations(_run(data_file, no_events))[0].startswith("the log keeps no model events")


@pytest.mark.parametrize(
    ("temperature", "seed", "line"),
    [
        (0.0, None, None),
        (0.0, 3, None),
        (0.8, 3, None),
        (None, 3, None),
        (0.8, None, "sample s1: the judge ran at temperature 0.8 without a seed"),
        (None, None, "sample s1: the judge ran at the default temperature without a seed"),
    ],
)
def test_the_judge_must_be_greedy_or_seeded(data_file, temperature, seed, line):
    samples = [_sample(f"s{i}") for i in range(4)]
    calls = [JudgeCall(JUDGE, 0.0, None, ANSWER), JudgeCall(JUDGE, temperature, seed, ANSWER)]
    samples[1] = replace(samples[1], judge_calls=calls)
    assert checks.run_violations(_run(data_file, samples)) == ([line] if line else [])


def test_template_lines_name_each_file(data_file):
    released = template_hashes("green_vert")
    changed = {**released, "green_vert/rubric.jinja": "f" * 64, "green_vert/extra.jinja": "e" * 64}
    del changed["green_vert/vert.jinja"]
    lines = checks.run_violations(_run(data_file, metadata={**_run(data_file).metadata, "templates": changed}))
    assert lines == [
        "prompt template green_vert/rubric.jinja differs from the released one",
        "prompt template green_vert/vert.jinja differs from the released one",
        "prompt template green_vert/extra.jinja is not one of the released templates",
    ]


def test_sample_set_lines(data_file):
    run = _run(data_file)
    assert checks.run_violations(_run(data_file, run.samples[:2]))[0] == (
        f"2 of the dataset's 4 samples are missing: s2, s3 ({checks.TRIAL_HINT})"
    )
    extra = [*run.samples, _sample("zz")]
    assert "1 samples are not in the dataset: zz" in checks.run_violations(_run(data_file, extra))
    twice = [*run.samples, run.samples[0]]
    assert "sample s0 (epoch 1) appears 2 times" in checks.run_violations(_run(data_file, twice))
    many = [_sample(f"s{i}") for i in range(9)]
    data_file.write_text("".join(json.dumps({"id": s.id, "reference": "R.", "candidate": "c"}) + "\n" for s in many))
    lines = checks.run_violations(_run(data_file, many[:1]))
    assert f"8 of the dataset's 9 samples are missing: s1, s2, s3, s4, s5 and 3 more ({checks.TRIAL_HINT})" in lines


def test_a_trial_accepts_part_of_the_data_and_checks_the_rest(data_file):
    run = _run(data_file)
    part = _run(data_file, run.samples[:2])
    assert checks.run_violations(part, trial=True) == []
    assert checks.coverage(part) == (2, 4) and checks.coverage(run) == (4, 4)
    extra = [*part.samples, _sample("zz")]
    assert checks.run_violations(_run(data_file, extra), trial=True) == ["1 samples are not in the dataset: zz"]
    twice = [*part.samples, part.samples[0]]
    assert checks.run_violations(_run(data_file, twice), trial=True) == ["sample s0 (epoch 1) appears 2 times"]
    assert checks.run_violations(_run(data_file, [_sample("zz")]), trial=True) == [
        "1 samples are not in the dataset: zz",
        f"none of the run's samples is in the dataset {data_file}",
    ]
    forged = _run(
        data_file, [replace(part.samples[0], values={**part.samples[0].values, "vert": 1.0}), part.samples[1]]
    )
    assert any("logged vert 1" in line for line in checks.run_violations(forged, trial=True))


def test_data_fingerprint_lines(data_file, tmp_path):
    run = _run(data_file)
    without = _run(data_file, metadata={"templates": run.metadata["templates"], "data": {}})
    assert checks.run_violations(without) == [
        "the log records no data fingerprint (made before radiology-tasks recorded one); run it again"
    ]
    candidates = tmp_path / "b.jsonl"
    candidates.write_text("".join(json.dumps({"id": f"s{i}", "candidate": "c"}) + "\n" for i in range(4)))
    recorded = data_fingerprint(DataOptions(str(data_file), str(candidates)))
    with_candidates = _run(
        data_file,
        task_args={**run.task_args, "candidates": str(candidates)},
        metadata={**run.metadata, "data": {"fingerprint": recorded}},
    )
    assert checks.run_violations(with_candidates) == []
    candidates.write_text(candidates.read_text() + "\n")
    assert checks.run_violations(with_candidates) == [
        f"candidates file {candidates} changed since the run (candidates_sha256 {recorded['candidates_sha256']} "
        f"in the log, {file_sha256(candidates)} here)"
    ]
    candidates.unlink()
    assert checks.run_violations(with_candidates)[0].startswith("the run's data files cannot be read here")


def test_unscored_share_counts_filled_in_and_missing_scores(data_file):
    filled = _sample("s0", values={**VALUES, "vert": 0.0}, unscored={"vert": "judge_refused"})
    missing = _sample("s1", values={**VALUES, "vert": None})
    run = _run(data_file, [filled, missing, _sample("s2"), _sample("s3")])
    assert checks.unscored_share(run) == (2, 4)
    lines = checks.run_violations(run, max_unscored=0.5)
    assert not any("unscored" in line for line in lines)
    assert "2 of 4 samples (50.0%) are unscored, above --max-unscored 25.0%" in checks.run_violations(
        run, max_unscored=0.25
    )


def test_the_logged_mean_must_be_the_samples_mean(data_file):
    run = _run(data_file)
    assert checks.run_violations(_run(data_file, results={"vert_mean": 0.71})) == [
        "results: vert_mean 0.71 is not the mean of the samples' vert (0.7)"
    ]
    assert checks.run_violations(_run(data_file, results={})) == ["results: vert_mean is missing or has no samples"]
    assert checks.run_violations(_run(data_file, results={"vert_mean": run.results["vert_mean"] + 1e-12})) == []


def test_other_tasks_cannot_be_submitted(data_file):
    (line,) = checks.run_violations(_run(data_file, task="radiology_tasks/unknown"))
    supported = rescore.rescorable_tasks()
    assert line == f"task radiology_tasks/unknown cannot be submitted yet (supported: {', '.join(supported)})"
    assert {"green", "vert"} <= set(supported)
    with pytest.raises(ValueError, match="task unknown belongs to no installed family"):
        checks.released_version("unknown")


def test_manifest_entry_and_comparability(data_file):
    run = _run(
        data_file, task_args={"prompt": "vert", "data": str(data_file), "unscored": "worst", "baselines": "bleu"}
    )
    entry = bundle.run_entry(run, "logs/run.eval")
    assert entry["dataset"]["sample_ids_sha256"] == ids_sha256(["s3", "s1", "s0", "s2"])
    assert entry["task_config"] == {"prompt": "vert", "unscored": "worst"}, (
        "data and baselines are not scoring settings"
    )
    assert (entry["mean"], entry["n"], entry["n_unscored"]) == (pytest.approx(0.7), 4, 0)
    assert entry["judge"] == {"model": JUDGE, "temperatures": [0.0], "seeded": False}
    seeded = [replace(s, judge_calls=[JudgeCall(JUDGE, 0.7, 1, ANSWER)]) for s in run.samples]
    assert bundle.judge_settings(_run(data_file, seeded)) == {"model": JUDGE, "temperatures": [0.7], "seeded": True}
    assert board.comparability(run) == board.comparability(_run(data_file, task_args={**run.task_args, "seed": 4}))
    assert board.comparability(run) != board.comparability(_run(data_file, run.samples[:3]))


def test_a_run_on_other_samples_is_told_apart_by_counts_beside_the_other_differences(data_file):
    run = _run(data_file)
    other = _run(data_file, run.samples[1:], judge="openai/other")
    line = comparison.not_comparable(board.comparability(other), board.comparability(run), other, run)
    assert line == (
        "not comparable: sample set differs (3 samples, 3 of them among the board's 4; runs on part of the data are "
        "compared only on the same samples: give them the same -T limit and -T seed); judge differs (model: "
        "openai/other vs the board's openai-api/stubsvc/stub-judge)"
    )
    same = comparison.not_comparable(
        board.comparability(_run(data_file, judge="openai/other")), board.comparability(run), run, run
    )
    assert same == "not comparable: judge differs (model: openai/other vs the board's openai-api/stubsvc/stub-judge)"


def test_default_system_names(data_file):
    assert bundle.default_system_name(_run(data_file, task_args={"candidates": "/x/gen_v2.jsonl"})) == "gen_v2"
    assert bundle.default_system_name(_run(data_file, model="openai/gpt-4.1")) == "openai/gpt-4.1"
    assert bundle.default_system_name(_run(data_file, task_args={})) == "demo candidates"
    assert bundle.default_system_name(_run(data_file)) == "pairs candidates"


def test_ranked_values_profiles_and_expert_points(data_file):
    # The experts' scores come from the data (s3 has none), not from the samples' metadata.
    rated = data_file.with_name("rated.jsonl")
    rows = [json.loads(line) for line in data_file.read_text().splitlines()]
    for row, expert in zip(rows, [0.5, 0.25, 1.0, None], strict=True):
        row["expert_score"] = expert
    rated.write_text("".join(json.dumps(row) + "\n" for row in rows))
    samples = [
        _sample("s0", predicted_significant={"a": 2, "b": 1}, expert_score=0.9),
        _sample("s1", values={**VALUES, "vert": None}, predicted_significant={"a": 0}),
        _sample("s2", values={**VALUES, "vert": 0.0}, filled_in=["vert"]),
        _sample("s3"),
    ]
    run = _run(rated, samples)
    assert board.ranked_values(run, "vert") == {"s0": 0.7, "s1": 0.0, "s2": 0.0, "s3": 0.7}
    (profile,) = error_profile(run).values()
    assert list(profile.values()) == [1.0, 0.5, 0.0, 0.0, 0.0, 0.0]
    assert board.expert_points(run) == [[0.5, 0.7]], "filled-in and missing scores are not the judge's"
    assert board.expert_points(_run(rated, samples, task_args={"candidates": "b.jsonl"})) is None
    assert board.expert_points(_run(rated, samples, task_args={"generate": True})) is None
    assert board.expert_points(_run(data_file, samples)) is None, "the data has no expert scores"
    assert error_profile(_run(data_file)) is None, "no counts recorded"


def test_differences_name_only_the_differing_fields():
    mine = {"judge": {"model": "x", "seeded": False}, "task version": "1.1.0", "sample set": "a"}
    theirs = {"judge": {"model": "y", "seeded": False}, "task version": "1.0.0", "sample set": "a"}
    assert comparison.difference(mine, theirs) == (
        "judge differs (model: x vs the board's y); task version differs (1.1.0 vs the board's 1.0.0)"
    )


def test_competition_ranks():
    assert board._ranks([0.9, 0.7, 0.9, 0.5]) == [1, 3, 1, 4]


def _terse() -> str:
    """An answer that lists only the categories with errors (GREEN's reference parser reads the rest as 0)."""
    lines = assessment({"b": 1}, 2, 0.6).splitlines()
    return "\n".join(line for line in lines if not (line.startswith("(") and line.endswith(": 0."))) + "\n"


def test_rescoring_reads_with_the_runs_missing_categories_rule(data_file):
    terse_values = {"vert": 0.6, "green": 2 / 3, "green_ec": 1.0, "green_f1": 0.8}
    samples = [_sample("s0", answer=_terse(), values=terse_values), *[_sample(f"s{i}") for i in range(1, 4)]]
    run = _run(data_file, samples)
    assert rescore.rescoring_violations(run) == []
    strict = _run(data_file, samples, task_args={**run.task_args, "missing_categories": "strict"})
    assert "sample s0: logged green 0.666667 but its stored judge answer gives 0" in rescore.rescoring_violations(
        strict
    )


def test_rescoring_reads_with_the_runs_zero_matched_rule(data_file):
    answer = assessment({}, 0, 0.9)
    perfect = {"vert": 0.9, "green": 1.0, "green_ec": 0.0, "green_f1": 1.0}
    samples = [_sample("s0", answer=answer, values=perfect), *[_sample(f"s{i}") for i in range(1, 4)]]
    run = _run(data_file, samples)
    assert rescore.rescoring_violations(run) == []
    original = _run(data_file, samples, task_args={**run.task_args, "zero_matched": "original"})
    assert rescore.rescoring_violations(original) == [
        "sample s0: logged green 1 but its stored judge answer gives 0",
        "sample s0: logged green_f1 1 but its stored judge answer gives 0",
    ]


def test_rescoring_defaults_are_the_tasks_defaults(data_file):
    filled = {"vert": 0.0, "green": 0.0, "green_ec": None, "green_f1": 0.0}
    unanswered = _sample("s0", answer=None, values=filled, unscored=dict.fromkeys(filled, "judge_refused"))
    run = _run(data_file, [unanswered, *[_sample(f"s{i}") for i in range(1, 4)]], task_args={"data": str(data_file)})
    assert rescore.ranked_score(run).key == "vert"
    assert rescore.rescoring_violations(run) == [], "no -T unscored in the log means the default, worst"
    assert checks.unscored_share(run) == (1, 4)


def test_a_failed_sample_does_not_stop_the_rescoring_of_the_rest(data_file):
    failed = replace(_sample("s0"), error="boom")
    forged = _sample("s3", values={**VALUES, "vert": 0.99})
    run = _run(data_file, [failed, _sample("s1"), _sample("s2"), forged])
    assert rescore.rescoring_violations(run) == ["sample s3: logged vert 0.99 but its stored judge answer gives 0.7"]
    (line,) = rescore.rescoring_violations(_run(data_file, task="radiology_tasks/unknown"))
    assert line.startswith("task radiology_tasks/unknown cannot be submitted yet (supported: ")


def test_the_rescoring_tolerance_is_tight(data_file):
    near = _sample("s0", values={**VALUES, "vert": 0.7 + 1e-10})
    off = _sample("s1", values={**VALUES, "vert": 0.7 + 1e-6})
    lines = rescore.rescoring_violations(_run(data_file, [near, off, _sample("s2"), _sample("s3")]))
    assert lines == ["sample s1: logged vert 0.700001 but its stored judge answer gives 0.7"]


def test_the_dataset_is_the_demo_set_when_the_run_names_none(data_file):
    run = _run(data_file, task_args={"prompt": "vert"})
    assert "4 samples are not in the dataset: s0, s1, s2, s3" in checks.run_violations(run)
    assert any(line.startswith("41 of the dataset's 41 samples are missing: ") for line in checks.run_violations(run))


def test_hub_data_needs_a_revision_and_reports_reach_the_loader(data_file):
    hub = _run(data_file, task_args={"prompt": "vert", "data": "rate-eval"})
    assert checks.run_violations(hub)[0] == (
        "dataset rate-eval comes from the Hugging Face hub and the run did not pin -T revision"
    )
    pinned = _run(data_file, task_args={"prompt": "vert", "data": "rate-eval", "revision": "abc123"})
    assert not any("did not pin" in line for line in checks.run_violations(pinned))
    with_reports = _run(data_file, task_args={"prompt": "vert", "data": str(data_file), "reports": "r.jsonl"})
    lines = checks.run_violations(with_reports)
    assert any(
        line.startswith(f"the dataset {data_file} cannot be loaded here") and "reports" in line for line in lines
    )


def test_five_missing_ids_are_all_shown(data_file):
    rows = [{"id": f"s{i}", "reference": "R.", "candidate": "c"} for i in range(6)]
    data_file.write_text("".join(json.dumps(r) + "\n" for r in rows))
    lines = checks.run_violations(_run(data_file, [_sample("s0")]))
    assert f"5 of the dataset's 6 samples are missing: s1, s2, s3, s4, s5 ({checks.TRIAL_HINT})" in lines
