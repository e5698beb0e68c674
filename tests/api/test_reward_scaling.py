"""Rewards at training scale: a lexical reward scored in one loop with the log ``inspect eval`` writes for it, and a
call's pairs split among worker processes (the same rewards in order, one log per worker, each pair judged once)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import get_model

from radiology_tasks import reward_function, score
from radiology_tasks.api import build_task, eval_arguments
from radiology_tasks.batch_scoring import SCORED_IN_BATCH, batch_scorable
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.report_hook import local_path
from radiology_tasks.core.run_report import run_figures
from radiology_tasks.rewards import part_eval_args, split_pairs
from tests.api.conftest import JUDGE, ROWS
from tests.api.scripted_judge import GARBAGE

REFERENCES = [row["reference"] for row in ROWS]
COMPLETIONS = [row["candidate"] for row in ROWS]
LEXICAL = "bleu,chrf,rouge_l,bleu_rexrank"


def _call(function: Any, completions: list[str], references: list[str], **extra: Any) -> list[float | None]:
    return asyncio.run(
        function(prompts=[""] * len(completions), completions=completions, reference=references, **extra)
    )


def _read(location: str) -> EvalLog:
    return read_eval_log(local_path(location))


def test_a_lexical_reward_is_scored_in_one_loop_with_the_log_inspect_eval_writes(tmp_path):
    rewards = reward_function("baselines", baselines=LEXICAL, score="chrf", log_dir=tmp_path)
    values = _call(rewards, COMPLETIONS, REFERENCES)
    batch = _read(rewards.logs[0])
    inspect_run = _read(score(REFERENCES, COMPLETIONS, "baselines", baselines=LEXICAL, log_dir=tmp_path).log.location)
    assert values == [s.scores["lexical_baselines"].value["chrf"] for s in inspect_run.samples]
    # The pairs, their scores (values, answers, metadata) and every metric are those of Inspect's own run...
    assert batch.eval.metadata[SCORED_IN_BATCH] is True and all(not s.events for s in batch.samples)
    assert [s.scores for s in batch.samples] == [s.scores for s in inspect_run.samples]
    assert [(s.id, s.input, s.target, s.metadata, s.output.completion) for s in batch.samples] == [
        (s.id, s.input, s.target, s.metadata, s.output.completion) for s in inspect_run.samples
    ]
    assert [[m.text for m in s.messages] for s in batch.samples] == [
        [m.text for m in s.messages] for s in inspect_run.samples
    ]
    assert batch.results == inspect_run.results and batch.reductions == inspect_run.reductions
    # ... and so is the header: the task, its arguments, data, scorers, metrics and plan.
    for part in ("task", "task_version", "task_args", "task_args_passed", "dataset", "scorers", "metrics", "model"):
        assert getattr(batch.eval, part) == getattr(inspect_run.eval, part), part
    assert batch.plan == inspect_run.plan and batch.status == "success"
    own = {"reward", SCORED_IN_BATCH}
    assert {k: v for k, v in batch.eval.metadata.items() if k not in own} == inspect_run.eval.metadata
    assert run_figures(batch).summary_check == "equal"


def test_lexical_rewards_equal_the_metrics_computed_directly(tmp_path):
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import CHRF

    rouge = _call(reward_function("baselines", baselines="rouge_l", log_dir=tmp_path), COMPLETIONS, REFERENCES)
    chrf = _call(reward_function("baselines", baselines="chrf", log_dir=tmp_path), COMPLETIONS, REFERENCES)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    assert rouge == [scorer.score(r, c)["rougeL"].fmeasure for r, c in zip(REFERENCES, COMPLETIONS)]
    assert chrf == [CHRF().sentence_score(c, [r]).score / 100 for r, c in zip(REFERENCES, COMPLETIONS)]


def test_a_lexical_reward_goes_through_inspects_loop_when_eval_args_change_how_samples_run(tmp_path):
    looped = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path, eval_args={"fail_on_error": 0.5})
    batched = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path)
    assert _call(looped, COMPLETIONS, REFERENCES) == _call(batched, COMPLETIONS, REFERENCES)
    log = _read(looped.logs[0])
    assert SCORED_IN_BATCH not in log.eval.metadata and all(s.events for s in log.samples)


def test_only_a_model_free_task_with_plain_eval_args_is_batch_scorable(tmp_path):
    def built(metric: str, judge: str | None = None) -> Any:
        return build_task(
            metric, REFERENCES[:1], COMPLETIONS[:1], judge=judge, ids=None, log_dir=tmp_path, params={}
        ).task

    plain = eval_arguments(tmp_path, {"max_connections": 8})
    assert batch_scorable(built("baselines"), plain)
    assert not batch_scorable(built("baselines"), {**plain, "epochs": 2})
    assert not batch_scorable(built("green", "mockllm/model"), plain)


def test_pairs_are_split_into_consecutive_runs_of_even_size():
    pairs = [(str(i), f"c{i}") for i in range(7)]
    runs = split_pairs(pairs, 3)
    assert [len(run) for run in runs] == [3, 2, 2] and [p for run in runs for p in run] == pairs
    assert split_pairs(pairs[:2], 4) == [[pairs[0]], [pairs[1]]]
    assert split_pairs(pairs, 1) == [pairs]


def test_the_connection_limit_is_shared_among_the_parts():
    assert part_eval_args({"max_connections": 64, "max_retries": 2}, 2) == {"max_connections": 32, "max_retries": 2}
    assert part_eval_args({"max_connections": 5}, 2) == {"max_connections": 3}
    assert part_eval_args({"max_connections": 5}, 1) == {"max_connections": 5}
    assert part_eval_args({"max_retries": 2}, 3) == {"max_retries": 2}


def test_bad_worker_settings_are_refused_when_the_function_is_made():
    for workers in (0, -1, 1.5, True):
        with pytest.raises(InputError, match="workers must be a whole number of at least 1"):
            reward_function("baselines", workers=workers)
    with pytest.raises(InputError, match="sends the judge to worker processes"):
        reward_function("green", judge=get_model("mockllm/model"), workers=2)
    reward_function("green", judge=get_model("mockllm/model"), workers=1)  # one process needs nothing sent


def _pair_requests(requests: list[dict[str, Any]], reference: str, completion: str) -> int:
    prompts = [r["messages"][-1]["content"] for r in requests]
    return sum(reference in p and completion in p for p in prompts)


@pytest.mark.slow
def test_workers_give_the_same_rewards_in_order_one_log_each_and_judge_each_pair_once(judge, tmp_path):
    references = REFERENCES + REFERENCES[:2] + [REFERENCES[1]]
    completions = COMPLETIONS + COMPLETIONS[:2] + [COMPLETIONS[0]]  # two repeats, and a completion on another report
    expected = _call(reward_function("green", judge=JUDGE, log_dir=tmp_path / "one"), completions, references)
    judge.requests.clear()
    split = reward_function("green", judge=JUDGE, log_dir=tmp_path / "two", workers=2)
    try:
        assert _call(split, completions, references, trainer_state=SimpleNamespace(global_step=3)) == expected
        logs = [_read(location) for location in split.logs]
        assert [log.eval.metadata["reward"] for log in logs] == [
            {"function": "green", "step": 3, "part": part, "parts": 2} for part in (1, 2)
        ]
        distinct = list(dict.fromkeys(zip(references, completions)))
        assert [(s.metadata["reference"], s.metadata["candidate"]) for log in logs for s in log.samples] == distinct
        assert [len(log.samples) for log in logs] == [3, 2] and split.judged == 5
        # Each distinct pair was asked once across both workers (the garbled one again by the judge's retries).
        for reference, completion in distinct:
            assert _pair_requests(judge.requests, reference, completion) == (2 if GARBAGE in completion else 1)
        judge.requests.clear()
        assert _call(split, completions, references) == expected and judge.requests == [] and len(split.logs) == 2
        # A worker that stopped is replaced by the next call that needs it.
        stopped = split._pool._workers[0].process  # type: ignore[union-attr]
        stopped.kill()
        stopped.wait()
        again = _call(split, ["Normal chest.", "Clear lungs."], REFERENCES[:2])
        assert len(again) == 2 and len(split.logs) == 4
    finally:
        split.close()


@pytest.mark.slow
def test_a_refusal_in_a_worker_is_raised_here_and_leaves_no_file(tmp_path):
    wrong = reward_function("baselines", baselines="rouge_l", score="bleu_9", log_dir=tmp_path, workers=2)
    try:
        with pytest.raises(InputError, match="gives no score 'bleu_9'; it gives: rouge_l"):
            _call(wrong, COMPLETIONS, REFERENCES)
    finally:
        wrong.close()
    assert [p for p in Path(tmp_path).rglob("*") if p.is_file()] == [] and wrong.logs == []
