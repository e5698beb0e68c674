"""No function in the package is longer than a screen: the short-functions rule, checked on every file.

Ruff's complexity rules (pyproject.toml: C901, PLR0912, PLR0915) gate branching and statements; they do not count
lines, so this test does: a function's lines run from its `def` (decorators apart) to its last line, docstring
included.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DIRS = ("radiology_tasks", "scorers", "solvers", "bench")
MAX_LINES = 60


def long_functions(source: str, limit: int = MAX_LINES) -> list[tuple[str, int, int]]:
    """(name, first line, length) of every function or method in `source` longer than `limit` lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append((node.name, node.lineno, length))
    return found


def test_the_count_starts_at_def_and_includes_the_docstring():
    body = "\n".join(f"    x{i} = {i}" for i in range(57))
    exact = f'def f():\n    """Doc."""\n{body}\n    return 0\n'  # 60 lines
    assert long_functions(exact) == []
    longer = exact.replace('"""Doc."""', '"""Doc.\n\n    More.\n    """')
    assert long_functions(longer) == [("f", 1, 63)]
    nested = "class A:\n    @staticmethod\n" + "".join("    " + line + "\n" for line in longer.splitlines())
    assert long_functions(nested) == [("f", 3, 63)]


def test_no_function_in_the_package_is_longer_than_sixty_lines():
    found = [
        f"{path.relative_to(ROOT)}:{line} {name} ({length} lines)"
        for folder in PACKAGE_DIRS
        for path in sorted((ROOT / folder).rglob("*.py"))
        for name, line, length in long_functions(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "split these into functions of at most 60 lines:\n" + "\n".join(found)
