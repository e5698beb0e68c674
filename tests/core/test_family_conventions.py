"""Convention over configuration: a family declared in ``<package>.family`` gets the attributes that restate that
package (its name, its tasks, re-scoring, suite, commands, run metrics and scorer modules) unless it sets them."""

from __future__ import annotations

import importlib
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from radiology_tasks.core.family import Family, families
from radiology_tasks.rescored import RescoredFamily

# What every registered family.py declared before the convention, written out whole: each family must still resolve
# to exactly these (None: not declared; "-": not a RescoredFamily, so no re-scoring module).
DECLARED = {
    "baselines": ("tasks", (), None, None, "radiology_tasks.suite.run_metrics", "rescoring"),
    "crimson": ("tasks", ("scorer",), "suite", None, "run_metrics", "rescoring"),
    "ct_finebench": ("tasks", ("extraction", "scorer"), "suite", "commands", "run_metrics", "rescoring"),
    "green_vert": (
        "tasks",
        ("radiology_tasks.report_judge.scorer",),
        "suite",
        "commands",
        "run_metrics",
        "rescoring",
    ),
    "judge_sensitivity": ("tasks", ("scorer", "solvers"), None, "family_commands", "run_metrics", "rescoring"),
    "ran_score": ("tasks", ("scorer", "solver"), None, "commands", "run_metrics", "rescoring"),
    "ranking_tests": ("tasks", ("scorer", "solver"), None, None, "run_metrics", "rescoring"),
    "report_generation": ("tasks", ("scorer",), None, None, "run_metrics", "-"),
    "suite": ("tasks", ("radeval",), None, "commands", "run_metrics", "-"),
}
# The template folders each declared, beside.
TEMPLATES = {
    "baselines": (),
    "crimson": ("crimson",),
    "ct_finebench": ("ct_finebench",),
    "green_vert": ("green_vert",),
    "judge_sensitivity": ("judge_sensitivity", "green_vert"),
    "ran_score": ("ran_score",),
    "ranking_tests": ("green_vert",),
    "report_generation": (),
    "suite": (),
}
ATTRIBUTES = ("tasks_module", "scorer_modules", "suite_module", "commands_module", "run_metrics_module")


def _in(package: str, module: str | None) -> str | None:
    """`module` of the family's package, written short in the table above (a dotted name is written whole)."""
    if module is None or module == "-" or module.startswith("radiology_tasks."):
        return module
    return f"{package}.{module}"


def _resolved(family: Family) -> tuple[object, ...]:
    values = [getattr(family, attribute) for attribute in ATTRIBUTES]
    values.append(family.rescoring_module if isinstance(family, RescoredFamily) else "-")
    return tuple(values)


@pytest.mark.parametrize("name", sorted(DECLARED))
def test_every_registered_family_resolves_to_what_it_declared_before(name):
    family = next(f for f in families() if f.name == name)
    package = f"radiology_tasks.{name}"
    tasks, scorers, suite, commands, run_metrics, rescoring = DECLARED[name]
    scorer_modules = tuple(_in(package, module) for module in scorers)
    expected = (_in(package, tasks), scorer_modules, *(_in(package, m) for m in (suite, commands, run_metrics)))
    assert _resolved(family) == (*expected, _in(package, rescoring))
    assert family.templates == TEMPLATES[name]
    assert type(family).__module__ == f"{package}.family"


def test_the_table_covers_every_registered_family():
    assert sorted(f.name for f in families()) == sorted(DECLARED) == sorted(TEMPLATES)


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on the import path for packages the test writes; their modules are forgotten afterwards."""
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield tmp_path
    for module in [m for m in sys.modules if m.split(".")[0].startswith("conv_")]:
        del sys.modules[module]


def _package(root: Path, name: str, family: str, modules: tuple[str, ...]) -> None:
    """Write the package `name` (dotted for a sub-package) with a family.py of `family` and empty `modules`."""
    folder = root.joinpath(*name.split("."))
    folder.mkdir(parents=True)
    for part in range(1, len(name.split(".")) + 1):
        root.joinpath(*name.split(".")[:part], "__init__.py").touch()
    for module in modules:
        (folder / f"{module}.py").write_text("raise AssertionError('imported')\n")
    (folder / "family.py").write_text(textwrap.dedent(family))


def test_a_family_in_a_package_gets_its_name_and_modules_by_convention(packages):
    family = """\
        from radiology_tasks.rescored import RescoredFamily

        class Toy(RescoredFamily):
            tasks = ("toy_task",)
            version = "1.0.0"
        """
    _package(packages, "conv_toy.inner", family, ("tasks", "scorer", "suite", "commands", "run_metrics", "rescoring"))
    toy = importlib.import_module("conv_toy.inner.family").Toy()
    assert toy.name == "inner"
    assert toy.tasks_module == "conv_toy.inner.tasks" and toy.package == "conv_toy.inner"
    assert toy.rescoring_module == "conv_toy.inner.rescoring"
    assert toy.scorer_modules == ("conv_toy.inner.scorer",)
    assert toy.suite_module == "conv_toy.inner.suite"
    assert toy.commands_module == "conv_toy.inner.commands"
    assert toy.run_metrics_module == "conv_toy.inner.run_metrics"
    assert toy.templates == ()
    # Found, not imported: every module written raises when imported.
    assert not [m for m in sys.modules if m.startswith("conv_toy.inner.") and m != "conv_toy.inner.family"]


def test_an_optional_module_that_does_not_exist_stays_unset_and_required_ones_are_named_anyway(packages):
    family = """\
        from radiology_tasks.core.family import Family

        class Bare(Family):
            tasks = ("bare_task",)
            version = "1.0.0"
        """
    _package(packages, "conv_bare", family, ())
    bare = importlib.import_module("conv_bare.family").Bare()
    assert (bare.name, bare.tasks_module) == ("conv_bare", "conv_bare.tasks")
    assert bare.scorer_modules == ()
    assert (bare.suite_module, bare.commands_module, bare.run_metrics_module) == (None, None, None)
    assert not hasattr(bare, "rescoring_module")


def test_a_family_named_as_a_shared_template_folder_hashes_that_folder(packages):
    family = "from radiology_tasks.core.family import Family\n\nclass Judged(Family):\n    tasks = ('vert',)\n"
    _package(packages, "conv_judged.green_vert", family, ())
    judged = importlib.import_module("conv_judged.green_vert.family").Judged()
    assert (judged.name, judged.templates) == ("green_vert", ("green_vert",))


def test_an_explicit_attribute_wins_over_the_convention(packages):
    family = """\
        from radiology_tasks.rescored import RescoredFamily

        class Own(RescoredFamily):
            name = "own_name"
            tasks_module = "elsewhere.tasks"
            tasks = ("own_task",)
            version = "1.0.0"
            scorer_modules = ()
            templates = ("green_vert",)
            commands_module = "conv_own.family_commands"
            run_metrics_module = None
            rescoring_module = "elsewhere.rules"
        """
    _package(packages, "conv_own", family, ("scorer", "commands", "run_metrics", "suite"))
    own = importlib.import_module("conv_own.family").Own()
    assert (own.name, own.tasks_module, own.rescoring_module) == ("own_name", "elsewhere.tasks", "elsewhere.rules")
    assert own.scorer_modules == ()
    assert own.templates == ("green_vert",)
    assert own.commands_module == "conv_own.family_commands"
    assert own.run_metrics_module is None
    assert own.suite_module == "conv_own.suite"


def test_a_family_derived_from_another_keeps_what_that_one_has(packages):
    _package(
        packages,
        "conv_base",
        "from radiology_tasks.core.family import Family\n\nclass Base(Family):\n"
        "    tasks = ('base_task',)\n    version = '1.0.0'\n",
        ("run_metrics",),
    )
    derived = "from conv_base.family import Base\n\nclass Derived(Base):\n    version = '2.0.0'\n"
    _package(packages, "conv_derived", derived, ("run_metrics", "suite"))
    family = importlib.import_module("conv_derived.family").Derived()
    assert (family.name, family.tasks_module, family.version) == ("conv_base", "conv_base.tasks", "2.0.0")
    assert family.run_metrics_module == "conv_base.run_metrics"
    assert family.suite_module is None


def test_a_family_defined_outside_a_family_module_gets_nothing_and_instances_set_their_own():
    class Local(Family):
        tasks = ("local_task",)
        version = "1.0.0"

    local = Local()
    assert not hasattr(local, "name") and not hasattr(local, "tasks_module")
    assert local.run_metrics_module is None and local.scorer_modules == ()
    local.name, local.tasks_module = "local", "somewhere.tasks"
    assert (local.name, local.package) == ("local", "somewhere")
    assert not hasattr(Local, "name")
