"""Every task documents each `-T` parameter in its docstring, and the READMEs' tables are those docstrings: each
task's in its family's README, the shared ones in docs/parameters.md."""

from __future__ import annotations

import inspect
import re
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.cli import main, registered_tasks
from radiology_tasks.core.family import families, family_of
from radiology_tasks.family_docs import FILES as LIST_FILES
from radiology_tasks.task_docs import (
    END,
    SHARED_DOC,
    START,
    Parameter,
    TaskDoc,
    TaskDocError,
    check_placement,
    default_text,
    family_readme,
    find_blocks,
    parse_args_section,
    refresh,
    registered_task_docs,
    render,
    render_task,
    targets,
    task_doc,
    task_docs_command,
)

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / SHARED_DOC
TASKS = {task for family in families() for task in family.tasks}


@pytest.fixture(scope="module")
def docs() -> list[TaskDoc]:
    return registered_task_docs()


def _first_row_edit(doc: TaskDoc) -> tuple[str, str]:
    """A task's first table row as generated, and the same row with its default changed (an edit by hand)."""
    row = render_task(doc)[2]
    name, default = row.split(" | ")[:2]
    return row, row.replace(f"{name} | {default} |", f"{name} | `edited-by-hand` |", 1)


def test_every_parameter_of_every_task_is_documented(docs):
    assert {doc.short_name for doc in docs} == TASKS
    for (name, task_fn), doc in zip(registered_tasks(), docs, strict=True):
        assert doc.name == name
        assert [p.name for p in doc.parameters] == list(inspect.signature(task_fn).parameters)
        for parameter in doc.parameters:
            assert parameter.description.strip(), f"{name}: {parameter.name}"


def test_task_docstrings_cite_papers_not_local_files_or_issues():
    for name, task_fn in registered_tasks():
        module = sys.modules[task_fn.__module__]
        for text in (module.__doc__ or "", task_fn.__doc__ or ""):
            assert "../" not in text, name
            assert "shared/seeds" not in text, name
            assert not re.search(r"\bissue #?\d", text, re.IGNORECASE), name


def test_the_readme_holds_the_rendering_of_the_docstrings(docs):
    text = README.read_text(encoding="utf-8")
    refreshed, stale = refresh(text, docs, "README.md")
    assert stale == [], "docs/parameters.md is stale: run `radiology-tasks task-docs`"
    assert refreshed == text
    assert "\n".join(render(docs)) in text


def test_each_family_readme_holds_its_tasks_tables(docs):
    wanted = targets(docs)
    assert wanted[SHARED_DOC] == [None]
    assert sorted(task for tasks in wanted.values() for task in tasks if task) == sorted(TASKS)
    for family in families():
        readme = Path(*family.tasks_module.split(".")[:-1]) / "README.md"
        assert sorted(wanted[readme]) == sorted(family.tasks), family.name
    for doc in docs:
        path = ROOT / family_readme(doc.short_name)
        text = path.read_text(encoding="utf-8")
        refreshed, stale = refresh(text, docs, str(path))
        assert stale == [], f"{path} is stale: run `radiology-tasks task-docs`"
        assert refreshed == text
        assert "\n".join(render_task(doc)) in text, doc.name


def test_the_default_check_passes_from_the_repository(monkeypatch, capsys):
    monkeypatch.chdir(ROOT)
    assert main(["task-docs", "--check"]) == 0
    assert capsys.readouterr().out == ""


def test_editing_the_readme_alone_is_caught(docs):
    text = README.read_text(encoding="utf-8")
    edited = text.replace("| `on_bad_rows` | `error` |", "| `on_bad_rows` | `skip` |", 1)
    assert edited != text
    refreshed, stale = refresh(edited, docs, "README.md")
    assert [block.task for block in stale] == [None]
    assert refreshed == text


@pytest.mark.parametrize("task", sorted(TASKS))
def test_editing_a_family_readme_alone_is_caught(docs, task):
    (doc,) = [doc for doc in docs if doc.short_name == task]
    text = (ROOT / family_readme(task)).read_text(encoding="utf-8")
    start = text.index(f"<!-- task-parameters:start {task} -->")
    row, edited_row = _first_row_edit(doc)
    edited = text[:start] + text[start:].replace(row, edited_row, 1)
    assert edited != text
    refreshed, stale = refresh(edited, docs, "README.md")
    assert [block.task for block in stale] == [task]
    assert refreshed == text


def test_editing_a_docstring_alone_is_caught(docs):
    text = README.read_text(encoding="utf-8")
    first = docs[0]
    # A parameter every task shares, so its row is in docs/parameters.md as well as in the task's own table.
    index = [p.name for p in first.parameters].index("on_bad_rows")
    parameters = list(first.parameters)
    parameters[index] = replace(parameters[index], description=parameters[index].description + " Changed.")
    edited_docs = [replace(first, parameters=tuple(parameters)), *docs[1:]]
    _, stale = refresh(text, edited_docs, "README.md")
    assert len(stale) == 1
    family = ROOT / family_readme(first.short_name)
    _, stale = refresh(family.read_text(encoding="utf-8"), edited_docs, str(family))
    assert [block.short_task for block in stale] == [first.short_name]


def _fake_task(data: str | None = None, limit: int = 3) -> None:
    """A fake task.

    Args:
        data: The data.
    """


def test_a_parameter_without_an_entry_names_task_and_parameter():
    with pytest.raises(TaskDocError, match=r"^task fake/task: parameter 'limit' has no entry in the Args: section"):
        task_doc("fake/task", _fake_task)


def test_an_entry_without_a_parameter_names_task_and_entry():
    def fake(data: str | None = None) -> None:
        """A fake task.

        Args:
            data: The data.
            limt: A typo.
        """

    with pytest.raises(TaskDocError, match=r"^task fake/task: the Args: entry 'limt' names no parameter"):
        task_doc("fake/task", fake)


def test_a_docstring_without_args_names_the_first_parameter():
    def fake(data: str | None = None) -> None:
        """A fake task."""

    with pytest.raises(TaskDocError, match=r"^task fake/task: parameter 'data' has no entry"):
        task_doc("fake/task", fake)


def test_the_parser_reads_google_style_entries_and_stops_at_the_next_section():
    doc = inspect.cleandoc(
        """Summary.

        Args:
            data (str): First line
                and its continuation.

            limit: Second.

        Returns:
            not: an entry.
        """
    )
    assert parse_args_section(doc, "t") == {"data": "First line and its continuation.", "limit": "Second."}
    assert parse_args_section("Summary only.", "t") == {}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("Args:\n    data: One.\n    data: Two.", "parameter 'data' has two entries"),
        ("Args:\n  data: Two spaces.", "neither '    name: text' nor an 8-space continuation"),
        ("Args:\n        data: continuation first.", "neither '    name: text' nor an 8-space continuation"),
        ("Args:\n    data:", "neither '    name: text' nor an 8-space continuation"),
        ("Args:\n    data: One.\nloose text", "unindented text inside the Args: section"),
        ("Args:\n    data: One.\nArgs:\n    limit: Two.", "has 2 Args: sections"),
    ],
)
def test_the_parser_is_strict(body, message):
    with pytest.raises(TaskDocError, match=rf"^task x: .*{re.escape(message)}"):
        parse_args_section(body, "task x")


def _doc(name: str, *parameters: tuple[str, object, str]) -> TaskDoc:
    return TaskDoc(f"radiology_tasks/{name}", tuple(Parameter(*p) for p in parameters))


def test_rendering_groups_common_shared_and_own_parameters():
    a = _doc("a", ("data", None, "The data."), ("flag", False, "A | B."), ("mode", "x", "Mode of a."))
    b = _doc("b", ("data", None, "The data."), ("flag", False, "A | B."), ("mode", "x", "Mode of b."))
    c = _doc("c", ("data", None, "The data."), ("flag", True, "A | B."))
    text = "\n".join(render([a, b, c]))
    common, shared = text.split("Parameters several tasks share", 1)
    own = "".join(line for line in shared.splitlines(keepends=True) if "Mode of" in line or "| `true` |" in line)
    assert "| `data` | not set | The data. |" in common
    assert "flag" not in common  # c's default differs
    assert "| `flag` | `false` | `a` and `b` | A \\| B. |" in shared
    assert own == ""  # each task's own parameters are in its full table, in its family's README
    assert "| `mode` | `x` | Mode of a. |" in "\n".join(render_task(a)) and "Mode of a" not in text
    assert "| `flag` | `true` | A \\| B. |" in "\n".join(render_task(c))
    assert [default_text(v) for v in (None, True, 0.0, "bleu,chrf", inspect.Parameter.empty)] == [
        "not set",
        "`true`",
        "`0.0`",
        "`bleu,chrf`",
        "required",
    ]


def test_a_marker_naming_a_task_gets_all_its_parameters(docs):
    doc = docs[0]
    text = f"# t\n\n<!-- task-parameters:start {doc.short_name} -->\nold\n<!-- task-parameters:end -->\n"
    refreshed, stale = refresh(text, docs, "t.md")
    assert [block.task for block in stale] == [doc.short_name]
    rows = [line for line in refreshed.splitlines() if line.startswith("| `")]
    assert [row.split("`")[1] for row in rows] == [p.name for p in doc.parameters]
    with pytest.raises(TaskDocError, match=r"t.md:3: no task 'nonesuch'"):
        refresh(text.replace(doc.short_name, "nonesuch"), docs, "t.md")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("no markers\n", "no <!-- task-parameters:start --> ... <!-- task-parameters:end --> block"),
        (f"{START}\n", "the block is not closed"),
        (f"{END}\n", "without a start marker"),
        (f"{START}\n{START}\n{END}\n", "a start marker inside the block opened at 1"),
        ("<!-- task-parameters:start  -->\n", "not a task-parameters marker"),
    ],
)
def test_broken_markers_are_refused(docs, text, message):
    with pytest.raises(TaskDocError, match=re.escape(message)):
        refresh(text, docs, "x.md")


def test_the_command_checks_and_rewrites_the_readme(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text(README.read_text(encoding="utf-8"), encoding="utf-8")
    assert main(["task-docs", "--check", "--readme", str(readme)]) == 0
    assert capsys.readouterr().out == ""

    readme.write_text(readme.read_text(encoding="utf-8").replace("| `on_bad_rows` | `error` |", "| x | y |"))
    assert main(["task-docs", "--check", "--readme", str(readme)]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert re.fullmatch(rf"{re.escape(str(readme))}:\d+: the task-parameters block differs from the tasks' .*", line)

    assert main(["task-docs", "--readme", str(readme)]) == 0
    assert "rewrote 1 task-parameters block" in capsys.readouterr().out
    assert readme.read_text(encoding="utf-8") == README.read_text(encoding="utf-8")
    assert main(["task-docs", "--check", "--readme", str(readme)]) == 0


def test_the_command_refuses_a_file_without_markers(tmp_path, capsys):
    readme = tmp_path / "README.md"
    readme.write_text("# nothing generated here\n", encoding="utf-8")
    assert main(["task-docs", "--check", "--readme", str(readme)]) == 2
    assert "no <!-- task-parameters:start -->" in capsys.readouterr().err


def _copy_tree(tmp_path: Path, docs: list[TaskDoc]) -> Path:
    """docs/parameters.md, every family README and the documents listing the families under `tmp_path`, at their
    repository paths."""
    for path in [*targets(docs), *LIST_FILES]:
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text((ROOT / path).read_text(encoding="utf-8"), encoding="utf-8")
    return tmp_path


def test_the_default_command_checks_and_rewrites_every_family_readme(docs, tmp_path, capsys):
    root = _copy_tree(tmp_path, docs)
    doc = docs[-1]
    readme = root / family_readme(doc.short_name)
    assert task_docs_command(None, check=True, root=root) == 0
    original = readme.read_text(encoding="utf-8")
    readme.write_text(original.replace(*_first_row_edit(doc), 1), encoding="utf-8")
    assert task_docs_command(None, check=True, root=root) == 1
    (line,) = capsys.readouterr().out.splitlines()
    pattern = rf"{re.escape(str(readme))}:\d+: the task-parameters block of {doc.short_name} differs from .*"
    assert re.fullmatch(pattern, line)
    assert task_docs_command(None, check=False, root=root) == 0
    assert readme.read_text(encoding="utf-8") == original
    assert task_docs_command(None, check=True, root=root) == 0


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_missing_block_is_refused(docs, task):
    path = family_readme(task)
    blocks = find_blocks((ROOT / path).read_text(encoding="utf-8").split("\n"), str(path))
    check_placement(blocks, targets(docs)[path], str(path))
    without = [block for block in blocks if block.short_task != task]
    with pytest.raises(TaskDocError, match=rf"README.md: the parameter table of task {task} is missing"):
        check_placement(without, targets(docs)[path], str(path))


def test_a_block_in_another_familys_readme_is_refused(docs, tmp_path):
    root = _copy_tree(tmp_path, docs)
    first, other_task = (
        docs[0].short_name,
        next(d.short_name for d in docs if family_of(d.short_name) is not family_of(docs[0].short_name)),
    )
    other = root / family_readme(other_task)
    other.write_text(other.read_text(encoding="utf-8") + f"\n<!-- task-parameters:start {first} -->\n" + END + "\n")
    home = re.escape(str(family_readme(first)))
    with pytest.raises(TaskDocError, match=rf"block of {first} belongs in {home}, not here"):
        task_docs_command(None, check=True, root=root)
    shared = root / SHARED_DOC
    shared.write_text(shared.read_text(encoding="utf-8") + f"\n{START}\n{END}\n", encoding="utf-8")
    with pytest.raises(TaskDocError, match=r"the task-parameters block is there twice"):
        task_docs_command(None, check=True, root=root)
