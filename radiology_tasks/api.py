"""Scoring report pairs from Python: a metric's registered task, run by Inspect's own eval over the pairs.

`score` writes the pairs as a JSONL file in the project's flat layout (radiology_tasks/data/README.md) beside the
log, builds the metric's registered task on it exactly as ``inspect eval radiology_tasks/<metric> -T data=FILE``
does, and runs it with `inspect_ai.eval`. The per-sample values are therefore those of the command line, the
log opens in ``inspect view`` and submits to the leaderboard like any other, and the data file it names stays
beside it.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import hashlib
import inspect
import json
import math
import os
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from inspect_ai import Task, eval_async, task_with
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, Model, get_model
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import families
from radiology_tasks.core.inspect_compat import (
    PrerequisiteError,
    init_active_model,
    init_display_type,
    init_model_roles,
)
from radiology_tasks.core.judge import GRADER_ROLE, NO_JUDGE_MESSAGE
from radiology_tasks.core.loading import load_options
from radiology_tasks.core.report_hook import quiet_report_hint
from radiology_tasks.core.run_report import report_of
from radiology_tasks.core.tables import DataError
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.core.task_options import option_names
from radiology_tasks.core.unscored import unscored_reason

Reference = str | Mapping[str, Any]
"""A reference report, or a row of the flat layout holding it under ``reference`` with further columns (``qa``
questions for CT-FineBench, ``indication``, ``modality``, expert scores, ...)."""

DATA_PARAMETERS = frozenset(option_names(DataOptions)) - {"expert_scale"}
"""Task parameters `score` sets itself or that would change which pairs are scored: refused in ``params``.

The data options' fields, but `expert_scale`, which changes how expert scores are read, not which pairs are scored."""

DISPLAY = "none"
"""Inspect's display unless the caller picks one (`eval_args={"display": "plain"}`): a training loop stays quiet."""


@dataclass(frozen=True)
class SampleScore:
    """One pair's score.

    Attributes:
        id: The pair's id.
        value: The score dict the task's scorer logged (a missing score is NaN, or 0 under ``unscored=worst``).
        unscored: The reason code the main score is missing (``grader_failed`` codes such as
            ``invalid_response_format``, or ``no_response``), or None when it was scored.
        reasons: The reason code of every missing key.
    """

    id: str
    value: dict[str, float]
    unscored: str | None
    reasons: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ScoreResult:
    """What `score` returns.

    Attributes:
        samples: One per input pair, in input order.
        main: The main score key (the first key of the scorer's value dict).
        log: The Inspect log written (``log.location`` is its file; open it with ``inspect view``).
    """

    samples: list[SampleScore]
    main: str
    log: EvalLog

    @cached_property
    def metrics(self) -> dict[str, float]:
        """Every corpus figure of the run by name, as `radiology-tasks report` computes them from the log: the
        summary the log keeps (``<key>_mean`` and its interval, ...) and the rest (other means, every agreement
        statistic, judge retries, ...); NaN for a figure undefined on these pairs. Computed when first read, so a
        reward function that reads only the samples pays nothing for it."""
        report = report_of(self.log)
        return {
            figure.name: math.nan if figure.value is None else figure.value
            for figure in [*report.headline, *report.secondary]
        }

    def values(self, key: str | None = None) -> list[float]:
        """The values of `key` (default: the main score), in input order."""
        return [s.value[key or self.main] for s in self.samples]


def scorable_tasks() -> dict[str, Callable[..., Task]]:
    """The registered tasks that score given candidates against given references, by short name."""
    found = {}
    for family in families():
        for name, function in family.task_functions().items():
            parameters = inspect.signature(function).parameters
            if "data" in parameters and "candidates" in parameters:
                found[name] = function
    return found


def task_function(metric: str) -> Callable[..., Task]:
    """The task function of `metric`.

    Raises:
        InputError: an unknown metric, naming the known ones.
    """
    tasks = scorable_tasks()
    short = metric.removeprefix("radiology_tasks/")
    if short not in tasks:
        raise InputError(f"unknown metric {metric!r}; one of: {', '.join(sorted(tasks))}")
    return tasks[short]


def check_params(metric: str, function: Callable[..., Task], params: Mapping[str, Any]) -> None:
    """Refuse parameters the task does not take, and those that choose the data (`score` gives the data).

    Raises:
        InputError: naming the parameter and what the task takes.
    """
    accepted = set(inspect.signature(function).parameters) - DATA_PARAMETERS
    for name in params:
        if name in DATA_PARAMETERS:
            raise InputError(f"{name!r} chooses the data, which score() is given as lists; leave it out")
        if name not in accepted:
            raise InputError(f"{metric} takes no parameter {name!r}; it takes: {', '.join(sorted(accepted))}")


def pair_rows(
    references: Sequence[Reference], candidates: Sequence[str], ids: Sequence[str] | None
) -> list[dict[str, Any]]:
    """The pairs as rows of the flat layout, checked for shape (the loader checks the rest).

    Raises:
        InputError: lists of different lengths or no pairs, a report that is not text, a row without its
            reference or with its own candidate, ids that are blank or repeated.
    """
    _check_lists(references, candidates, ids)
    rows = [
        _pair_row(index, reference, candidate, ids)
        for index, (reference, candidate) in enumerate(zip(references, candidates))
    ]
    seen: dict[str, int] = {}
    for index, row in enumerate(rows):
        if row["id"] in seen:
            raise InputError(f"ids[{index}] {row['id']!r} repeats ids[{seen[row['id']]}]")
        seen[row["id"]] = index
    return rows


def _check_lists(references: Sequence[Reference], candidates: Sequence[str], ids: Sequence[str] | None) -> None:
    """Refuse lists that are not lists, of different lengths, or empty."""
    for name, value in (("references", references), ("candidates", candidates), ("ids", ids)):
        if value is not None and (isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence)):
            raise InputError(f"{name} must be a list, got {type(value).__name__}")
    if len(references) != len(candidates):
        raise InputError(f"{len(references)} references and {len(candidates)} candidates: give one of each per pair")
    if not references:
        raise InputError("no pairs to score: references and candidates are empty")
    if ids is not None and len(ids) != len(references):
        raise InputError(f"{len(ids)} ids for {len(references)} pairs")


def _pair_row(index: int, reference: Reference, candidate: str, ids: Sequence[str] | None) -> dict[str, Any]:
    """Pair `index` as a flat row: the reference (text, or a row of columns), its id and the candidate."""
    if isinstance(reference, Mapping):
        row = dict(reference)
        if "candidate" in row:
            raise InputError(f"references[{index}] has a 'candidate' column: give candidates in their own list")
        if "reference" not in row:
            raise InputError(f"references[{index}] has no 'reference' column")
    else:
        row = {"reference": reference}
    if not isinstance(row["reference"], str):
        raise InputError(f"references[{index}]: expected the report text, got {type(row['reference']).__name__}")
    if not isinstance(candidate, str):
        raise InputError(f"candidates[{index}]: expected the report text, got {type(candidate).__name__}")
    given = ids[index] if ids is not None else row.get("id", str(index + 1))
    if not isinstance(given, str | int) or isinstance(given, bool) or not str(given).strip():
        raise InputError(f"ids[{index}]: expected a non-blank text id, got {given!r}")
    return {**row, "id": str(given), "candidate": candidate}


@dataclass(frozen=True)
class PairsFile:
    """The JSONL file of a call's pairs, and what writing it created.

    Attributes:
        path: The file (absolute).
        created: What did not exist before: the file, then each folder made for it, deepest first.
    """

    path: Path
    created: tuple[Path, ...]

    def discard(self) -> None:
        """Remove what writing the file created, for a refused call to leave nothing behind: a file an earlier call
        wrote (its log names it) stays, and so does a folder that holds anything else."""
        for path in self.created:
            if path.is_dir():
                with contextlib.suppress(OSError):
                    path.rmdir()
            else:
                path.unlink(missing_ok=True)


def write_pairs(rows: list[dict[str, Any]], log_dir: str | os.PathLike[str] | None) -> PairsFile:
    """Write the rows as JSONL under ``<log_dir>/data/``, named by their content.

    The file stays once the call runs: the log names it as ``-T data``, and the leaderboard reads the pairs from it
    again. A refused call discards it (`PairsFile.discard`).
    """
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    folder = (Path(resolved_log_dir(log_dir)) / "data").resolve()
    made = [p for p in (folder, *folder.parents) if not p.exists()]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"pairs-{hashlib.sha256(text.encode()).hexdigest()[:16]}.jsonl"
    if path.exists():
        return PairsFile(path, tuple(made))
    path.write_text(text, encoding="utf-8")
    return PairsFile(path, (path, *made))


def resolved_log_dir(log_dir: str | os.PathLike[str] | None) -> str:
    """The log folder: the one given, else ``INSPECT_LOG_DIR``, else ``./logs`` (Inspect's default)."""
    return str(log_dir) if log_dir is not None else os.environ.get("INSPECT_LOG_DIR", "./logs")


def check_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Read the written rows with the project's loader, so a bad pair is refused before any model call.

    Raises:
        InputError: naming the list and position of the pair (and the field) the loader refused.
    """
    try:
        load_options(DataOptions(data=str(path), layout="flat"), require_candidate=True)
    except DataError as error:
        if error.row is None or error.source != str(path):
            raise
        index = error.row - 1
        where = "candidates" if error.field == "candidate" else "ids" if error.field == "id" else "references"
        field = "" if error.field in (None, "candidate", "reference", "id") else f", field '{error.field}'"
        raise InputError(f"{where}[{index}]{field}: {error.problem}") from None


@dataclass(frozen=True)
class BuiltTask:
    """A call's task over its pairs.

    Attributes:
        task: The metric's task, with the judge bound as its ``grader``.
        ids: The pair ids in input order.
        pairs: The pairs' file, which the task reads.
    """

    task: Task
    ids: list[str]
    pairs: PairsFile
    scores: dict[str, dict[str, Score]] = field(default_factory=dict)
    """Each sample's scores by scorer, kept as the task finishes the sample: the objects Inspect logs, so the
    result is read without reading the log back."""


def keep_scores(task: Task, kept: dict[str, dict[str, Score]]) -> Task:
    """The task, keeping each finished sample's scores in `kept` by sample id (through Inspect's per-sample
    `cleanup`, which runs once the sample is scored and is not recorded in the log)."""
    cleanup = task.cleanup

    async def keep(state: TaskState) -> None:
        kept[str(state.sample_id)] = dict(state.scores or {})
        if cleanup is not None:
            await cleanup(state)

    return task_with(task, cleanup=keep)


def judge_given(judge: str | Model | None, eval_args: Mapping[str, Any] | None) -> bool:
    """Whether the call binds a judge: `judge`, a ``grader`` role or a model under test in `eval_args`."""
    roles = (eval_args or {}).get("model_roles") or {}
    return judge is not None or GRADER_ROLE in roles or (eval_args or {}).get("model") not in (None, "none")


def construct(metric: str, function: Callable[..., Task], with_judge: bool, **args: Any) -> Task:
    """Call the task function as Inspect does in a run of `score`'s: the model under test is ``none``, and
    without a judge no role is bound, so a task that needs its judge refuses now, before any model call. The
    report hint is not registered (`radiology_tasks.core.report_hook`): the call prints nothing.

    Raises:
        InputError: the task's refusal (Inspect's prerequisite errors included); a missing judge is named as
            `score`'s own argument.
    """

    def build() -> Task:
        if not with_judge:
            init_model_roles({})
            init_active_model(get_model("none"), GenerateConfig())
        with quiet_report_hint():  # the run prints nothing, so Inspect is given no hook to announce
            return function(**args)

    try:
        return contextvars.copy_context().run(build)
    except PrerequisiteError as error:
        if isinstance(error, InputError):
            raise
        if error.message == NO_JUDGE_MESSAGE:
            raise InputError(f"{metric} needs a judge: give judge= a model ({error.message})") from None
        raise InputError(f"{metric}: {error.message}") from None


def build_task(
    metric: str,
    references: Sequence[Reference],
    candidates: Sequence[str],
    *,
    judge: str | Model | None,
    ids: Sequence[str] | None,
    log_dir: str | os.PathLike[str] | None,
    params: Mapping[str, Any],
    eval_args: Mapping[str, Any] | None = None,
) -> BuiltTask:
    """The metric's task over the pairs, with the judge bound as its ``grader``.

    Everything that can be refused without a model is refused here, and a refusal leaves nothing behind: what was
    checked before the pairs are written is not written, and what is refused after takes its file away again.

    Raises:
        InputError: bad pairs, an unknown metric or parameter, a parameter value the task refuses, or no judge for
            a task that needs one.
    """
    function = task_function(metric)
    check_params(metric, function, params)
    rows = pair_rows(references, candidates, ids)
    pairs = write_pairs(rows, log_dir)
    try:
        check_rows(pairs.path, rows)
        task = construct(metric, function, judge_given(judge, eval_args), data=str(pairs.path), layout="flat", **params)
    except BaseException:
        pairs.discard()
        raise
    if judge is not None:
        task = task_with(task, model_roles={GRADER_ROLE: judge})
    scores: dict[str, dict[str, Score]] = {}
    return BuiltTask(keep_scores(task, scores), [row["id"] for row in rows], pairs, scores)


def read_result(log: EvalLog, built: BuiltTask) -> ScoreResult:
    """The per-pair scores in input order, from the scores the task kept as it ran (`BuiltTask.scores`), and the
    corpus figures of the finished log.

    Raises:
        RuntimeError: the run did not finish (the log's error is in the message), or a pair has no score.
    """
    if log.status != "success":
        error = log.error.message if log.error else log.status
        raise RuntimeError(f"the evaluation did not finish ({log.status}): {error}; its log: {log.location}")
    samples = []
    main = ""
    for pair_id in built.ids:
        kept = built.scores.get(pair_id)
        if not kept:
            raise RuntimeError(f"pair {pair_id!r} has no score in {log.location}")
        (logged,) = kept.values()
        main, value, reasons = score_values(pair_id, logged)
        samples.append(SampleScore(id=pair_id, value=value, unscored=reasons.get(main), reasons=reasons))
    return ScoreResult(samples=samples, main=main, log=log)


def score_values(pair_id: str, logged: Score) -> tuple[str, dict[str, float], dict[str, str]]:
    """A pair's main score key, its score dict (a missing number as NaN) and the reason code of each missing key.

    Raises:
        RuntimeError: the score is not a dict of scores.
    """
    value = logged.value
    if not isinstance(value, Mapping):
        raise RuntimeError(f"pair {pair_id!r}: expected a dict of scores, got {value!r}")
    values = {key: float("nan") if number is None else float(number) for key, number in value.items()}
    reasons = {key: unscored_reason(logged.metadata, key) for key in values}
    # A NaN without a recorded reason is still no score: Inspect's own reason code stands in.
    missing = {
        key: reason or str(logged.reason or "unscored")
        for key, reason in reasons.items()
        if reason is not None or math.isnan(values[key])
    }
    return next(iter(value)), values, missing


def eval_arguments(log_dir: str | os.PathLike[str] | None, eval_args: Mapping[str, Any] | None) -> dict[str, Any]:
    """Arguments of Inspect's eval: no model under test, the log folder, and what the caller adds.

    Sample concurrency is left to Inspect, which follows the judge's connection limit (``max_connections``, or
    its adaptive limit): starting every sample at once would spend the first seconds setting all of them up
    before the first judge request goes out.
    """
    return {"display": DISPLAY, "model": "none", "log_dir": resolved_log_dir(log_dir), **(eval_args or {})}


def score(
    references: Sequence[Reference],
    candidates: Sequence[str],
    metric: str = "vert",
    judge: str | Model | None = None,
    *,
    ids: Sequence[str] | None = None,
    log_dir: str | os.PathLike[str] | None = None,
    eval_args: Mapping[str, Any] | None = None,
    **params: Any,
) -> ScoreResult:
    """Score each candidate report against its reference with a metric's registered task.

    Runs ``radiology_tasks/<metric>`` through `inspect_ai.eval` on the pairs (written as a JSONL file under
    ``<log_dir>/data/``), so each value equals that of ``inspect eval`` on a file of the same pairs.

    Args:
        references: Reference reports, or rows of the flat layout holding one under ``reference`` with further
            columns (``qa`` questions are needed by ``ct_finebench``).
        candidates: The candidate reports, one per reference.
        metric: A registered task that scores given candidates (`scorable_tasks` lists them): ``green``, ``vert``,
            ``crimson``, ``ct_finebench``, ``ran_score``, ``baselines``, ``metric_suite``.
        judge: The ``grader`` model: a name Inspect knows (``openai/gpt-4.1``, ``vllm/...``,
            ``llama-cpp/smollm2-135m``) or a `Model`. Not needed by ``baselines``.
        ids: The pairs' ids (default: a row's ``id`` column, else the position from 1).
        log_dir: Where the log and the data file go (default: ``INSPECT_LOG_DIR``, else ``./logs``).
        eval_args: Further arguments of `inspect_ai.eval` (``max_connections``, ``max_retries``, ``timeout``,
            ``display``, ...).
        **params: The task's ``-T`` parameters (``prompt="rubric"``, ``detail="brief"``, ``baselines="rouge_l"``).

    Returns:
        The per-pair scores in input order, the corpus metrics and the log.

    Raises:
        InputError: before any model call, for lists of different lengths, an empty report, an unknown metric or
            parameter, a parameter value the task refuses, or no judge for a metric that needs one; a refused call
            leaves no file behind.
        RuntimeError: the evaluation stopped with an error (a judge that cannot be reached, say).
    """
    built = build_task(
        metric, references, candidates, judge=judge, ids=ids, log_dir=log_dir, params=params, eval_args=eval_args
    )
    try:
        (log,) = inspect_eval(built.task, **eval_arguments(log_dir, eval_args))
    except Exception:
        built.pairs.discard()  # Inspect refused the run (its arguments, say) before writing a log
        raise
    return read_result(log, built)


async def score_async(
    references: Sequence[Reference],
    candidates: Sequence[str],
    metric: str = "vert",
    judge: str | Model | None = None,
    *,
    ids: Sequence[str] | None = None,
    log_dir: str | os.PathLike[str] | None = None,
    eval_args: Mapping[str, Any] | None = None,
    **params: Any,
) -> ScoreResult:
    """`score` from async code, through `inspect_ai.eval_async`.

    Inspect runs one evaluation at a time per process; calls awaited together (`asyncio.gather`, reward
    functions) share one evaluation of several tasks through `run_eval`.
    """
    built = build_task(
        metric, references, candidates, judge=judge, ids=ids, log_dir=log_dir, params=params, eval_args=eval_args
    )
    try:
        log = await run_eval(built.task, eval_arguments(log_dir, eval_args))
    except Exception:
        built.pairs.discard()
        raise
    return read_result(log, built)


@dataclass
class _Request:
    task: Task
    args: dict[str, Any]
    future: asyncio.Future[EvalLog]
    key: str = field(init=False)

    def __post_init__(self) -> None:
        # Requests run together when their evaluation settings are the same.
        self.key = json.dumps(self.args, sort_keys=True, default=repr)


class _EvalQueue:
    """One event loop's evaluations: one at a time, and those waiting together run as one evaluation."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.pending: list[_Request] = []

    async def submit(self, task: Task, args: dict[str, Any]) -> EvalLog:
        request = _Request(task, args, asyncio.get_running_loop().create_future())
        self.pending.append(request)
        async with self.lock:
            if not request.future.done():
                # Let the other coroutines of the same gather reach the queue before the batch is taken.
                await asyncio.sleep(0)
                batch = [r for r in self.pending if r.key == request.key]
                self.pending = [r for r in self.pending if r.key != request.key]
                await _run_batch(batch)
        return await request.future


async def _run_batch(batch: list[_Request]) -> None:
    """Evaluate the batch's tasks in one `eval_async` call and hand each request its log."""
    try:
        logs = await eval_async([r.task for r in batch], max_tasks=len(batch), **batch[0].args)
        if len(logs) != len(batch):
            raise RuntimeError(f"{len(batch)} tasks evaluated, {len(logs)} logs returned")
    except BaseException as failure:
        for request in batch:
            request.future.set_exception(failure)
        if not isinstance(failure, Exception):
            raise
        return
    for request, log in zip(batch, logs):
        request.future.set_result(log)


_QUEUES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _EvalQueue] = weakref.WeakKeyDictionary()


async def run_eval(task: Task, args: dict[str, Any]) -> EvalLog:
    """Evaluate `task` with `inspect_ai.eval_async` and `args`, queued behind this event loop's running evaluation.

    Inspect refuses a second `eval_async` while one runs; requests that wait together are evaluated as the tasks
    of one call (one log each), so reward functions awaited together by a trainer judge concurrently.
    """
    args = dict(args)
    # eval_async takes no display of its own (it would print a progress display per call).
    init_display_type(args.pop("display", DISPLAY))
    loop = asyncio.get_running_loop()
    queue = _QUEUES.get(loop)
    if queue is None:
        queue = _QUEUES[loop] = _EvalQueue()
    return await queue.submit(task, args)
