"""A stored baselines log re-scored from its texts: honest runs pass, edited scores or texts are refused by sample."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import get_model

from radiology_tasks.baselines.family import FAMILY
from radiology_tasks.baselines.rescoring import RESCORING
from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.core.family import family_of
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.leaderboard.evidence import RunEvidence, read_run
from radiology_tasks.leaderboard.rescore import rescorable_tasks, rescoring_violations
from radiology_tasks.leaderboard.rules import RankedScore
from radiology_tasks.scorers.lexical import lexical_scores
from radiology_tasks.suite.tasks import metric_suite
from tests.judge_answers import mock_output

SCORER = "lexical_baselines"


def demo_rows(tmp_path: Path, count: int = 4) -> Path:
    """The first few demo pairs, as a data file of their own (so the run covers its whole dataset)."""
    rows = [{"id": p.id, "reference": p.reference, "candidate": p.candidate} for p in load_pairs("demo").pairs[:count]]
    path = tmp_path / "demo_rows.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def run_log(tmp_path: Path, **task_args) -> Path:
    (log,) = inspect_eval(baselines(**task_args), model="none", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "success", log.error
    return Path(log.location)


def edit(path: Path, change) -> RunEvidence:
    """Apply `change` to the stored log, write it back, and read it as the leaderboard does."""
    log = read_eval_log(str(path))
    change(log)
    write_eval_log(log, str(path))
    return read_run(path)


def lines(run: RunEvidence) -> list[str]:
    """What the leaderboard's re-scoring reports with the family's rules; a text-only metric stores no answers."""
    assert all(RESCORING.answers(sample) == [] for sample in run.samples)
    return rescoring_violations(run)


@pytest.fixture
def honest(tmp_path) -> Path:
    return run_log(tmp_path, data=str(demo_rows(tmp_path)), baselines="rouge_l,bleu_2")


def test_an_honest_run_gives_no_line_and_is_ranked_on_its_first_key(honest):
    run = read_run(honest)
    assert len(run.samples) == 4 and lines(run) == []
    assert RESCORING.ranked(run) == RankedScore("bleu_2", bounded=True, corpus=False)
    assert not RESCORING.needs_judge()
    assert run.templates == {} and run.task_version == FAMILY.version == "1.5.0"
    sample = run.samples[0]
    expected, _ = lexical_scores(sample.target, sample.candidate, ["bleu_2", "rouge_l"])
    assert RESCORING.expected(run, sample) == pytest.approx(expected)


def test_the_default_metrics_rank_on_bleu_1(tmp_path):
    run = read_run(run_log(tmp_path, data=str(demo_rows(tmp_path, 2))))
    assert lines(run) == [] and RESCORING.ranked(run).key == "bleu_1"
    assert set(RESCORING.expected(run, run.samples[0])) == {"bleu_1", "bleu_2", "bleu_3", "bleu_4", "chrf", "rouge_l"}


@pytest.mark.parametrize("key", ["bleu_2", "rouge_l"])
def test_an_edited_score_is_caught_naming_the_sample(honest, key):
    def raise_score(log):
        log.samples[1].scores[SCORER].value[key] = 0.99

    run = edit(honest, raise_score)
    target = run.samples[1].id
    assert [line.split(":")[0] for line in lines(run)] == [f"sample {target}"]
    assert f"logged {key} 0.99" in lines(run)[0]


def test_a_reference_edited_with_its_scores_is_caught(honest):
    def copy_candidate(log):
        sample = log.samples[0]
        sample.target = sample.scores[SCORER].answer
        sample.scores[SCORER].value = dict.fromkeys(["bleu_2", "rouge_l"], 1.0)

    run = edit(honest, copy_candidate)
    assert lines(run) == [f"sample {run.samples[0].id}: the logged reference is not the data's"]


def test_a_candidate_edited_with_its_scores_is_caught(honest):
    def copy_reference(log):
        sample = log.samples[2]
        sample.scores[SCORER].answer = sample.target
        sample.scores[SCORER].value = dict.fromkeys(["bleu_2", "rouge_l"], 1.0)

    run = edit(honest, copy_reference)
    (line,) = lines(run)
    assert line.startswith(f"sample {run.samples[2].id}: the logged candidate is not the data's (")


def test_unreadable_settings_are_named_not_raised(honest):
    def bad_args(log):
        log.eval.task_args["baselines"] = "meteor"
        log.eval.task_args["unscored"] = "best"

    run = edit(honest, bad_args)
    assert RESCORING.expected(run, run.samples[0]) == {}
    assert RESCORING.ranked(run).key == "bleu_1"
    assert lines(run) == [
        "-T baselines='meteor' names no lexical metric the task computes",
        "-T unscored='best' is not a policy the task accepts",
    ]


@pytest.mark.parametrize("policy", ["worst", "exclude"])
def test_a_generated_run_is_rescored_under_its_policy_but_refused(tmp_path, policy):
    writer = get_model("mockllm/model", custom_outputs=[mock_output(""), mock_output("Small left pleural effusion.")])
    task = baselines(baselines="rouge_l", data=str(demo_rows(tmp_path, 2)), generate=True, unscored=policy)
    (log,) = inspect_eval(task, model=writer, display="none", log_dir=str(tmp_path / "logs"), max_samples=1)
    assert log.status == "success", log.error
    run = read_run(log.location)
    empty = next(s for s in run.samples if s.candidate is None)
    assert RESCORING.expected(run, empty) == pytest.approx(
        {"rouge_l": 0.0 if policy == "worst" else math.nan}, nan_ok=True
    )
    assert lines(run) == [
        "-T generate=true: the generated reports cannot be checked against the model's outputs yet; "
        "submit them as -T candidates=FILE"
    ]


def test_a_metric_suite_run_is_not_submittable(tmp_path):
    (log,) = inspect_eval(
        metric_suite(metrics="rouge_l", data=str(demo_rows(tmp_path, 2))),
        model="none",
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    run = read_run(log.location)
    (line,) = rescoring_violations(run)
    assert line.startswith("task radiology_tasks/metric_suite cannot be submitted yet (supported: ")
    assert "baselines" in rescorable_tasks() and "metric_suite" not in rescorable_tasks()


def test_the_family_declares_its_rescoring():
    family = family_of("baselines")
    assert family is FAMILY and family.rescoring("baselines") is RESCORING


def test_the_leaderboard_checks_accept_an_honest_run_and_refuse_an_edited_one(honest):
    from radiology_tasks.leaderboard.checks import run_violations

    assert run_violations(read_run(honest)) == []

    def raise_score(log):
        log.samples[3].scores[SCORER].value["rouge_l"] = 0.5

    run = edit(honest, raise_score)
    edited = run.samples[3]
    recomputed = lexical_scores(edited.target, edited.candidate, ["rouge_l"])[0]["rouge_l"]
    (line,) = [line for line in run_violations(run) if line.startswith("sample ")]
    assert line.startswith(f"sample {edited.id}: logged rouge_l 0.5 but ") and line.endswith(f" {recomputed:.6g}")
