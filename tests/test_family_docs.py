"""The shared documents list the families' tasks as the registry has them: generated blocks, checked by CI."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai import Task, task

from radiology_tasks.core.data_options import DataOptions
from radiology_tasks.core.family import Family, add_family, registered_tasks, remove_family
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.task_options import option, shared, shared_parameters
from radiology_tasks.family_docs import FILES, LISTS, refresh_lists, task_table, update_lists
from radiology_tasks.leaderboard.rescore import rescorable_tasks
from radiology_tasks.task_docs import TaskDocError

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Knobs:
    """Options another shared group gives (a family's own, shared by its tasks)."""

    size: int = option(3, "How big.")
    depth: int = option(1, "How deep.")


@task
@shared_parameters(data=shared(DataOptions), judge=shared(JudgeOptions), knobs=shared(Knobs))
def docs_toy(threshold: float = 0.5, *, data: DataOptions, judge: JudgeOptions, knobs: Knobs) -> Task:
    """Toy ``docs`` task: scores | nothing.

    Args:
        threshold: A cut-off.
    """
    raise NotImplementedError


class DocsToy(Family):
    name = "docs_toy"
    tasks_module = __name__
    tasks = ("docs_toy",)
    version = "0.0.1"


@pytest.fixture
def toy() -> Iterator[None]:
    add_family(DocsToy())
    yield
    remove_family("docs_toy")


@pytest.mark.parametrize("relative", FILES, ids=str)
def test_each_shared_document_holds_the_lists_as_the_families_give_them(relative):
    text = (ROOT / relative).read_text(encoding="utf-8")
    refreshed, stale = refresh_lists(text, relative)
    assert stale == [], f"{relative} is stale: run `radiology-tasks task-docs`"
    assert refreshed == text


def test_the_task_table_has_a_row_per_registered_task_with_its_own_parameters(toy):
    rows = task_table(Path("README.md"))[2:]
    assert [row.split(" | ")[0] for row in rows] == [f"| `{name}`" for name, _ in registered_tasks()]
    (row,) = [row for row in rows if row.startswith("| `docs_toy`")]
    # The docstring's first line as Markdown; the parameters beyond the data and judge ones, other shared groups
    # included; a link from the README's folder to the family README's table.
    assert row == (
        "| `docs_toy` | Toy `docs` task: scores \\| nothing. | `threshold`, `size`, `depth` "
        "([all of them](tests/README.md#parameters)) |"
    )


def test_links_are_relative_to_the_document(toy):
    (line,) = [line for line in LISTS["changelogs"](Path("docs/changelog.md")) if "docs_toy" in line]
    assert line.startswith("[`docs_toy`](../tests/README.md#changelog)")
    assert LISTS["parameter-tables"](Path("README.md"))[-1].endswith(".")


def test_the_submittable_list_is_the_leaderboards():
    (text,) = [" ".join(LISTS["submittable"](Path("x.md")))]
    assert re.findall(r"`(\w+)`", text) == sorted(rescorable_tasks())


def test_an_edited_list_is_named_and_rewritten(tmp_path, capsys):
    for relative in FILES:
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text((ROOT / relative).read_text(encoding="utf-8"), encoding="utf-8")
    readme = tmp_path / "README.md"
    original = readme.read_text(encoding="utf-8")
    readme.write_text(original.replace("| `radiology_tasks/", "| `radiology_tasks/x", 1), encoding="utf-8")
    assert update_lists(tmp_path, check=True) == [readme]
    (line,) = capsys.readouterr().out.splitlines()
    assert re.fullmatch(rf"{re.escape(str(readme))}:\d+: the families block of task-table differs from .*", line)
    assert readme.read_text(encoding="utf-8") != original, "check changes nothing"
    assert update_lists(tmp_path, check=False) == [readme]
    assert readme.read_text(encoding="utf-8") == original
    assert update_lists(tmp_path, check=True) == []


def test_an_unknown_list_and_a_broken_marker_are_refused():
    with pytest.raises(TaskDocError, match=r"^x.md:1: no list 'nonesuch' \(lists: task-table, "):
        refresh_lists("<!-- families:start nonesuch -->\n<!-- families:end -->\n", Path("x.md"))
    with pytest.raises(TaskDocError, match=r"^x.md:1: the block is not closed with <!-- families:end -->"):
        refresh_lists("<!-- families:start task-table -->\n", Path("x.md"))
    with pytest.raises(TaskDocError, match=r"^x.md: no <!-- families:start --> ... <!-- families:end --> block"):
        refresh_lists("nothing listed\n", Path("x.md"))
