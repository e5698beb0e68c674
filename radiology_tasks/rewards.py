"""A report metric as a reinforcement-learning reward, in TRL's reward-function convention (`GRPOTrainer`).

    from radiology_tasks.rewards import reward_function
    green = reward_function("green", judge="openai-api/vllm/GREEN-RadLlama2-7b")
    trainer = GRPOTrainer(model=..., reward_funcs=[green], train_dataset=dataset_with_a_reference_column)

Each call scores one generation batch with the metric's registered task, built as `radiology_tasks.score` builds
it (`radiology_tasks.api`) and scored by its own solver and scorers: strict reading, constrained answers, reason
codes, and one Inspect log per call, so a training run's rewards can be read in ``inspect view``, step by step.
"""

from __future__ import annotations

import json
import math
import os
import pickle
import re
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from inspect_ai import task_with
from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from radiology_tasks.api import (
    Reference,
    SampleScore,
    build_task,
    check_params,
    eval_arguments,
    read_result,
    run_eval,
    task_function,
)
from radiology_tasks.batch_scoring import batch_scorable, score_in_batch
from radiology_tasks.core.collector import collector_paused
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.report_hook import local_path
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.core.task_options import option_names
from radiology_tasks.reward_workers import WorkerPool

REWARD_EVAL_DEFAULTS: dict[str, Any] = {"log_realtime": False, "score_display": False, "log_format": "json"}
"""Inspect settings of a reward call unless `eval_args` says otherwise: no live sample buffer for a running
evaluation (the finished log holds every sample; the buffer costs CPU per sample), no score display, and the log
in Inspect's JSON format, which Inspect writes about 30 times faster than its ``.eval`` archive (no per-sample
summary, condensing or compression; `bench/rewards.py` measures it) at about four times the size on disk: pass
``eval_args={"log_format": "eval"}`` for the compact form."""

SHARED_OPTIONS = frozenset(option_names(DataOptions)) | frozenset(option_names(JudgeOptions))
"""Task parameters every family shares: how the data is read and the judge called, not what a metric computes."""

NO_RESPONSE = "no_response"
"""Reason of an empty completion: the policy wrote no report, so no judge is asked."""


@dataclass(frozen=True)
class _Outcome:
    """One judged (reference, completion): the reward value, or None with the reason it is missing."""

    value: float | None
    reason: str | None


def completion_text(completion: Any) -> str:
    """The report a completion holds: the text itself, or the last assistant message of a conversation.

    Raises:
        InputError: a completion of another shape.
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence) and completion and all(isinstance(m, Mapping) for m in completion):
        content = [m for m in completion if m.get("role", "assistant") == "assistant"][-1:]
        if content:
            return _message_text(content[0].get("content"))
    raise InputError(f"a completion must be text or a list of chat messages, got {completion!r:.80}")


def _message_text(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, Sequence):
        return "".join(part.get("text", "") for part in content if isinstance(part, Mapping))
    raise InputError(f"a message's content must be text or a list of parts, got {content!r:.80}")


def default_name(metric: str, score: str | None, params: Mapping[str, Any]) -> str:
    """The name a reward function is logged under unless it is given one: what it computes, so two reward functions
    of one metric that compute different scores are told apart (TRL logs each as ``rewards/<name>/...``).

    The metric's short name, then the value of each of its own task parameters given (in name order; a comma-separated
    list as its items, a number or switch after its parameter's name), then the score key: ``green``,
    ``baselines_rouge_l``, ``baselines_bleu_chrf``, ``vert_rubric``, ``green_shots_2``, ``green_green_ec``. The
    shared data and judge options (`SHARED_OPTIONS`) are left out: they say how pairs are read and the judge is
    called, not what is computed.
    """
    parts = [metric.removeprefix("radiology_tasks/")]
    for parameter in sorted(set(params) - SHARED_OPTIONS):
        value = params[parameter]
        if isinstance(value, str):
            parts += [item for item in value.split(",") if item.strip()]
        elif isinstance(value, Sequence):
            parts += [str(item) for item in value]
        else:
            parts += [parameter, str(value)]
    parts += [score] if score else []
    return "_".join(re.sub(r"[^A-Za-z0-9.-]+", "_", part).strip("_") for part in parts)


def _reference_key(reference: Reference) -> str:
    return reference if isinstance(reference, str) else json.dumps(reference, sort_keys=True, default=str)


@dataclass(frozen=True)
class Judging:
    """What a reward function judges with, as sent to a worker process: the metric's task and its settings.

    Attributes:
        metric: The registered task.
        judge: The ``grader`` model.
        score: The score key rewarded (None: the task's main score).
        params: The task's ``-T`` parameters.
        log_dir: Where the logs go.
        eval_args: Arguments of Inspect's eval.
    """

    metric: str
    judge: str | Model | None
    score: str | None
    params: dict[str, Any]
    log_dir: str | None
    eval_args: dict[str, Any]


@dataclass(frozen=True)
class Part:
    """Some of a call's distinct pairs, judged in one Inspect evaluation (one log).

    Attributes:
        judging: The metric's task and settings.
        pairs: (reference, completion) pairs, in the call's order.
        reward: The log's ``reward`` task metadata (the function, the training step, the part).
    """

    judging: Judging
    pairs: list[tuple[Reference, str]]
    reward: dict[str, Any]


@dataclass(frozen=True)
class PartResult:
    """A judged part: each pair's outcome in the part's order, the log, and the judge's tokens."""

    outcomes: list[_Outcome]
    log: str
    tokens: int


async def judge_part(part: Part) -> PartResult:
    """Score a part's pairs with the metric's task in one Inspect evaluation, in this process.

    A task that calls no model or only its judge (a lexical, GREEN or VERT reward) is scored in one pass of its own
    solver and scorers (`radiology_tasks.batch_scoring`); other tasks run through Inspect's eval, queued with the
    evaluations this event loop is running (`run_eval`). Python's cyclic garbage collector is paused meanwhile
    (`radiology_tasks.core.collector` says why).

    Raises:
        InputError: the task refused the pairs or a parameter value, or gives no score `score` (the log and the
            pairs' file of the part are removed then).
    """
    with collector_paused():
        return await _judged_part(part)


async def _judged_part(part: Part) -> PartResult:
    """`judge_part` with the collector as it is."""
    judging = part.judging
    built = build_task(
        judging.metric,
        [reference for reference, _ in part.pairs],
        [completion for _, completion in part.pairs],
        judge=judging.judge,
        ids=None,
        log_dir=judging.log_dir,
        params=judging.params,
        eval_args=judging.eval_args,
    )
    task = task_with(built.task, metadata={**(built.task.metadata or {}), "reward": part.reward})
    args = eval_arguments(judging.log_dir, judging.eval_args)
    try:
        if batch_scorable(task, judging.eval_args):
            log = await score_in_batch(task, args, built.scores)
        else:
            log = await run_eval(task, args)
    except Exception:
        built.pairs.discard()
        raise
    result = read_result(log, built)
    key = judging.score or result.main
    if any(key not in sample.value for sample in result.samples):
        Path(local_path(log.location)).unlink(missing_ok=True)
        built.pairs.discard()
        given = ", ".join(dict.fromkeys(k for sample in result.samples for k in sample.value))
        raise InputError(f"{judging.metric} gives no score {key!r}; it gives: {given}")
    return PartResult([_outcome(sample, key) for sample in result.samples], log.location, _judge_tokens(log))


def _outcome(sample: SampleScore, key: str) -> _Outcome:
    reason = sample.reasons.get(key)
    number = sample.value[key]
    if reason is None and math.isnan(number):
        reason = "unscored"
    return _Outcome(None if reason is not None else number, reason)


def _judge_tokens(log: EvalLog) -> int:
    """Tokens the judge used in one evaluation (input and output), as Inspect counted them."""
    usage = log.stats.role_usage.get("grader") if log.stats and log.stats.role_usage else None
    return usage.total_tokens if usage else 0


def split_pairs(pairs: list[tuple[Reference, str]], parts: int) -> list[list[tuple[Reference, str]]]:
    """The pairs in at most `parts` consecutive runs of sizes differing by at most one (none empty)."""
    count = min(parts, len(pairs))
    size, extra = divmod(len(pairs), count)
    bounds = [index * size + min(index, extra) for index in range(count + 1)]
    return [pairs[start:end] for start, end in zip(bounds, bounds[1:])]


def part_eval_args(eval_args: Mapping[str, Any], parts: int) -> dict[str, Any]:
    """A part's eval arguments: `max_connections` shared among the parts (rounded up), so the judge is sent at most
    about as many requests at once as by one evaluation."""
    limit = eval_args.get("max_connections")
    if parts == 1 or not isinstance(limit, int):
        return dict(eval_args)
    return {**eval_args, "max_connections": -(-limit // parts)}


class ReportReward:
    """An async reward function over one metric; see `reward_function`."""

    def __init__(
        self,
        judging: Judging,
        reference_column: str,
        unscored_reward: float | None,
        name: str,
        cache_size: int,
        workers: int,
    ) -> None:
        self.judging = judging
        self.reference_column = reference_column
        self.unscored_reward = unscored_reward
        self.cache_size = cache_size
        self.workers = workers
        self.__name__ = name
        self._cache: OrderedDict[tuple[str, str], _Outcome] = OrderedDict()
        self._pool: WorkerPool | None = None
        self.judged = 0
        """Distinct (reference, completion) pairs sent to the metric's task so far."""
        self.logs: list[str] = []
        """The log files written: one per call that judged something, or one per worker process it used."""

    async def __call__(
        self,
        prompts: list[Any] | None = None,
        completions: list[Any] | None = None,
        *,
        trainer_state: Any = None,
        log_metric: Callable[[str, float], None] | None = None,
        log_extra: Callable[[str, list[Any]], None] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        """One reward per completion: the metric's score against the row's reference, or `unscored_reward`."""
        if completions is None:
            raise InputError("the reward function needs the completions (keyword 'completions')")
        if self.reference_column not in columns:
            raise InputError(
                f"no column {self.reference_column!r} among the dataset's columns ({', '.join(sorted(columns))}): "
                "pass reference_column= to reward_function"
            )
        references = list(columns[self.reference_column])
        if len(references) != len(completions):
            raise InputError(f"{len(completions)} completions and {len(references)} references")
        texts = [completion_text(c) for c in completions]
        keys = [(_reference_key(r), t) for r, t in zip(references, texts)]
        outcomes: dict[tuple[str, str], _Outcome] = {}
        to_judge: dict[tuple[str, str], tuple[Reference, str]] = {}
        for key, reference, text in zip(keys, references, texts):
            if not text.strip():
                outcomes[key] = _Outcome(None, NO_RESPONSE)
            elif key in self._cache:
                self._cache.move_to_end(key)
                outcomes[key] = self._cache[key]
            else:
                to_judge.setdefault(key, (reference, text))
        tokens = 0
        if to_judge:
            results = await self._judge(list(to_judge.values()), getattr(trainer_state, "global_step", None))
            judged = [outcome for result in results for outcome in result.outcomes]
            for key, outcome in zip(to_judge, judged):
                outcomes[key] = self._cache[key] = outcome
            while len(self._cache) > self.cache_size:
                self._cache.popitem(last=False)
            tokens = sum(result.tokens for result in results)
        rewards = [outcomes[key].value for key in keys]
        if log_metric is not None:
            missing = sum(value is None for value in rewards)
            log_metric(f"{self.__name__}/unscored_share", missing / len(rewards))
            log_metric(f"{self.__name__}/judge_tokens", float(tokens))
        if log_extra is not None:
            log_extra(f"{self.__name__}_unscored", [outcomes[key].reason for key in keys])
        return [self.unscored_reward if value is None else value for value in rewards]

    async def _judge(self, pairs: list[tuple[Reference, str]], step: int | None) -> list[PartResult]:
        """Judge the distinct pairs: in this process in one evaluation, or split among the worker processes, each
        judging its part in its own evaluation; the results in the pairs' order."""
        reward: dict[str, Any] = {"function": self.__name__, "step": step}
        if self.workers == 1:
            results = [await judge_part(Part(self.judging, pairs, reward))]
        else:
            runs = split_pairs(pairs, self.workers)
            judging = replace(self.judging, eval_args=part_eval_args(self.judging.eval_args, len(runs)))
            parts = [
                Part(judging, run, {**reward, "part": index, "parts": len(runs)} if len(runs) > 1 else reward)
                for index, run in enumerate(runs, 1)
            ]
            if self._pool is None:
                self._pool = WorkerPool(self.workers)
            results = await self._pool.map(judge_part, parts)
        self.logs += [result.log for result in results]
        self.judged += len(pairs)
        return results

    def close(self) -> None:
        """Stop the worker processes (a later call starts them again); nothing to do without workers."""
        if self._pool is not None:
            self._pool.close()
            self._pool = None


def reward_function(
    metric: str = "green",
    judge: str | Model | None = None,
    score: str | None = None,
    reference_column: str = "reference",
    unscored_reward: float | None = None,
    *,
    log_dir: str | os.PathLike[str] | None = None,
    eval_args: Mapping[str, Any] | None = None,
    name: str | None = None,
    cache_size: int = 65536,
    workers: int = 1,
    **params: Any,
) -> ReportReward:
    """A reward function for TRL's `GRPOTrainer` that scores each completion with a metric of this project.

    The trainer calls it with the prompts, the completions (text, or chat messages whose last assistant message
    is the report) and the dataset's columns; the reference is read from `reference_column` (a report, or a row
    of the flat layout, e.g. with ``qa`` questions for ``ct_finebench``), other columns are ignored. Each call
    judges the batch's distinct (reference, completion) pairs concurrently in one Inspect evaluation (the judge's
    connection limit, retries and cache apply) and writes one log, under ``<log_dir>``, with the training step in
    the task metadata (``reward.step``); a pair already scored by this function is taken from its cache. Reward
    functions awaited together share one evaluation. A task that calls no model or only its judge (``baselines``,
    ``green``, ``vert``) is scored in one pass of its own solver and scorers, without Inspect's per-sample machinery
    (`radiology_tasks.batch_scoring`); the log is in Inspect's JSON format unless `eval_args` sets ``log_format``.

    Args:
        metric: A registered task that scores given candidates (`radiology_tasks.api.scorable_tasks` lists them:
            ``green``, ``vert``, ``crimson``, ``ct_finebench``, ``ran_score``, ``baselines``, ``metric_suite``).
        judge: The ``grader`` model (a name Inspect knows, or a `Model`); not needed by ``baselines``.
        score: The score key to reward (default: the metric's main score, the first key of its value dict:
            ``green``, ``vert``, ``ct_finebench``, ``label_agreement``, or the first metric in ``baselines``).
        reference_column: The dataset column holding the reference.
        unscored_reward: The reward of a completion the metric leaves unscored (an unreadable judge answer, an
            empty completion). None: TRL's "no reward from this function".
        log_dir: Where the logs and their data files go (default: ``INSPECT_LOG_DIR``, else ``./logs``).
        eval_args: Further arguments of `inspect_ai.eval_async` (``max_connections``, ``max_retries``, ...),
            over `REWARD_EVAL_DEFAULTS`.
        name: The name TRL logs the reward under (default: `default_name`, e.g. ``baselines_rouge_l``).
        cache_size: How many distinct (reference, completion) results to keep.
        workers: Worker processes a call's distinct pairs are split among (1: judged in this process), each with
            its own evaluation and log (``reward.part`` of ``reward.parts``) and a share of ``max_connections``;
            started at the first call, stopped by `ReportReward.close`. Above 1, `judge` must be a model name.
        **params: The task's ``-T`` parameters (``detail="brief"``, ``baselines="rouge_l"``, ...).

    Raises:
        InputError: an unknown metric or parameter (checked now); a parameter value the task refuses, or no
            judge for a metric that needs one, is refused by the first call before its judge is asked, and a
            `score` the metric does not give by the first call that judged. A refused call leaves no file behind.
    """
    check_params(metric, task_function(metric), params)
    _check_sizes(cache_size, workers)
    folder = None if log_dir is None else str(log_dir)
    judging = Judging(metric, judge, score, dict(params), folder, {**REWARD_EVAL_DEFAULTS, **(eval_args or {})})
    if workers > 1:
        check_sendable(judging)
    return ReportReward(
        judging, reference_column, unscored_reward, name or default_name(metric, score, params), cache_size, workers
    )


def _check_sizes(cache_size: int, workers: int) -> None:
    """Refuse a negative cache size and a worker count that is not a whole number of at least 1."""
    if cache_size < 0:
        raise InputError(f"cache_size must be at least 0, got {cache_size}")
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers must be a whole number of at least 1, got {workers!r}")


def check_sendable(judging: Judging) -> None:
    """Refuse settings that cannot be sent to a worker process.

    Raises:
        InputError: naming what cannot be sent.
    """
    for what, value in (("judge", judging.judge), ("eval_args", judging.eval_args), ("parameters", judging.params)):
        try:
            pickle.dumps(value)
        except Exception as error:
            raise InputError(
                f"workers > 1 sends the {what} to worker processes, and {value!r:.80} cannot be sent ({error}); "
                "give the judge as a model name"
            ) from None
