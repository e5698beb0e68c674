"""Text from logs and submissions, made inert in the Markdown and CSV tables this package writes.

A system's name, a task setting or a log's file name comes from whoever wrote the log or the bundle. In a Markdown
table such text must not close its cell, start a new row, become HTML or a link; in a CSV file opened in a
spreadsheet it must not become a formula. Every writer of these tables escapes its text cells here.
"""

from __future__ import annotations

import re

_MARKDOWN_SPECIAL = re.compile(r"([\\`|\[\]])")
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\u2028\u2029]")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
"""How a cell that a spreadsheet reads as a formula begins (OWASP's list for CSV injection)."""


def one_line(text: str) -> str:
    """`text` with each line break (CR, LF, CRLF, Unicode line and paragraph separators) made a space."""
    return _LINE_BREAKS.sub(" ", text)


def markdown_cell(text: object) -> str:
    """`text` as it reads in a Markdown table cell, inert: HTML special characters as entities, backslashes,
    backticks, pipes and brackets escaped (no code span, no link, no cell boundary), line breaks as spaces.
    None is the empty cell."""
    if text is None:
        return ""
    escaped = "".join(_HTML.get(character, character) for character in one_line(str(text)))
    return _MARKDOWN_SPECIAL.sub(r"\\\1", escaped)


def markdown_code(text: object) -> str:
    """`text` as a code span in a Markdown table cell: shown as written, HTML included, on one line.

    A code span shows backslashes and entities literally, so it is fenced by one backtick more than the longest
    run of backticks in the text (padded with a space where the text begins or ends with one); pipes are
    escaped, which a table reads before the code span.
    """
    body = one_line(str(text)).replace("|", "\\|")
    runs = [len(run) for run in re.findall(r"`+", body)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def csv_cell(value: object) -> object:
    """`value` safe to open in a spreadsheet: a text that would begin a formula gets a leading apostrophe (which
    spreadsheets read as "this is text"); numbers, numeric texts (``-0.25``), a lone sign and other values are
    kept."""
    if not isinstance(value, str) or len(value) < 2 or not value.startswith(FORMULA_STARTS) or _number(value):
        return value
    return "'" + value
