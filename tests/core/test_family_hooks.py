"""A family's hooks declared as attributes: the base class imports the named modules when asked, and only then."""

from __future__ import annotations

import argparse
import sys
import types
from collections.abc import Iterator

import pytest

from radiology_tasks.core.family import Family, ReportMetrics, SuiteMetric
from radiology_tasks.core.orientation import LOWER_IS_BETTER, Orientation
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore
from radiology_tasks.rescored import RescoredFamily

SUITE = {"toy_judge": SuiteMetric(("toy",), scorer=lambda options: None)}  # type: ignore[arg-type,return-value]
RULES = FunctionRescoring(ranked=RankedScore("toy"), expected=lambda run, sample: {})
REPORT = ReportMetrics(headline=[], secondary=[])
ASKED: list[tuple[object, ...]] = []


def _report_metrics(task: str, task_args: object, samples: object) -> ReportMetrics:
    ASKED.append((task, task_args, samples))
    return REPORT


def _add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    commands.add_parser("toy-command")


@pytest.fixture
def modules() -> Iterator[dict[str, types.ModuleType]]:
    """Modules a toy family names: a scorer module that counts its imports, a suite, commands and re-scoring."""
    made = {name: types.ModuleType(name) for name in ("toy_hooks.scorer", "toy_hooks.suite", "toy_hooks.commands")}
    made["toy_hooks.suite"].SUITE = SUITE  # type: ignore[attr-defined]
    made["toy_hooks.commands"].add_commands = _add_commands  # type: ignore[attr-defined]
    made["toy_hooks.rescoring"] = types.ModuleType("toy_hooks.rescoring")
    made["toy_hooks.rescoring"].RESCORING = RULES  # type: ignore[attr-defined]
    made["toy_hooks.not_rules"] = types.ModuleType("toy_hooks.not_rules")
    made["toy_hooks.not_rules"].RESCORING = {"ranked": "toy"}  # type: ignore[attr-defined]
    made["toy_hooks.run_metrics"] = types.ModuleType("toy_hooks.run_metrics")
    made["toy_hooks.run_metrics"].report_metrics = _report_metrics  # type: ignore[attr-defined]
    ASKED.clear()
    sys.modules.update(made)
    yield made
    for name in made:
        sys.modules.pop(name, None)


class Declared(RescoredFamily):
    name = "toy_hooks"
    tasks_module = "toy_hooks.tasks"
    tasks = ("toy_task",)
    version = "1.0.0"
    scorer_modules = ("toy_hooks.scorer",)
    suite_module = "toy_hooks.suite"
    commands_module = "toy_hooks.commands"
    rescoring_module = "toy_hooks.rescoring"
    run_metrics_module = "toy_hooks.run_metrics"
    score_orientations = {"toy_errors": LOWER_IS_BETTER, "toy_coarse": Orientation(tie_tolerance=0.05)}


class Bare(Family):
    name = "toy_bare"
    tasks_module = "toy_bare.tasks"
    tasks = ("toy_bare_task",)
    version = "1.0.0"


def test_the_declared_modules_are_the_familys_hooks(modules):
    family = Declared()
    assert family.suite_metrics() is SUITE
    assert family.rescoring("toy_task") is RULES and family.rescoring("another_task") is None
    parser = argparse.ArgumentParser()
    family.add_commands(parser.add_subparsers(dest="command"))
    assert parser.parse_args(["toy-command"]).command == "toy-command"
    assert family.orientations() == {"toy_errors": LOWER_IS_BETTER, "toy_coarse": Orientation(tie_tolerance=0.05)}


def test_the_run_metrics_module_decides_a_runs_report_metrics(modules):
    samples: list[object] = []
    assert Declared().report_metrics("toy_task", {"generate": True}, samples) is REPORT  # type: ignore[arg-type]
    assert ASKED == [("toy_task", {"generate": True}, samples)]


def test_register_imports_the_scorer_modules(monkeypatch):
    imported: list[str] = []
    monkeypatch.setattr("importlib.import_module", lambda name: imported.append(name))
    Declared().register()
    Bare().register()
    assert imported == ["toy_hooks.scorer"]


def test_a_family_that_declares_nothing_adds_nothing():
    family = Bare()
    assert family.suite_metrics() == {}
    parser = argparse.ArgumentParser()
    commands = parser.add_subparsers(dest="command")
    family.add_commands(commands)
    assert commands.choices == {}
    assert not hasattr(family, "rescoring")
    assert family.orientations() == {}
    with pytest.raises(NotImplementedError, match=r"^the toy_bare family does not declare its report metrics$"):
        family.report_metrics("toy_bare_task", {}, [])


def test_rules_that_are_not_a_rescoring_are_refused_naming_the_module(modules):
    family = Declared()
    family.rescoring_module = "toy_hooks.not_rules"
    with pytest.raises(TypeError, match=r"toy_hooks.not_rules.RESCORING is a dict, not a Rescoring"):
        family.rescoring("toy_task")
