"""Dependencies point down: the import graph of the source tree has no cycle and no upward edge.

The graph is built from the source with `ast`, so it holds every import a module can run: at module level,
inside functions (lazy imports) and under ``TYPE_CHECKING``. The rules:

- ``core`` (radiology_tasks/core/) imports no family, no scorer or solver package module and no leaderboard
  module;
- no family imports another, a family being radiology_tasks/<f>/, scorers/<f>/, solvers/<f>/ and templates/<f>/
  for each family `radiology_tasks.families` lists;
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


def _part(module: str, family_names: set[str]) -> str:
    """``core``, ``leaderboard``, ``scorers``/``solvers`` (shared modules), ``family:<f>`` or ``other``."""
    parts = module.split(".")
    tree = parts[1] if len(parts) > 1 else ""
    if tree in ("scorers", "solvers", "templates"):
        if len(parts) > 2 and parts[2] in family_names:
            return f"family:{parts[2]}"
        return tree if tree != "templates" else "other"
    if tree in family_names:
        return f"family:{tree}"
    if tree in ("core", "leaderboard"):
        return tree
    return "other"


def upward_edges(graph: dict[str, set[str]], family_names: set[str]) -> set[tuple[str, str]]:
    """Every edge from core to a family, a scorer, a solver or the leaderboard, and from a family to another."""
    found = set()
    for source, targets in graph.items():
        for target in targets:
            here, there = _part(source, family_names), _part(target, family_names)
            core_upward = here == "core" and (
                there.startswith("family:") or there in ("scorers", "solvers", "leaderboard")
            )
            across = here.startswith("family:") and there.startswith("family:") and here != there
            if core_upward or across:
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
    return {family.name for family in families()}


def test_no_import_points_up_or_across_families():
    found = upward_edges(import_graph(ROOT), _family_names())
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
