"""Untrusted text stays inert in the Markdown and CSV tables: rendered by a GitHub-flavoured Markdown parser, and
read back as a spreadsheet would see it."""

from __future__ import annotations

import csv
import io
import re

import pytest

from radiology_tasks.core.table_cells import csv_cell, markdown_cell, markdown_code, one_line

EVIL = "<img src=x onerror=alert(1)><script>alert(2)</script>"


def _cells(cells: list[str]) -> list[str]:
    """The inner HTML of each body cell of a one-row table with the given cells, as GitHub renders it."""
    markdown_it = pytest.importorskip("markdown_it")
    header = "| " + " | ".join(f"h{i}" for i in range(len(cells))) + " |"
    table = "\n".join([header, "|" + "---|" * len(cells), "| " + " | ".join(cells) + " |"]) + "\n"
    html = markdown_it.MarkdownIt("gfm-like").render(table)
    body = html.split("<tbody>")[1]
    return re.findall(r"<td>(.*?)</td>", body, re.DOTALL)


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (EVIL, "&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;/script&gt;"),
        ("a | b", "a | b"),
        ("one\ntwo\r\nthree\rfour\u2028five", "one two three four five"),
        ("`code` and ``more``", "`code` and ``more``"),
        ("[click](evil.html) ![x](y.png)", "[click](evil.html) ![x](y.png)"),
        ("back\\slash\\| and \\", "back\\slash\\| and \\"),
        ("Tom & <b>", "Tom &amp; &lt;b&gt;"),
        ("&lt;", "&amp;lt;"),
    ],
)
def test_a_markdown_cell_shows_the_text_and_nothing_else(text, shown):
    assert _cells([markdown_cell(text), "next"]) == [shown, "next"]


def test_a_markdown_cell_of_none_is_empty_and_of_a_number_its_text():
    assert markdown_cell(None) == "" and markdown_cell(0.5) == "0.5"


@pytest.mark.parametrize(
    "text",
    [EVIL, "logs/a|b.eval", "x`y``z", "a`b", "`starts", "ends`", "`both`", "``", "line\nbreak", "back\\slash &amp;"],
)
def test_a_code_span_shows_the_text_as_written(text):
    (cell, following) = _cells([markdown_code(text), "next"])
    expected = one_line(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
    assert cell == f"<code>{expected}</code>" and following == "next"


@pytest.mark.parametrize("start", ["=", "+", "-", "@", "\t", "\r"])
def test_a_csv_text_that_would_begin_a_formula_is_text(start):
    value = f'{start}HYPERLINK("http://x","y")'
    assert csv_cell(value) == "'" + value
    buffer = io.StringIO()
    csv.writer(buffer).writerow([csv_cell(value), "b"])
    assert next(csv.reader(io.StringIO(buffer.getvalue()))) == ["'" + value, "b"]


@pytest.mark.parametrize("value", ["=1", "@x", "+A", "-A"])
def test_two_characters_are_enough_for_a_formula(value):
    assert csv_cell(value) == "'" + value


@pytest.mark.parametrize("value", ["-0.25", "+1e-3", "-inf", "-", "+", "", "system", "a=b", 3, -2.5, None, True])
def test_numbers_lone_signs_and_other_values_are_kept(value):
    assert csv_cell(value) == value


def test_a_code_span_is_fenced_by_one_backtick_more_than_it_holds_and_padded_only_at_a_backtick():
    assert markdown_code("logs/a.eval") == "`logs/a.eval`"
    assert markdown_code("a`b``c") == "```a`b``c```"
    assert markdown_code("`x") == "`` `x ``" and markdown_code("x`") == "`` x` ``"
