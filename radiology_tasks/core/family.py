"""Metric families as plug-ins: each family describes itself once, and shared code calls its methods.

A family (GREEN/VERT, CT-FineBench, Ran Score, ...) lives in its own package and defines a subclass of `Family`
in a `family.py` module there, with one instance named ``FAMILY``: its tasks, their released version, the
template folders they hash, what it adds to `metric_suite`, its lm-eval configs, its data layouts, its run metrics
and its own subcommands, mostly as class attributes naming its own modules, which the base class imports when asked.
A family whose logs can be submitted also implements the leaderboard's `radiology_tasks.leaderboard.rules.Submittable`
(`radiology_tasks.rescored.RescoredFamily` does, from the family's re-scoring module). `radiology_tasks.families`
lists the family modules, one line per family. The leaderboard, the metric suite, the command line and the layout
registry look families up here and never name one.

Descriptors must stay light to import (every `inspect` process imports the task registry): a family's methods
import the modules they need when called, never at module level.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from radiology_tasks.core.orientation import HIGHER_IS_BETTER, Orientation

if TYPE_CHECKING:
    import argparse
    from collections.abc import Sequence

    from inspect_ai.scorer import Metric, SampleScore, Scorer
    from inspect_ai.solver import Solver

    from radiology_tasks.core.judge_options import JudgeOptions
    from radiology_tasks.core.records import ReportPair


@dataclass(frozen=True)
class BundledData:
    """A data set shipped inside the package (`radiology_tasks.core.catalog` names them for `-T data`).

    Attributes:
        package: The package whose folder holds the file (``radiology_tasks`` for the shared ``demo``).
        file: The file, relative to that folder.
        description: One line saying what it holds, as `radiology-tasks list` shows it.
    """

    package: str
    file: str
    description: str

    @property
    def path(self) -> Path:
        """Where the file is installed."""
        return Path(str(files(self.package) / self.file))


@dataclass(frozen=True)
class SuiteJudge:
    """The judge settings `metric_suite` gives each family's suite metric, whole.

    Attributes:
        judge: The suite's shared judge options (`-T constrain`, `judge_max_tokens`, `judge_retries`, `unscored`),
            checked when they were built.
        qa_mode: The suite's `-T qa_mode`, for a judge that answers questions (checked by the judge that reads it).
    """

    judge: JudgeOptions
    qa_mode: str = "batch"


@dataclass(frozen=True)
class SuiteMetric:
    """A metric a family adds to `metric_suite` (an LLM judge run on the suite's samples).

    Attributes:
        keys: The score keys it contributes, the first being its main one.
        scorer: Builds its scorer from the suite's judge settings.
        solver: Builds a solver that must run before scoring, from the same settings; None when none is needed.
        check: One line saying why the rows cannot be scored by it, or None when they can.
    """

    keys: tuple[str, ...]
    scorer: Callable[[SuiteJudge], Scorer]
    solver: Callable[[SuiteJudge], Solver] | None = None
    check: Callable[[list[ReportPair]], str | None] | None = None


@dataclass(frozen=True)
class ReportMetrics:
    """The metrics of one task run: what the run's summary shows and what only `radiology-tasks report` computes.

    Attributes:
        headline: The task's metrics (logged and shown after ``inspect eval``): the main score's mean and interval
            first, then agreement with experts, the unscored share and the judge's cost per sample.
        secondary: Every other metric, computed by the report from the log's samples.
        explain: Why one of the family's own metrics gives NaN on these samples, given the metric's registered name,
            the key and the samples; None where the family has nothing to say (the report then says it generally).
    """

    headline: list[Metric]
    secondary: list[Metric]
    explain: Callable[[str, str, Sequence[SampleScore]], str | None] | None = None


class Family:
    """One metric family, declared once in its own package: subclass it and set the class attributes.

    Convention over configuration: a subclass defined in a package's ``family`` module (``<package>.family``) gets
    the attributes that only restate that package from it, unless it sets them itself (an explicit attribute,
    even one inherited from another family, always wins). With ``<last>`` the package's last component: `name` is
    ``<last>``, `tasks_module` is ``<package>.tasks``; `templates` is ``(<last>,)`` where the shared template folder
    ``radiology_tasks/templates/<last>/`` exists, `scorer_modules` ``(<package>.scorer,)``, and `suite_module`,
    `commands_module` and `run_metrics_module` ``<package>.suite``, ``.commands`` and ``.run_metrics``, each where
    that module exists (found with `importlib.util.find_spec`, which imports none of them), else ``()`` or None. A
    subclass defined elsewhere (a test's) declares them all. Instances may still set any attribute.

    Attributes:
        name: The family's name; by default its package's last component (``green_vert``).
        tasks_module: The module whose `@task` functions are the family's tasks (imported to register them); by
            default ``<package>.tasks``.
        tasks: The names of those task functions.
        version: The released version of the family's tasks (what a submitted log must carry).
        templates: The template folders whose file hashes the tasks record and the leaderboard compares; by default
            ``(<last>,)`` where the shared templates hold a folder of that name, else none.
        suite_notes: Names `metric_suite` refuses, each with the line that says where to run them instead.
        lm_eval_configs: The family's YAML configs in `radiology_tasks/lm_eval_tasks/configs` (file names).
        layouts: Modules that each define a `LAYOUT` of a public dataset the family reads.
        side_args: Task settings that only add scores beside the ranked one, so runs that differ in them are
            still compared (e.g. ``baselines``, which adds lexical scores).
        default_data: The dataset the tasks read when `-T data` is not given; None: the bundled ``demo`` set.
        datasets: Data sets the family ships in its own package, by the name `-T data` takes (its demo set, say).
        generation_tasks: The family's tasks that only write reports, whose logs every judged task reads as
            `-T candidates=LOG.eval` (`radiology_tasks.core.generation_log`).
        mutation_tested: Modules of the family's package that hold logic the tests must guard, as file patterns
            relative to its folder (``layouts/*.py``); `bench/mutation.py` mutates them beside the shared modules
            pyproject.toml lists (the family's re-scoring, scorers and solvers are in those already).
        scorer_modules: The modules whose scorers and solvers Inspect must know by name; `register` imports them.
            By default ``(<package>.scorer,)`` where that module exists, else none.
        suite_module: The module whose ``SUITE`` maps each metric the family adds to `metric_suite` to its
            `SuiteMetric`; None: none. `suite_metrics` imports it when asked. By default ``<package>.suite`` where
            it exists.
        commands_module: The module whose ``add_commands(commands)`` adds the family's own `radiology-tasks`
            subcommands; None: none. `add_commands` imports it when the parser is built. By default
            ``<package>.commands`` where it exists.
        run_metrics_module: The module whose ``report_metrics(task, task_args, samples)`` returns the
            `ReportMetrics` of a run of one of the family's tasks (whose metric lists the tasks build too); None:
            the family declares none and `radiology-tasks report` refuses its logs. `report_metrics` imports it when
            asked. By default ``<package>.run_metrics`` where it exists.
        score_orientations: The family's score keys that are not higher-is-better with the default tie tolerance,
            each with its `radiology_tasks.core.orientation.Orientation` (``{"green_ec": LOWER_IS_BETTER}``);
            `orientations` returns them.
        shared_host: True for a shared host (the metric suite): registered like a family, for its tasks, but its
            package is shared code that asks the families for what it runs, names none of them, and that families
            may import. False for a family, whose folders nothing outside them imports.
    """

    name: str
    tasks_module: str
    tasks: tuple[str, ...]
    version: str
    templates: tuple[str, ...] = ()
    suite_notes: Mapping[str, str] = {}
    lm_eval_configs: tuple[str, ...] = ()
    layouts: tuple[str, ...] = ()
    side_args: tuple[str, ...] = ()
    default_data: str | None = None
    datasets: Mapping[str, BundledData] = {}
    generation_tasks: tuple[str, ...] = ()
    mutation_tested: tuple[str, ...] = ()
    scorer_modules: tuple[str, ...] = ()
    suite_module: str | None = None
    commands_module: str | None = None
    run_metrics_module: str | None = None
    score_orientations: Mapping[str, Orientation] = {}
    shared_host: bool = False

    # The attributes naming a module of the family's own package, by that module's name in it: given whether or
    # not the module exists (the required ones), or only where it does (the optional ones).
    required_modules: ClassVar[Mapping[str, str]] = {"tasks_module": "tasks"}
    optional_modules: ClassVar[Mapping[str, str]] = {
        "suite_module": "suite",
        "commands_module": "commands",
        "run_metrics_module": "run_metrics",
    }

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Fill the attributes the subclass leaves out from its package, by the convention above."""
        super().__init_subclass__(**kwargs)
        package, _, module = cls.__module__.rpartition(".")
        if package and module == "family":
            for attribute, value in cls.conventions(package).items():
                if not _sets(cls, attribute):
                    setattr(cls, attribute, value)

    @classmethod
    def conventions(cls, package: str) -> dict[str, Any]:
        """The attributes a family declared in `package` gets by default: its name, and its modules that exist."""
        defaults: dict[str, Any] = {"name": package.rpartition(".")[2]}
        defaults |= {attribute: f"{package}.{module}" for attribute, module in cls.required_modules.items()}
        for attribute, module in cls.optional_modules.items():
            defaults[attribute] = _existing(f"{package}.{module}")
        scorer = _existing(f"{package}.scorer")
        defaults["scorer_modules"] = () if scorer is None else (scorer,)
        defaults["templates"] = _template_folder(defaults["name"])
        return defaults

    @property
    def package(self) -> str:
        """The family's package: the one holding its tasks module (``radiology_tasks.green_vert``)."""
        return self.tasks_module.rpartition(".")[0]

    def task_functions(self) -> dict[str, Any]:
        """The family's task functions by name (importing the tasks module registers them with Inspect)."""
        module = importlib.import_module(self.tasks_module)
        return {name: getattr(module, name) for name in self.tasks}

    def register(self) -> None:
        """Import the modules whose scorers and solvers Inspect must know by name (`scorer_modules`)."""
        for module in self.scorer_modules:
            importlib.import_module(module)

    def suite_metrics(self) -> Mapping[str, SuiteMetric]:
        """The metrics the family adds to `metric_suite`, by name: its `suite_module`'s ``SUITE`` (none without)."""
        if self.suite_module is None:
            return {}
        suite: Mapping[str, SuiteMetric] = importlib.import_module(self.suite_module).SUITE
        return suite

    def orientations(self) -> Mapping[str, Orientation]:
        """The family's score keys that are not higher-is-better with the default tie tolerance, each with its
        orientation (`radiology_tasks.core.orientation`): declared here once, read by every agreement statistic.
        Its `score_orientations` (none by default); a family whose keys are only known once a module is imported
        overrides this."""
        return self.score_orientations

    def add_commands(self, commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
        """Add the family's own subcommands to the `radiology-tasks` parser: its `commands_module`'s (none without)."""
        if self.commands_module is not None:
            importlib.import_module(self.commands_module).add_commands(commands)

    def report_metrics(self, task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
        """The headline and secondary metrics of a run of `task`, chosen from its `-T` arguments and its samples.

        The family's tasks build their metric lists with the same function, so the report computes exactly what
        a run logs, and the rest. Its `run_metrics_module`'s ``report_metrics`` decides them.

        Raises:
            NotImplementedError: the family declares no `run_metrics_module` (the report names the family).
        """
        if self.run_metrics_module is None:
            raise NotImplementedError(f"the {self.name} family does not declare its report metrics")
        declared: ReportMetrics = importlib.import_module(self.run_metrics_module).report_metrics(
            task, task_args, samples
        )
        return declared


def _existing(module: str) -> str | None:
    """`module` if it can be imported (found without importing it; its package is imported already), else None."""
    return module if importlib.util.find_spec(module) is not None else None


def _template_folder(name: str) -> tuple[str, ...]:
    """``(name,)`` where the shared templates hold a folder `name`, else none (found without importing them)."""
    spec = importlib.util.find_spec("radiology_tasks.templates")
    folders = (spec.submodule_search_locations if spec else None) or []
    return (name,) if any(Path(folder, name).is_dir() for folder in folders) else ()


def _sets(cls: type[Family], attribute: str) -> bool:
    """Whether `cls`, or a class between it and `Family`, gives `attribute` a value (an annotation is not one)."""
    return any(attribute in vars(base) for base in cls.__mro__[: cls.__mro__.index(Family)])


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


def registered_tasks() -> list[tuple[str, Any]]:
    """Every task of every family, as (registered name, task function), sorted by name."""
    from inspect_ai.util import registry_info

    found = {}
    for family in families():
        for function in family.task_functions().values():
            found[registry_info(function).name] = function
    return sorted(found.items())


def mutation_targets() -> list[str]:
    """The modules every family asks mutation testing to cover, as file patterns from the repository root."""
    return [
        f"{family.package.replace('.', '/')}/{pattern}" for family in families() for pattern in family.mutation_tested
    ]


def orientation(key: str) -> Orientation:
    """The orientation of the score `key`: the first registered family that declares it, else higher-is-better."""
    for family in families():
        declared = family.orientations().get(key)
        if declared is not None:
            return declared
    return HIGHER_IS_BETTER


def higher_is_better(key: str) -> bool:
    """Whether a higher value of the score `key` means a better report."""
    return orientation(key).higher_is_better


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Let every family add its own subcommands to the `radiology-tasks` parser."""
    for family in families():
        family.add_commands(commands)
