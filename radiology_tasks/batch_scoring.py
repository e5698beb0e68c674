"""Scoring a task's samples in one pass of its own solver and scorers, with the log Inspect writes for the task.

A lexical reward costs the metric a millisecond or two per completion, and a judged reward the judge's answer;
Inspect's sample loop costs several times that in CPU per sample (its transcript spans and events, the live sample
record, a log record written and summarised per sample), so at a training batch's size the loop, not the metric
or the judge, sets the rate. A task whose solver only replays the given candidate, and whose scorers either call no
model or call only the task's ``grader`` through `radiology_tasks.core.judge`, needs none of that loop:
`score_in_batch` calls the task's own solver and scorers on each sample, as Inspect's loop would, the samples
concurrently (at most the judge's ``max_connections`` at once), and writes the log with Inspect's own functions:

- Inspect runs the task over a sample source that gives no sample, so the header (task, arguments, version,
  metadata, model roles, scorers, metrics, plan, configuration, packages, revision) is the one Inspect writes for
  the task; the dataset record it could not see (name, size, sample ids) is set from the task's dataset, as Inspect
  records it in a run.
- each sample runs in a context of its own, with the task's model roles bound as Inspect binds them, and is
  recorded as Inspect records one (input, target, messages, output, scores, metadata, store, timing, the judge's
  token usage), with its judge calls as the transcript (each call's model event: the prompt sent, the answer,
  the usage) and no other event: the log's task metadata says so (`SCORED_IN_BATCH`);
- the judge is the task's ``grader`` with the operational settings an evaluation gives every role
  (``max_connections``, ``max_retries``, ``timeout``), so Inspect's connection limit, retries and cache apply to
  its calls as in a run;
- the results (each metric of the task, its reductions) are computed by Inspect's `recompute_metrics` from the
  samples, and the file is written by Inspect's `write_eval_log_async`. A sample that raises (a configuration
  error the judge scorer does not turn into an unscored result, such as a refused API key) ends the batch, and the
  log is written with that error and the status ``error``, as Inspect ends a failed run.

The values are those of ``inspect eval``: the same solver and scorer functions compute them (tested equal).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import time
import traceback
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, cast

from inspect_ai import SampleSource, Task, task_with
from inspect_ai.dataset import Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import (
    EvalDataset,
    EvalError,
    EvalLog,
    EvalSample,
    recompute_metrics,
    transcript,
    write_eval_log_async,
)
from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, Model, ModelName, ModelOutput, ModelUsage
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import Generate, Solver, TaskState
from inspect_ai.util import registry_info

from radiology_tasks.api import run_eval
from radiology_tasks.core.inspect_compat import init_model_roles
from radiology_tasks.core.judge import GRADER_ROLE

MODEL_FREE_SOLVERS = frozenset({"radiology_tasks/replay_candidate"})
"""Registered solvers that call no model and need nothing of Inspect's sample context."""

MODEL_FREE_SCORERS = frozenset({"radiology_tasks/lexical_baselines"})
"""Registered scorers that call no model and need nothing of Inspect's sample context."""

JUDGE_SCORERS = frozenset({"radiology_tasks/report_judge"})
"""Registered scorers whose only model is the task's ``grader`` (found with `radiology_tasks.core.judge`) and which
need nothing else of Inspect's sample context: the GREEN/VERT judge."""

ROLE_SETTINGS = ("max_connections", "max_retries", "timeout")
"""Eval arguments an evaluation passes on to every model role it binds (Inspect's operational settings)."""

BATCH_EVAL_ARGS = frozenset(
    {
        "display",
        "log_dir",
        "log_format",
        "log_level",
        "log_level_transcript",
        "log_realtime",
        "log_buffer",
        "log_shared",
        "log_images",
        "log_model_api",
        "metadata",
        "model",
        "score_display",
        "tags",
        "trace",
        *ROLE_SETTINGS,
    }
)
"""Arguments of Inspect's eval that change nothing about how the samples of a batch-scorable task run: a call giving
any other (``epochs``, ``limit``, ``fail_on_error``, ``max_samples``, ...) goes through Inspect's sample loop."""

SCORED_IN_BATCH = "scored_in_batch"
"""Key of the task metadata of a log whose samples were scored by `score_in_batch` (True), so a reader knows why
its samples' transcripts hold only the judge's calls."""


def batch_scorable(task: Task, eval_args: Mapping[str, Any]) -> bool:
    """Whether scoring `task`'s samples in one pass gives what Inspect's sample loop gives: its solver calls no model,
    its scorers call no model or only its bound ``grader`` and need no other sample context, it runs each sample once
    with no setup, sandbox or cleanup of its own, and `eval_args` changes nothing about how samples run."""
    names = [_registered_name(scorer) for scorer in task.scorer or []]
    judged = any(name in JUDGE_SCORERS for name in names)
    return (
        _registered_name(task.solver) in MODEL_FREE_SOLVERS
        and bool(names)
        and all(name in MODEL_FREE_SCORERS | JUDGE_SCORERS for name in names)
        and (not judged or isinstance((task.model_roles or {}).get(GRADER_ROLE), Model))
        and task.epochs in (None, 1)
        and task.setup is None
        and task.sandbox is None
        and set(eval_args) <= BATCH_EVAL_ARGS
    )


def _registered_name(component: Solver | Scorer) -> str | None:
    try:
        return registry_info(component).name
    except ValueError:  # a component Inspect's registry does not know
        return None


@dataclass(frozen=True)
class _Run:
    """What every sample of one batch shares: the task's solver, its scorers by logged name, its model roles (each
    with the evaluation's operational settings), the name of the model under test, and whether every judge call's
    raw request and response are logged (``log_model_api``)."""

    solver: Solver
    scorers: list[tuple[str, Scorer]]
    roles: dict[str, Model]
    model: str
    model_api: bool


async def score_in_batch(task: Task, args: dict[str, Any], kept: dict[str, dict[str, Score]]) -> EvalLog:
    """Score every sample of a `batch_scorable` task in one pass and write its log (see the module's docstring).

    Args:
        task: The task (changed in place: it is used once).
        args: Arguments of Inspect's eval, as `radiology_tasks.api.run_eval` takes them.
        kept: Filled with each sample's scores by scorer name, by sample id (as `radiology_tasks.api.keep_scores`).

    Returns:
        The log as written (with its samples); the header run's log when that run did not succeed; the header
        run's log, written with the status ``error`` and the error, when a sample raised.
    """
    dataset = task.dataset
    metadata = {**(task.metadata or {}), SCORED_IN_BATCH: True}
    log = await run_eval(task_with(task, dataset=SampleSource(), metadata=metadata), args)
    if log.status != "success":
        return log
    names = [scorer.name for scorer in log.eval.scorers or []]
    scorers = list(zip(names, task.scorer or []))
    run = _Run(task.solver, scorers, _role_models(task, args), log.eval.model, bool(args.get("log_model_api")))
    try:
        samples = await _scored_samples(list(dataset), run, _sample_limit(run, args))
    except Exception as error:
        return await _write_failed(log, error)
    for sample in samples:
        kept[str(sample.id)] = dict(sample.scores or {})
    log.eval.dataset = EvalDataset(
        name=dataset.name,
        location=dataset.location,
        samples=len(dataset),
        sample_ids=[sample.id for sample in samples],
        shuffled=dataset.shuffled,
    )
    log.samples = samples
    log.stats.model_usage, log.stats.role_usage = _total_usage(samples)
    recompute_metrics(log)
    log.stats.completed_at = _now()
    await write_eval_log_async(log, log.location)
    return log


def _role_models(task: Task, args: Mapping[str, Any]) -> dict[str, Model]:
    """The task's model roles, each a copy given the evaluation's operational settings (`ROLE_SETTINGS`), as an
    evaluation passes them on to every role."""
    settings = GenerateConfig(**{key: args[key] for key in ROLE_SETTINGS if args.get(key) is not None})
    roles: dict[str, Model] = {}
    for role, model in (task.model_roles or {}).items():
        if isinstance(model, Model):
            bound = copy.copy(model)
            bound.config = model.config.merge(settings)
            roles[role] = bound
    return roles


def _sample_limit(run: _Run, args: Mapping[str, Any]) -> int:
    """How many samples run at once: the judge's connection limit (a model-free task's samples never wait, so one
    at a time loses nothing)."""
    judge = run.roles.get(GRADER_ROLE)
    if judge is None:
        return 1
    return int(args.get("max_connections") or judge.config.max_connections or judge.api.max_connections())


async def _scored_samples(samples: list[Sample], run: _Run, limit: int) -> list[EvalSample]:
    """Each sample scored in an asyncio task of its own, with a fresh context (its own transcript and model roles),
    at most `limit` at once; in the dataset's order."""
    gate = asyncio.Semaphore(limit)

    async def one(sample: Sample) -> EvalSample:
        async with gate:
            return await _scored_sample(sample, run)

    # A task copies the context it is created in: created inside an empty one, each starts from Inspect's defaults.
    tasks = [contextvars.Context().run(asyncio.ensure_future, one(sample)) for sample in samples]
    try:
        return list(await asyncio.gather(*tasks))
    except BaseException:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise


async def _write_failed(log: EvalLog, error: Exception) -> EvalLog:
    """Write the header run's log as a failed run's, with the error that ended the batch (the first sample's to
    raise), and return it."""
    trace = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    log.status = "error"
    log.error = EvalError(message=f"{type(error).__name__}: {error}", traceback=trace, traceback_ansi=trace)
    log.stats.completed_at = _now()
    await write_eval_log_async(log, log.location)
    return log


async def _no_model(*args: Any, **kwargs: Any) -> TaskState:
    raise RuntimeError("a task scored in one batch called the model under test")


async def _scored_sample(sample: Sample, run: _Run) -> EvalSample:
    """Run the solver and scorers on one sample and record it as Inspect's sample loop records it, with the judge's
    calls as its only events."""
    init_model_roles(dict(run.roles))
    started, clock = _now(), time.monotonic()
    # Inspect's loop copies the sample first so that a solver's changes stay out of a dataset run again; the
    # task given to `score_in_batch` is used once, so its samples are not copied.
    target = Target(sample.target)
    state = TaskState(
        model=ModelName(run.model),
        sample_id=sample.id if sample.id is not None else 0,
        epoch=1,
        input=sample.input,
        target=target,
        choices=sample.choices,
        messages=_input_messages(sample),
        metadata=sample.metadata or {},
    )
    state = await run.solver(state, cast(Generate, _no_model))
    scores: dict[str, Score] = {}
    for name, scorer in run.scorers:
        score = await scorer(state, target)
        if score is not None:
            scores[name] = score
    elapsed = round(time.monotonic() - clock, 3)
    events = _judge_calls(run) if run.roles else []
    model_usage, role_usage = _usage(events)
    return EvalSample(
        id=state.sample_id,
        epoch=1,
        input=sample.input,
        choices=sample.choices,
        target=sample.target,
        description=sample.description,
        metadata=state.metadata or {},
        sandbox=sample.sandbox,
        setup=sample.setup,
        messages=state.messages,
        output=state.output if state.output else ModelOutput(model=run.model),
        scores=scores,
        store=dict(state.store.items()),
        events=list(events),
        model_usage=model_usage,
        role_usage=role_usage,
        uuid=state.uuid,
        error_retries=[],
        turn_count=0,
        started_at=started,
        completed_at=_now(),
        total_time=elapsed,
        working_time=elapsed,
    )


def _judge_calls(run: _Run) -> list[ModelEvent]:
    """The model calls of this sample's transcript, as Inspect logs them by default: the provider's raw request and
    response are kept for a failed call only (Inspect keeps a few successful ones per model; with one transcript a
    sample, that would be every call), and for every call when the run sets ``log_model_api``."""
    events = [event for event in transcript().events if isinstance(event, ModelEvent)]
    if not run.model_api:
        for event in events:
            if event.call is not None and not event.call.error:
                event.call = None
    return events


def _usage(events: Sequence[ModelEvent]) -> tuple[dict[str, ModelUsage], dict[str, ModelUsage]]:
    """Token usage by model and by role of the given model calls."""
    by_model: dict[str, ModelUsage] = {}
    by_role: dict[str, ModelUsage] = {}
    for event in events:
        usage = event.output.usage
        if usage is None:
            continue
        by_model[event.model] = by_model[event.model] + usage if event.model in by_model else usage
        if event.role is not None:
            by_role[event.role] = by_role[event.role] + usage if event.role in by_role else usage
    return by_model, by_role


def _total_usage(samples: Sequence[EvalSample]) -> tuple[dict[str, ModelUsage], dict[str, ModelUsage]]:
    """Token usage by model and by role over the samples, as a run's statistics hold it."""
    by_model: dict[str, ModelUsage] = {}
    by_role: dict[str, ModelUsage] = {}
    for sample in samples:
        for totals, usages in ((by_model, sample.model_usage), (by_role, sample.role_usage)):
            for name, usage in usages.items():
                totals[name] = totals[name] + usage if name in totals else usage
    return by_model, by_role


def _input_messages(sample: Sample) -> list[ChatMessage]:
    """The sample's input as the first messages of its state, as Inspect's loop makes them."""
    if isinstance(sample.input, str):
        return [ChatMessageUser(content=sample.input, source="input")]
    messages = copy.deepcopy(sample.input)
    for message in messages:
        message.source = "input"
    return messages


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()
