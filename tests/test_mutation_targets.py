"""What mutation testing covers: pyproject.toml lists the shared modules, each family names its own in its
`family.py`, and bench/mutation.py adds them, so a new family edits nothing shared for it."""

from __future__ import annotations

import fnmatch
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from radiology_tasks.core.family import Family, families, mutation_targets

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_mutation", ROOT / "bench" / "mutation.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _configured() -> list[str]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mutmut"]["only_mutate"]


def _files(pattern: str) -> list[Path]:
    """The repository's files a mutmut pattern matches (``*`` spans folders, as in mutmut)."""
    return [p for p in ROOT.rglob("*.py") if fnmatch.fnmatch(p.relative_to(ROOT).as_posix(), pattern)]


def test_pyproject_lists_shared_modules_only():
    packages = {family.package.split(".")[-1] for family in families()}
    named = [entry for entry in _configured() if entry.split("/")[:2][-1] in packages and "radiology_tasks/" in entry]
    assert named == [], "a family's modules belong in its family.py (Family.mutation_tested), not in pyproject.toml"


@pytest.mark.parametrize("family", families(), ids=lambda family: family.name)
def test_each_family_names_existing_modules_of_its_own_folder(family: Family):
    folder = family.package.replace(".", "/")
    for pattern in family.mutation_tested:
        assert not pattern.startswith("/") and ".." not in pattern.split("/"), pattern
        assert _files(f"{folder}/{pattern}"), f"{family.name}: {pattern} matches no module"


def test_the_targets_are_the_families_patterns_under_their_folders():
    expected = [f"{f.package.replace('.', '/')}/{pattern}" for f in families() for pattern in f.mutation_tested]
    assert mutation_targets() == expected and expected, "some family names its own modules"


def test_the_mutation_script_adds_the_families_modules_to_the_configured_ones(tmp_path):
    bench = _bench()
    assert bench.family_modules(ROOT) == mutation_targets(), "read from the tree's own registry"
    text = (ROOT / "pyproject.toml").read_text()
    added = bench.with_modules(text, ["radiology_tasks/toy/a.py", _configured()[0]])
    only = tomllib.loads(added)["tool"]["mutmut"]["only_mutate"]
    assert only == [*_configured(), "radiology_tasks/toy/a.py"], "added once, at the end, the rest unchanged"
    assert added.replace('    "radiology_tasks/toy/a.py",\n', "") == text
