"""Scoring the samples of a task that calls no model in one loop, with the log Inspect writes for the task.

A lexical reward costs the metric a millisecond or two per completion; Inspect's sample loop costs several times
that per sample (its transcript and events, the live sample record, a log record written and summarised per
sample), so at a training batch's size the loop, not the metric, sets the rate. A task whose solver only replays
the given candidate and whose scorers only compute lexical scores needs none of that loop: `score_in_batch` calls
the task's own solver and scorer on each sample in turn, as Inspect's loop would, and writes the log with Inspect's
own functions:

- Inspect runs the task over a sample source that gives no sample, so the header (task, arguments, version,
  metadata, scorers, metrics, plan, configuration, packages, revision) is the one Inspect writes for the task;
  the dataset record it could not see (name, size, sample ids) is set from the task's dataset, as Inspect records
  it in a run.
- each sample is recorded as Inspect records one (input, target, messages, output, scores, metadata, store,
  timing), without the transcript: the log's task metadata says so (`SCORED_IN_BATCH`);
- the results (each metric of the task, its reductions) are computed by Inspect's `recompute_metrics` from the
  samples, and the file is written by Inspect's `write_eval_log_async`.

The values are those of ``inspect eval``: the same solver and scorer functions compute them (tested equal).
"""

from __future__ import annotations

import copy
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any

from inspect_ai import SampleSource, Task, task_with
from inspect_ai.dataset import Sample
from inspect_ai.log import EvalDataset, EvalLog, EvalSample, recompute_metrics, write_eval_log_async
from inspect_ai.model import ChatMessage, ChatMessageUser, ModelName, ModelOutput
from inspect_ai.scorer import Score, Scorer, Target
from inspect_ai.solver import Solver, TaskState
from inspect_ai.util import registry_info

from radiology_tasks.api import run_eval

MODEL_FREE_SOLVERS = frozenset({"radiology_tasks/replay_candidate"})
"""Registered solvers that call no model and need nothing of Inspect's sample context."""

MODEL_FREE_SCORERS = frozenset({"radiology_tasks/lexical_baselines"})
"""Registered scorers that call no model and need nothing of Inspect's sample context."""

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
        "max_connections",
        "max_retries",
        "metadata",
        "model",
        "score_display",
        "tags",
        "timeout",
        "trace",
    }
)
"""Arguments of Inspect's eval that change nothing about how a model-free task's samples run: a call giving any
other (``epochs``, ``limit``, ``fail_on_error``, ...) goes through Inspect's sample loop."""

SCORED_IN_BATCH = "scored_in_batch"
"""Key of the task metadata of a log whose samples were scored by `score_in_batch` (True), so a reader knows why
its samples have no transcript."""


def batch_scorable(task: Task, eval_args: Mapping[str, Any]) -> bool:
    """Whether scoring `task`'s samples in one loop gives what Inspect's sample loop gives: its solver and scorers
    call no model and need no sample context, it runs each sample once with no setup, sandbox or cleanup of its own,
    and `eval_args` changes nothing about how samples run."""
    scorers = task.scorer or []
    return (
        _registered_name(task.solver) in MODEL_FREE_SOLVERS
        and bool(scorers)
        and all(_registered_name(scorer) in MODEL_FREE_SCORERS for scorer in scorers)
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


async def score_in_batch(task: Task, args: dict[str, Any], kept: dict[str, dict[str, Score]]) -> EvalLog:
    """Score every sample of a `batch_scorable` task in one loop and write its log (see the module's docstring).

    Args:
        task: The task (changed in place: it is used once).
        args: Arguments of Inspect's eval, as `radiology_tasks.api.run_eval` takes them.
        kept: Filled with each sample's scores by scorer name, by sample id (as `radiology_tasks.api.keep_scores`).

    Returns:
        The log as written (with its samples), or the header run's log when that run did not succeed.
    """
    dataset = task.dataset
    solver, scorers = task.solver, list(task.scorer or [])
    metadata = {**(task.metadata or {}), SCORED_IN_BATCH: True}
    log = await run_eval(task_with(task, dataset=SampleSource(), metadata=metadata), args)
    if log.status != "success":
        return log
    names = [scorer.name for scorer in log.eval.scorers or []]
    samples = [await _scored_sample(sample, log.eval.model, solver, list(zip(names, scorers))) for sample in dataset]
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
    recompute_metrics(log)
    log.stats.completed_at = _now()
    await write_eval_log_async(log, log.location)
    return log


async def _no_model(*args: Any, **kwargs: Any) -> TaskState:
    raise RuntimeError("a task scored in one batch called its model")


async def _scored_sample(
    sample: Sample, model: str, solver: Solver, scorers: Sequence[tuple[str, Scorer]]
) -> EvalSample:
    """Run the solver and scorers on one sample and record it as Inspect's sample loop records it, but for the
    transcript."""
    started, clock = _now(), time.monotonic()
    # Inspect's loop copies the sample first so that a solver's changes stay out of a dataset run again; the
    # task given to `score_in_batch` is used once, so its samples are not copied.
    target = Target(sample.target)
    state = TaskState(
        model=ModelName(model),
        sample_id=sample.id if sample.id is not None else 0,
        epoch=1,
        input=sample.input,
        target=target,
        choices=sample.choices,
        messages=_input_messages(sample),
        metadata=sample.metadata or {},
    )
    state = await solver(state, _no_model)  # type: ignore[arg-type]
    scores: dict[str, Score] = {}
    for name, scorer in scorers:
        score = await scorer(state, target)
        if score is not None:
            scores[name] = score
    elapsed = round(time.monotonic() - clock, 3)
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
        output=state.output if state.output else ModelOutput(model=model),
        scores=scores,
        store=dict(state.store.items()),
        uuid=state.uuid,
        error_retries=[],
        turn_count=0,
        started_at=started,
        completed_at=_now(),
        total_time=elapsed,
        working_time=elapsed,
    )


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
