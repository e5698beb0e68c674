"""The lists of the families' tasks in the shared documents, generated from the registered families.

A shared document names no family by hand: where it lists the tasks (the README's task table, the family
READMEs holding the parameter tables and the changelogs, the tasks the leaderboard accepts), it holds a block
between ``<!-- families:start NAME -->`` and ``<!-- families:end -->``, and `radiology-tasks task-docs` writes
the list NAME there from the registered families (`--check` names each block that differs). Adding a family
then changes these documents by running the command, not by editing them.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from radiology_tasks.task_docs import FIX, Block, TaskDocError, find_blocks

KIND = "families"
"""The kind of the lists' markers."""
FILES = (
    Path("README.md"),
    Path("docs/parameters.md"),
    Path("docs/changelog.md"),
    Path("radiology_tasks/leaderboard/README.md"),
)
"""The shared documents that hold lists, relative to the repository root."""


def _markdown(text: str) -> str:
    """Docstring text as Markdown: reStructuredText literals (``x``) become Markdown ones (`x`); pipes escaped."""
    return text.replace("``", "`").replace("|", "\\|")


def _summary(task_fn: Callable[..., Any]) -> str:
    lines = (task_fn.__doc__ or "").strip().splitlines()
    return _markdown(lines[0].strip()) if lines else ""


def _own_parameters(task_fn: Callable[..., Any]) -> list[str]:
    """The task's parameters beyond the data and judge parameters every family shares."""
    from radiology_tasks.core.data_options import DataOptions
    from radiology_tasks.core.judge_options import JudgeOptions
    from radiology_tasks.core.task_options import shared_fields

    common = {*shared_fields(task_fn, DataOptions), *shared_fields(task_fn, JudgeOptions)}
    return [name for name in inspect.signature(task_fn).parameters if name not in common]


def _readme(task: str) -> Path:
    from radiology_tasks.task_docs import family_readme

    return family_readme(task)


def _link(text: str, target: Path, anchor: str, source: Path) -> str:
    relative = Path(os.path.relpath(target, source.parent)).as_posix()
    return f"[{text}]({relative}#{anchor})"


def _by_readme() -> dict[Path, list[str]]:
    """Each family README with the short names of the tasks it documents, in task-name order."""
    from radiology_tasks.core.family import registered_tasks

    found: dict[Path, list[str]] = {}
    for name, _ in registered_tasks():
        task = name.rsplit("/", 1)[-1]
        found.setdefault(_readme(task), []).append(task)
    return found


def task_table(source: Path) -> list[str]:
    """The README's task table: each task, what it measures (its docstring's first line) and its own parameters."""
    from radiology_tasks.core.family import registered_tasks

    lines = ["| task | what it measures | `-T` parameters beyond the data and judge ones |", "|---|---|---|"]
    for name, task_fn in registered_tasks():
        own = ", ".join(f"`{p}`" for p in _own_parameters(task_fn)) or "none"
        table = _link("all of them", _readme(name.rsplit("/", 1)[-1]), "parameters", source)
        lines.append(f"| `{name}` | {_summary(task_fn)} | {own} ({table}) |")
    return lines


def _sentence(items: list[str]) -> list[str]:
    """Items as the lines of one sentence: one item a line, commas between, "and" before the last, a full stop."""
    if len(items) < 2:
        return [f"{item}." for item in items]
    return [*(f"{item}," for item in items[:-2]), f"{items[-2]} and", f"{items[-1]}."]


def _readme_links(anchor: str, source: Path) -> list[str]:
    return _sentence(
        [_link(", ".join(f"`{t}`" for t in tasks), readme, anchor, source) for readme, tasks in _by_readme().items()]
    )


def parameter_tables(source: Path) -> list[str]:
    """Links to the family READMEs holding each task's parameter table."""
    return _readme_links("parameters", source)


def changelogs(source: Path) -> list[str]:
    """Links to the family READMEs holding each task's changelog."""
    return _readme_links("changelog", source)


def submittable(source: Path) -> list[str]:
    """The tasks whose logs the leaderboard re-scores and ranks (their family declares how)."""
    from radiology_tasks.leaderboard.rescore import rescorable_tasks

    return _sentence([f"`{task}`" for task in sorted(rescorable_tasks())])


LISTS: dict[str, Callable[[Path], list[str]]] = {
    "task-table": task_table,
    "parameter-tables": parameter_tables,
    "changelogs": changelogs,
    "submittable": submittable,
}
"""Each list a block can name, rendered for the document at the given path (for its relative links)."""


def _body(block: Block, source: Path) -> list[str]:
    render = LISTS.get(block.task or "")
    if render is None:
        raise TaskDocError(f"{source}:{block.line}: no list {block.task!r} (lists: {', '.join(LISTS)})")
    return ["", *render(source), ""]


def refresh_lists(text: str, source: Path) -> tuple[str, list[Block]]:
    """`text` (the document at `source`, relative to the repository root) with every list rendered anew, and the
    blocks whose text differed."""
    lines = text.split("\n")
    stale: list[Block] = []
    for block in reversed(find_blocks(lines, str(source), KIND)):
        body = _body(block, source)
        if lines[block.body_start : block.body_end] != body:
            stale.append(block)
            lines[block.body_start : block.body_end] = body
    return "\n".join(lines), stale[::-1]


def update_lists(root: Path, *, check: bool, files: Sequence[Path] = FILES) -> list[Path]:
    """Rewrite the lists of the shared documents under `root` (or, `check`, name each that differs); the files
    whose lists differed."""
    changed = []
    for relative in files:
        path = root / relative
        text = path.read_text(encoding="utf-8")
        new_text, stale = refresh_lists(text, relative)
        if not stale:
            continue
        changed.append(path)
        if check:
            for block in stale:
                print(f"{path}:{block.line}: {block.label} differs from the registered families ({FIX})")
        else:
            path.write_text(new_text, encoding="utf-8")
            print(f"{path}: rewrote {len(stale)} families block(s)")
    return changed
