"""Dependencies point down: the import graph of the source tree has no cycle and no upward edge.

The graph is built from the source with `ast`, so it holds every import a module can run: at module level,
inside functions (lazy imports) and under ``TYPE_CHECKING``. The rules:

- a family is imported only from its own folders: for each family `radiology_tasks.families` lists, a module
  of radiology_tasks/<f>/, scorers/<f>/, solvers/<f>/ or templates/<f>/ is imported by modules of those folders
  alone, never by shared code (core, the leaderboard, the command line, lm-eval's documents, a shared host such
  as the metric suite) nor by another family;
- ``core`` (radiology_tasks/core/) imports no scorer or solver package module, no leaderboard module and no
  shared host;
- no two modules reach each other.

What the tree still breaks is listed in `KNOWN`, each entry with why it is there: a new offending edge fails, and
so does a listed edge that is gone (take it off the list).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

from radiology_tasks.core.family import families

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("radiology_tasks", "scorers", "solvers", "templates")

# Edges still pointing the wrong way, owned by work that has not landed yet. Keep each with its reason.
KNOWN: dict[tuple[str, str], str] = {}
# Cycles still in the tree (each as its sorted modules), with the reason.
KNOWN_CYCLES: dict[tuple[str, ...], str] = {}


def module_files(root: Path) -> dict[str, Path]:
    """Every module under the packages of `root`, by the dotted name it is imported by (a package by its own name).

    The repository's top-level scorers/, solvers/ and templates/ are installed, and imported, as
    ``radiology_tasks.scorers`` and so on.
    """
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[0] != "radiology_tasks":
                parts = ("radiology_tasks", *parts)
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _target(name: str, modules: Iterable[str]) -> str | None:
    """The module of `modules` that `name` (a module or a name in one) refers to: the longest matching prefix."""
    known = set(modules)
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module's imports of other modules of the tree, wherever in the module they are written."""
    files = module_files(root)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    base = ".".join([*anchor, *([node.module] if node.module else [])])
                names = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for name in names:
                target = _target(name, files)
                if target is not None and target != module:
                    edges.add(target)
        graph[module] = edges
    return graph


def _part(module: str, family_names: set[str], hosts: set[str] = frozenset()) -> str:
    """``core``, ``leaderboard``, ``host``, ``scorers``/``solvers`` (shared modules), ``family:<f>`` or ``other``."""
    parts = module.split(".")
    tree = parts[1] if len(parts) > 1 else ""
    if tree in ("scorers", "solvers", "templates"):
        if len(parts) > 2 and parts[2] in family_names:
            return f"family:{parts[2]}"
        return tree if tree != "templates" else "other"
    if tree in family_names:
        return f"family:{tree}"
    if tree in hosts:
        return "host"
    if tree in ("core", "leaderboard"):
        return tree
    return "other"


def upward_edges(
    graph: dict[str, set[str]], family_names: set[str], hosts: set[str] = frozenset()
) -> set[tuple[str, str]]:
    """Every edge into a family from outside its folders, and from core to a scorer, a solver, the leaderboard or
    a shared host (`hosts`: the package names of the registered shared hosts)."""
    found = set()
    for source, targets in graph.items():
        for target in targets:
            here, there = _part(source, family_names, hosts), _part(target, family_names, hosts)
            core_upward = here == "core" and there in ("scorers", "solvers", "leaderboard", "host")
            into_family = there.startswith("family:") and here != there
            if core_upward or into_family:
                found.add((_shown(source, graph), target))
    return found


def _shown(module: str, graph: dict[str, set[str]]) -> str:
    """A package's module named with ``.__init__``, so an edge says which file holds the import."""
    return f"{module}.__init__" if any(other.startswith(f"{module}.") for other in graph) else module


def cycles(graph: dict[str, set[str]]) -> set[tuple[str, ...]]:
    """The modules that reach each other, one sorted tuple per strongly connected group (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: set[tuple[str, ...]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.add(tuple(sorted(group)))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return groups


def _family_names() -> set[str]:
    return {family.name for family in families() if not family.shared_host}


def _hosts() -> set[str]:
    return {family.name for family in families() if family.shared_host}


def test_no_import_points_up_or_into_a_family_from_outside():
    found = upward_edges(import_graph(ROOT), _family_names(), _hosts())
    new = sorted(found - set(KNOWN))
    assert new == [], "imports against the layering:\n" + "\n".join(f"  {a} -> {b}" for a, b in new)
    gone = sorted(set(KNOWN) - found)
    assert gone == [], "listed in KNOWN but no longer imported (take them off):\n" + "\n".join(map(str, gone))


def test_no_two_modules_import_each_other():
    found = cycles(import_graph(ROOT))
    new = sorted(found - set(KNOWN_CYCLES))
    assert new == [], "import cycles:\n" + "\n".join(f"  {' <-> '.join(group)}" for group in new)
    gone = sorted(set(KNOWN_CYCLES) - found)
    assert gone == [], "listed in KNOWN_CYCLES but gone (take them off):\n" + "\n".join(map(str, gone))


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for package in PACKAGES:
        (root / package).mkdir(exist_ok=True)
    return root


def test_a_planted_lazy_upward_import_and_a_cycle_are_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "radiology_tasks/__init__.py": "",
            "radiology_tasks/core/__init__.py": "",
            "radiology_tasks/core/records.py": "def f():\n    from radiology_tasks.leaderboard.board import x\n",
            "radiology_tasks/core/typed.py": (
                "import typing\nif typing.TYPE_CHECKING:\n    import radiology_tasks.scorers.a\n"
            ),
            "radiology_tasks/leaderboard/__init__.py": "",
            "radiology_tasks/leaderboard/board.py": "from radiology_tasks.core import records\n",
            "radiology_tasks/toy/__init__.py": "",
            "radiology_tasks/toy/tasks.py": "from . import scorer\nfrom radiology_tasks.other.tasks import t\n",
            "radiology_tasks/toy/scorer.py": "",
            "radiology_tasks/other/__init__.py": "",
            "radiology_tasks/other/tasks.py": "",
            "scorers/__init__.py": "",
            "scorers/a.py": "",
        },
    )
    graph = import_graph(root)
    assert graph["radiology_tasks.toy.tasks"] == {"radiology_tasks.toy.scorer", "radiology_tasks.other.tasks"}
    assert upward_edges(graph, {"toy", "other"}) == {
        ("radiology_tasks.core.records", "radiology_tasks.leaderboard.board"),
        ("radiology_tasks.core.typed", "radiology_tasks.scorers.a"),
        ("radiology_tasks.toy.tasks", "radiology_tasks.other.tasks"),
    }
    assert cycles(graph) == {("radiology_tasks.core.records", "radiology_tasks.leaderboard.board")}


def test_an_import_of_a_family_from_shared_code_or_another_family_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "radiology_tasks/__init__.py": "",
            "radiology_tasks/cli.py": "def f():\n    from radiology_tasks.toy.tasks import t\n",
            "radiology_tasks/suite/tasks.py": "import radiology_tasks.scorers.toy.parse\n",
            "radiology_tasks/lm_eval_tasks/documents.py": "from radiology_tasks.solvers.toy import make\n",
            "radiology_tasks/other/tasks.py": "from radiology_tasks.toy import family\n",
            "radiology_tasks/toy/__init__.py": "",
            "radiology_tasks/toy/tasks.py": "from radiology_tasks.suite import tasks\n",
            "radiology_tasks/toy/family.py": "",
            "scorers/__init__.py": "",
            "scorers/toy/parse.py": "",
            "scorers/shared.py": "from radiology_tasks.scorers.toy import parse\n",
            "solvers/toy/make.py": "",
        },
    )
    assert upward_edges(import_graph(root), {"toy", "other"}, {"suite"}) == {
        ("radiology_tasks.cli", "radiology_tasks.toy.tasks"),
        ("radiology_tasks.suite.tasks", "radiology_tasks.scorers.toy.parse"),
        ("radiology_tasks.lm_eval_tasks.documents", "radiology_tasks.solvers.toy.make"),
        ("radiology_tasks.other.tasks", "radiology_tasks.toy.family"),
        ("radiology_tasks.scorers.shared", "radiology_tasks.scorers.toy.parse"),
    }, "a family importing a shared host is fine; shared code or another family importing it is not"


def _copy_of_the_tree(tmp_path: Path) -> Path:
    """The repository's packages as they are (links kept), copied under `tmp_path`."""
    import shutil

    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, symlinks=True, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def test_an_import_of_a_family_planted_in_a_copy_of_a_shared_module_is_found(tmp_path):
    # The real tree, with one lazy import of a real family planted in a copy of each kind of shared module.
    root = _copy_of_the_tree(tmp_path)
    family = sorted(_family_names())[0]
    target = f"radiology_tasks.{family}.family"
    planted = f"\n\ndef _planted():\n    import {target}  # noqa: F401\n"
    shared = ["radiology_tasks/core/records.py", "radiology_tasks/leaderboard/board.py", "radiology_tasks/api.py"]
    shared += [f"radiology_tasks/{host}/__init__.py" for host in sorted(_hosts())]
    expected = set(KNOWN)
    for path in shared:
        with (root / path).open("a") as module:
            module.write(planted)
        name = path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        expected.add((_shown(name, import_graph(root)), target))
    assert upward_edges(import_graph(root), _family_names(), _hosts()) == expected


def test_a_family_importing_its_own_modules_and_core_is_fine(tmp_path):
    root = _tree(
        tmp_path,
        {
            "radiology_tasks/core/metrics.py": "",
            "radiology_tasks/toy/tasks.py": (
                "from radiology_tasks.core.metrics import m\nimport radiology_tasks.scorers.toy.parse\n"
            ),
            "scorers/toy/parse.py": "from radiology_tasks.core import metrics\n",
        },
    )
    graph = import_graph(root)
    assert upward_edges(graph, {"toy"}) == set() and cycles(graph) == set()


def top_level_imports(root: Path) -> list[str]:
    """Every import of `scorers`, `solvers` or `templates` as a top-level name (``file:line``): the wheel installs
    them only under ``radiology_tasks``, so such an import works in the repository and fails once installed."""
    found = []
    for path in sorted(module_files(root).values()):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            if any(name.split(".")[0] in PACKAGES[1:] for name in names):
                found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_nothing_imports_scorers_solvers_or_templates_as_top_level_packages():
    assert top_level_imports(ROOT) == []


def test_a_top_level_import_is_found(tmp_path):
    root = _tree(tmp_path, {"radiology_tasks/core/x.py": "import math\nfrom scorers.agreement import f\n"})
    assert top_level_imports(root) == ["radiology_tasks/core/x.py:2"]
