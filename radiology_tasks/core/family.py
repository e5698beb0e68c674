"""Metric families as plug-ins: each family describes itself once, and shared code reads the descriptions.

A family (GREEN/VERT, CT-FineBench, Ran Score, ...) lives in its own package and declares a `Family` in a
`family.py` module there: its tasks, their released version, the template folders they hash, how a stored log is
re-scored and ranked, what it adds to `metric_suite`, its lm-eval configs, its data layouts and its own
subcommands. `radiology_tasks.families` lists those modules, one line per family. The leaderboard, the metric
suite, the command line and the layout registry look families up here and never name one.

Descriptors must stay light to import (every `inspect` process imports the task registry): heavy parts are
named as ``"module:attribute"`` and loaded only when used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import argparse

    from inspect_ai.scorer import Scorer
    from inspect_ai.solver import Solver

    from radiology_tasks.core.records import ReportPair
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence


@dataclass(frozen=True)
class RankedScore:
    """The score a task's runs are ranked on.

    Attributes:
        key: The score key in each sample's value dict.
        bounded: The task keeps the score in [0, 1] (a missing score then counts as 0 on the board).
        corpus: The board's figure is a statistic over the whole sample set (a macro F1), not a mean of
            per-sample values: intervals and paired tests resample reports and recompute it.
        per_sample: For a corpus statistic, the per-sample key whose missing value marks a sample unscored.
    """

    key: str
    bounded: bool = True
    corpus: bool = False
    per_sample: str | None = None

    @property
    def sample_key(self) -> str:
        """The key each sample's value dict holds: the ranked key, or `per_sample` for a corpus statistic."""
        return self.per_sample or self.key


def _no_run_checks(run: RunEvidence) -> list[str]:
    return []


def stored_judge_answers(sample: SampleEvidence) -> list[str]:
    """The judge answers a sample stores under ``metadata["judge_answer"]`` (the GREEN/VERT convention)."""
    answer = sample.metadata.get("judge_answer")
    return [answer] if isinstance(answer, str) else []


@dataclass(frozen=True)
class Rescoring:
    """How the leaderboard checks and ranks a stored log of one of the family's tasks.

    Attributes:
        ranked: The score the run is ranked on, under the run's settings.
        expected: The value dict the task's scorer gives for a sample's stored answers (judge answers, or the
            texts themselves for a metric without a judge), recomputed with the scorer's own code. Every key it
            returns is compared with the logged value.
        answers: The stored judge answers of a sample; each must be one the judge's model events returned.
        run_checks: Checks of run-level figures beyond the ranked score's ``<key>_mean`` (one line each).
        corpus_score: For a `RankedScore` with ``corpus=True``: the statistic over a list of samples (each list
            may repeat samples, as a bootstrap resample does).
        breakdown: The family's own breakdown for the board: table title -> row label -> value.
        needs_judge: Runs are judged by a model (``--model-role grader``); False for metrics computed from text.
        agreement: For the judges' track: per sample id, (expert score, judge score) where experts rated the
            very candidate the judge saw; None when the family's runs cannot be ranked as judges this way.
        judge_measures: For the judges' track: per measure name, the per-unit values its mean is taken over
            (units are resampled for intervals); None when not ranked by such measures.
        tasks: The family's tasks these rules re-score; None for all of them.
        sample_ids: The id of every sample the run's settings give, for a task whose samples are not the data's
            pairs (variants made from them, say); None: the ids of the pairs the run's data options load, or of
            their studies when the run records that it folded them (`radiology_tasks.core.studies`).
        left_out: Whether the task itself left a sample out by design, with its reason in the log (a variant the
            injector could not make): such a sample is not counted as unscored. None: no sample is left out.
    """

    ranked: Callable[[RunEvidence], RankedScore]
    expected: Callable[[RunEvidence, SampleEvidence], dict[str, float]]
    answers: Callable[[SampleEvidence], list[str]] = stored_judge_answers
    run_checks: Callable[[RunEvidence], list[str]] = _no_run_checks
    corpus_score: Callable[[list[SampleEvidence]], float] | None = None
    breakdown: Callable[[RunEvidence], dict[str, dict[str, float]] | None] | None = None
    needs_judge: bool = True
    agreement: Callable[[RunEvidence], dict[str, tuple[float, float]]] | None = None
    judge_measures: Callable[[RunEvidence], dict[str, dict[str, float]]] | None = None
    tasks: tuple[str, ...] | None = None
    sample_ids: Callable[[RunEvidence], list[str]] | None = None
    left_out: Callable[[SampleEvidence], bool] | None = None


@dataclass(frozen=True)
class SuiteMetric:
    """A metric a family adds to `metric_suite` (an LLM judge run on the suite's samples).

    Attributes:
        keys: The score keys it contributes, the first being its main one.
        scorer: Builds its scorer from the suite's judge settings (``unscored``, ``constrain``,
            ``judge_retries``, ``judge_max_tokens``, ``qa_mode``).
        solver: Builds a solver that must run before scoring, from the same settings; None when none is needed.
        check: One line saying why the rows cannot be scored by it, or None when they can.
    """

    keys: tuple[str, ...]
    scorer: Callable[[Mapping[str, Any]], Scorer]
    solver: Callable[[Mapping[str, Any]], Solver] | None = None
    check: Callable[[list[ReportPair]], str | None] | None = None


@dataclass(frozen=True)
class Family:
    """One metric family, declared once in its own package.

    Attributes:
        name: The family's name (its package's, e.g. ``green_vert``).
        tasks_module: The module whose `@task` functions are the family's tasks (imported to register them).
        tasks: The names of those task functions.
        version: The released version of the family's tasks (what a submitted log must carry).
        templates: The template folders whose file hashes the tasks record and the leaderboard compares.
        rescoring: ``"module:attribute"`` of the family's `Rescoring`; None when its logs cannot be submitted.
        suite: ``"module:attribute"`` of a mapping from metric name to `SuiteMetric`, for `metric_suite`.
        suite_notes: Names `metric_suite` refuses, each with the line that says where to run them instead.
        lm_eval_configs: The family's YAML configs in `radiology_tasks/lm_eval_tasks/configs` (file names).
        layouts: Modules that each define a `LAYOUT` of a public dataset the family reads.
        commands: ``"module:attribute"`` of a function that adds the family's subcommands to `radiology-tasks`.
        registers: Further modules to import so Inspect registers their scorers and solvers by name.
        side_args: Task settings that only add scores beside the ranked one, so runs that differ in them are
            still compared (e.g. ``baselines``, which adds lexical scores).
        default_data: The dataset the tasks read when `-T data` is not given; None: the bundled ``demo`` set.
    """

    name: str
    tasks_module: str
    tasks: tuple[str, ...]
    version: str
    templates: tuple[str, ...] = ()
    rescoring: str | None = None
    suite: str | None = None
    suite_notes: Mapping[str, str] = field(default_factory=dict)
    lm_eval_configs: tuple[str, ...] = ()
    layouts: tuple[str, ...] = ()
    commands: str | None = None
    registers: tuple[str, ...] = ()
    side_args: tuple[str, ...] = ()
    default_data: str | None = None

    def task_functions(self) -> dict[str, Any]:
        """The family's task functions by name (importing the tasks module registers them with Inspect)."""
        module = importlib.import_module(self.tasks_module)
        return {name: getattr(module, name) for name in self.tasks}

    def load_rescoring(self) -> Rescoring | None:
        """The family's `Rescoring`, imported on first use; None when its logs cannot be submitted."""
        return None if self.rescoring is None else load_attribute(self.rescoring)

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """The metrics the family adds to `metric_suite`, by name."""
        return {} if self.suite is None else load_attribute(self.suite)


def load_attribute(path: str) -> Any:
    """The object a ``"module:attribute"`` path names."""
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


_EXTRA: list[Family] = []


@cache
def _declared() -> tuple[Family, ...]:
    from radiology_tasks.families import FAMILY_MODULES

    return tuple(importlib.import_module(module).FAMILY for module in FAMILY_MODULES)


def families() -> list[Family]:
    """Every family: those `radiology_tasks.families` lists, then any added with `add_family`."""
    return [*_declared(), *_EXTRA]


def add_family(family: Family) -> None:
    """Add a family at run time (a plug-in outside this package, or a test's toy family)."""
    if any(f.name == family.name for f in families()):
        raise ValueError(f"a family named {family.name} is already registered")
    _EXTRA.append(family)


def remove_family(name: str) -> None:
    """Remove a family added with `add_family`."""
    _EXTRA[:] = [f for f in _EXTRA if f.name != name]


def family_of(task: str) -> Family | None:
    """The family whose tasks include `task` (a short name such as ``vert``), or None."""
    for family in families():
        if task in family.tasks:
            return family
    return None


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Let every family add its own subcommands to the `radiology-tasks` parser."""
    for family in families():
        if family.commands is not None:
            load_attribute(family.commands)(commands)
