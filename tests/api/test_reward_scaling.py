"""Rewards at training scale: a lexical reward scored in one loop with the log ``inspect eval`` writes for it, and a
call's pairs split among worker processes (the same rewards in order, one log per worker, each pair judged once)."""

from __future__ import annotations

import asyncio
import threading
import time
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
from tests.api.scripted_judge import GARBAGE, reply
from tests.openai_stub import StubReply, openai_stub

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


def test_a_reward_log_is_inspects_json_unless_eval_args_set_the_format(tmp_path):
    default = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path)
    compact = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path, eval_args={"log_format": "eval"})
    assert _call(default, COMPLETIONS, REFERENCES) == _call(compact, COMPLETIONS, REFERENCES)
    assert [Path(default.logs[0]).suffix, Path(compact.logs[0]).suffix] == [".json", ".eval"]
    json_log, eval_log = _read(default.logs[0]), _read(compact.logs[0])
    assert [s.scores for s in json_log.samples] == [s.scores for s in eval_log.samples]
    assert json_log.results == eval_log.results and json_log.eval.task_args == eval_log.eval.task_args


def test_lexical_rewards_equal_the_metrics_computed_directly(tmp_path):
    from rouge_score import rouge_scorer
    from sacrebleu.metrics import CHRF

    rouge = _call(reward_function("baselines", baselines="rouge_l", log_dir=tmp_path), COMPLETIONS, REFERENCES)
    chrf = _call(reward_function("baselines", baselines="chrf", log_dir=tmp_path), COMPLETIONS, REFERENCES)
    scorer = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    assert rouge == [scorer.score(r, c)["rougeL"].fmeasure for r, c in zip(REFERENCES, COMPLETIONS)]
    assert chrf == [CHRF().sentence_score(c, [r]).score / 100 for r, c in zip(REFERENCES, COMPLETIONS)]


@pytest.mark.parametrize("eval_args", [{}, {"fail_on_error": 0.5}], ids=["one pass", "inspect's loop"])
def test_a_reward_call_pauses_the_garbage_collector_while_it_scores_and_restores_it(tmp_path, monkeypatch, eval_args):
    import gc

    import radiology_tasks.lexical as lexical

    seen: list[bool] = []
    scores = lexical.lexical_scores

    def watched(reference: str, candidate: str, keys: Any) -> Any:
        seen.append(gc.isenabled())
        return scores(reference, candidate, keys)

    monkeypatch.setattr(lexical, "lexical_scores", watched)
    rewards = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path, eval_args=eval_args)
    assert gc.isenabled()
    _call(rewards, COMPLETIONS, REFERENCES)
    assert seen == [False] * len(COMPLETIONS) and gc.isenabled()
    # A caller that runs with the collector off finds it off after the call; a call that raises restores it too.
    gc.disable()
    try:
        _call(rewards, [c + " again" for c in COMPLETIONS], REFERENCES)
        assert not gc.isenabled()
    finally:
        gc.enable()
    wrong = reward_function("baselines", baselines="rouge_l", score="bleu_9", log_dir=tmp_path, eval_args=eval_args)
    with pytest.raises(InputError, match="bleu_9"):
        _call(wrong, COMPLETIONS, REFERENCES)
    assert gc.isenabled()


def test_a_lexical_reward_goes_through_inspects_loop_when_eval_args_change_how_samples_run(tmp_path):
    looped = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path, eval_args={"fail_on_error": 0.5})
    batched = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path)
    assert _call(looped, COMPLETIONS, REFERENCES) == _call(batched, COMPLETIONS, REFERENCES)
    log = _read(looped.logs[0])
    assert SCORED_IN_BATCH not in log.eval.metadata and all(s.events for s in log.samples)


def test_a_task_is_batch_scorable_when_its_scorers_need_no_model_or_only_its_bound_judge(tmp_path):
    def built(metric: str, judge: str | None = None) -> Any:
        return build_task(
            metric, REFERENCES[:1], COMPLETIONS[:1], judge=judge, ids=None, log_dir=tmp_path, params={}
        ).task

    plain = eval_arguments(tmp_path, {"max_connections": 8})
    assert batch_scorable(built("baselines"), plain)
    assert not batch_scorable(built("baselines"), {**plain, "epochs": 2})
    assert batch_scorable(built("green", "mockllm/model"), {**plain, "max_retries": 2, "timeout": 30})
    assert not batch_scorable(built("green", "mockllm/model"), {**plain, "max_samples": 4})
    unbound = built("green", "mockllm/model")
    unbound.model_roles = None
    assert not batch_scorable(unbound, plain)  # no grader bound: Inspect's loop finds the judge (or says there is none)
    assert not batch_scorable(built("crimson", "mockllm/model"), plain)  # a scorer not known to need only its judge


def test_a_judged_reward_is_scored_in_one_pass_with_the_log_inspect_eval_writes(judge, tmp_path):
    rewards = reward_function("green", judge=JUDGE, log_dir=tmp_path)
    values = _call(rewards, COMPLETIONS, REFERENCES)
    batch = _read(rewards.logs[0])
    location = score(REFERENCES, COMPLETIONS, "green", judge=JUDGE, log_dir=tmp_path).log.location
    inspect_run = read_eval_log(local_path(location), resolve_attachments=True)
    expected = [s.scores["report_judge"].value["green"] for s in inspect_run.samples]
    # The garbled pair's answer cannot be read: unscored (None), which its log counts at the worst score.
    assert values == [expected[0], expected[1], None, expected[3]] and expected[2] == 0.0
    assert batch.eval.metadata[SCORED_IN_BATCH] is True and batch.status == "success"
    as_json = [[score.model_dump_json() for score in s.scores.values()] for s in inspect_run.samples]  # NaN == NaN
    assert [[score.model_dump_json() for score in s.scores.values()] for s in batch.samples] == as_json
    assert batch.model_dump_json(include={"results", "reductions"}) == inspect_run.model_dump_json(
        include={"results", "reductions"}
    )
    for part in ("task", "task_args", "dataset", "scorers", "metrics", "model", "model_roles"):
        assert getattr(batch.eval, part) == getattr(inspect_run.eval, part), part
    # Each sample's transcript is its judge calls, as Inspect logged them: the prompt sent, the answer, the usage
    # (the garbled pair's re-asks included); the raw provider exchange only for a call that failed.
    calls = [[e for e in s.events if e.event == "model"] for s in inspect_run.samples]
    assert [[e.event for e in s.events] for s in batch.samples] == [["model"] * len(c) for c in calls]
    assert [[([m.text for m in e.input], e.output.completion, e.role) for e in s.events] for s in batch.samples] == [
        [([m.text for m in e.input], e.output.completion, e.role) for e in c] for c in calls
    ]
    assert all(e.call is None for s in batch.samples for e in s.events)
    assert [s.role_usage for s in batch.samples] == [s.role_usage for s in inspect_run.samples]
    assert batch.stats.role_usage == inspect_run.stats.role_usage
    assert batch.stats.model_usage == inspect_run.stats.model_usage
    assert run_figures(batch).summary_check == "equal"


def test_log_model_api_keeps_every_judge_calls_raw_exchange(judge, tmp_path):
    rewards = reward_function("green", judge=JUDGE, log_dir=tmp_path, eval_args={"log_model_api": True})
    _call(rewards, COMPLETIONS[:2], REFERENCES[:2])
    assert all(e.call is not None and e.call.request for s in _read(rewards.logs[0]).samples for e in s.events)


def test_a_judged_batch_sends_at_most_max_connections_requests_at_once(tmp_path, monkeypatch):
    lock, state = threading.Lock(), {"now": 0, "most": 0}

    def slow_reply(body: dict[str, Any]) -> str:
        with lock:
            state["now"] += 1
            state["most"] = max(state["most"], state["now"])
        time.sleep(0.05)
        with lock:
            state["now"] -= 1
        return reply(body)

    with openai_stub(slow_reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        completions = [f"{c} ({i})" for i in range(3) for c in COMPLETIONS]
        rewards = reward_function("green", judge=JUDGE, log_dir=tmp_path, eval_args={"max_connections": 3})
        _call(rewards, completions, REFERENCES * 3)
    assert state["most"] == 3


def test_a_judge_that_refuses_the_key_fails_the_call_with_the_error_in_the_log(tmp_path, monkeypatch):
    refused = StubReply(status=401, error={"message": "Incorrect API key provided", "code": "invalid_api_key"})
    with openai_stub(lambda body: refused) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        rewards = reward_function("green", judge=JUDGE, log_dir=tmp_path, eval_args={"max_retries": 0})
        with pytest.raises(RuntimeError, match="Incorrect API key"):
            _call(rewards, COMPLETIONS, REFERENCES)
    (written,) = [path for path in tmp_path.iterdir() if path.suffix == ".json"]
    log = read_eval_log(str(written))
    assert log.status == "error" and "Incorrect API key" in log.error.message and not log.samples


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


def test_a_batch_gives_the_judge_the_evaluations_operational_settings_on_a_copy(tmp_path):
    from radiology_tasks.batch_scoring import _role_models

    task = build_task(
        "green", REFERENCES[:1], COMPLETIONS[:1], judge="mockllm/model", ids=None, log_dir=tmp_path, params={}
    ).task
    args = {"max_connections": 7, "max_retries": 2, "timeout": 30, "max_samples": 99}
    ((role, judge),) = _role_models(task, args).items()
    assert role == "grader" and (judge.config.max_connections, judge.config.max_retries, judge.config.timeout) == (
        7,
        2,
        30,
    )
    assert judge is not task.model_roles["grader"] and task.model_roles["grader"].config.max_connections is None
    assert _role_models(task, {})["grader"].config.max_retries is None
