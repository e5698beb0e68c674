"""Every third-party package the installed code imports is declared in pyproject.toml.

An import at module level must be a dependency: it runs whenever the module is imported. An import inside a
function serves one optional feature, so a dependency or an optional extra (not `dev`, which users do not install)
declares it. Import names are mapped to distributions with `importlib.metadata.packages_distributions`, so
`yaml` is PyYAML and `llama_cpp` is llama-cpp-python.
"""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # the dev extra installs tomli there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("radiology_tasks", "scorers", "solvers")
FIRST_PARTY = {*SOURCES, "templates"}
DEVELOPMENT_EXTRAS = {"dev"}
# Declared although nothing here imports it, each with the reason (pyproject.toml says it too).
NOT_IMPORTED = {"openai": "Inspect's openai/ and openai-api/ providers need it"}


@dataclass(frozen=True)
class Import:
    module: str  # top-level name, e.g. ``yaml``
    where: str  # path:line
    in_function: bool


def _imports(path: Path) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inside = in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            names: list[str] = []
            if isinstance(child, ast.Import):
                names = [alias.name for alias in child.names]
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and child.module:
                names = [child.module]
            for name in names:
                where = f"{path.relative_to(ROOT)}:{getattr(child, 'lineno', 0)}"
                found.append(Import(name.split(".")[0], where, inside))
            visit(child, inside)

    visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), False)
    return found


@cache
def _packages() -> Mapping[str, list[str]]:
    return importlib.metadata.packages_distributions()


@cache
def _scan() -> tuple[Import, ...]:
    files = sorted(p for source in SOURCES for p in (ROOT / source).rglob("*.py"))
    return tuple(imp for path in files for imp in _imports(path))


def third_party_imports() -> list[Import]:
    """Every import of another distribution in the installed code (not the standard library, not our packages)."""
    return [imp for imp in _scan() if imp.module not in sys.stdlib_module_names and imp.module not in FIRST_PARTY]


def normalise(name: str) -> str:
    """A distribution name as PEP 503 compares it: ``PyYAML`` and ``pyyaml``, ``llama_cpp_python`` and
    ``llama-cpp-python`` are the same."""
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(requirement: str) -> str:
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    assert match, requirement
    return normalise(match.group(1))


def distributions(module: str) -> set[str]:
    """The distributions that install `module`; a package that is not installed here (an extra such as
    `radeval`) is taken to be named as it is imported."""
    found = _packages().get(module)
    return {normalise(name) for name in found} if found else {normalise(module)}


def undeclared(imports: list[Import], dependencies: set[str], extras: set[str]) -> list[str]:
    """One line per import that no declaration covers, naming the file, line, module and where it belongs."""
    problems = []
    for imp in imports:
        names = distributions(imp.module)
        allowed = dependencies | extras if imp.in_function else dependencies
        if not names & allowed:
            place = "[project] dependencies or an optional extra" if imp.in_function else "[project] dependencies"
            problems.append(f"{imp.where}: {imp.module} ({', '.join(sorted(names))}) is not in {place}")
    return problems


def declared() -> tuple[set[str], set[str]]:
    """The names in `[project] dependencies`, and those of the optional extras a user installs."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dependencies = {requirement_name(r) for r in project["dependencies"]}
    optional = project.get("optional-dependencies", {})
    extras = {requirement_name(r) for name, reqs in optional.items() if name not in DEVELOPMENT_EXTRAS for r in reqs}
    return dependencies, extras


def test_every_third_party_import_is_declared():
    dependencies, extras = declared()
    assert undeclared(third_party_imports(), dependencies, extras) == []


def test_the_scan_sees_module_level_and_function_level_imports():
    imports = third_party_imports()
    by_module = {imp.module: imp for imp in imports}
    module_level = {imp.module for imp in imports if not imp.in_function}
    assert {"inspect_ai", "numpy", "pydantic", "yaml", "rich", "anyio"} <= module_level
    assert all(imp.in_function for imp in imports if imp.module in {"llama_cpp", "matplotlib", "radeval"})
    assert "radiology_tasks" not in by_module and "scorers" not in by_module and "json" not in by_module
    assert distributions("yaml") == {"pyyaml"} and distributions("llama_cpp") == {"llama-cpp-python"}


def test_every_declared_dependency_is_imported_or_has_its_reason():
    dependencies, _ = declared()
    imported = {name for imp in third_party_imports() for name in distributions(imp.module)}
    assert dependencies - imported == set(NOT_IMPORTED)


def _imported_declarations() -> list[str]:
    dependencies, extras = declared()
    imported = {name for imp in third_party_imports() for name in distributions(imp.module)}
    return sorted((dependencies | extras) & imported)


@pytest.mark.parametrize("name", _imported_declarations())
def test_removing_a_declaration_is_caught(name):
    dependencies, extras = declared()
    problems = undeclared(third_party_imports(), dependencies - {name}, extras - {name})
    assert problems, f"removing {name} went unnoticed"
    assert all(name in line.split(" is not in ")[0] for line in problems)


def test_a_module_level_import_needs_a_dependency_not_an_extra():
    dependencies, extras = declared()
    # numpy is imported at module level: declaring it only in an extra is not enough.
    problems = undeclared(third_party_imports(), dependencies - {"numpy"}, extras | {"numpy"})
    assert problems and all("numpy" in line and "[project] dependencies" in line for line in problems)
    # The dev extra does not count: matplotlib (the heatmap) must be in a user's extra.
    assert "matplotlib" in extras
    assert undeclared(third_party_imports(), dependencies, extras - {"matplotlib"})
