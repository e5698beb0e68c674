"""The published figures shown beside the table's cells, read from `published.yaml` in this package.

The file copies blocks of papers' tables as printed; each block is checked when read (its paper, where it was
read, what was correlated with what, a known protocol and its statistic, and numbers as printed) and expanded
into one `Published` entry per number.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from radiology_tasks.agreement.model import PROTOCOL_BY_NAME, Published, Source

PUBLISHED_FILE = "published.yaml"
_MARKS = "†*"
_BLOCK_FIELDS = ("paper", "where", "dataset", "protocol", "statistic", "variant", "columns", "rows")


def _text(block: Mapping[str, Any], name: str, where: str) -> str:
    value = block.get(name)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: '{name}' must be a non-empty text")
    return value.strip()


def _value(printed: object, where: str) -> float:
    """The number a printed figure stands for (marks such as a dagger stripped)."""
    if not isinstance(printed, str):
        raise ValueError(f"{where}: write the figure as printed, in quotes (got {printed!r})")
    try:
        return float(printed.rstrip(_MARKS))
    except ValueError:
        raise ValueError(f"{where}: {printed!r} is not a number as printed") from None


def _checked_block(block: object, papers: Mapping[str, Any], where: str) -> dict[str, Any]:
    if not isinstance(block, Mapping):
        raise ValueError(f"{where}: a block must map field names to values")
    missing = [name for name in _BLOCK_FIELDS if name not in block]
    if missing:
        raise ValueError(f"{where}: missing {', '.join(missing)}")
    paper = papers.get(block["paper"])
    if not isinstance(paper, Mapping):
        raise ValueError(f"{where}: paper {block['paper']!r} is not listed under 'papers'")
    protocol = PROTOCOL_BY_NAME.get(block["protocol"])
    if protocol is None:
        raise ValueError(f"{where}: unknown protocol {block['protocol']!r} (known: {', '.join(PROTOCOL_BY_NAME)})")
    if block["statistic"] != protocol.statistic:
        raise ValueError(f"{where}: protocol {protocol.name} shows {protocol.statistic}, not {block['statistic']!r}")
    return {
        "title": _text(paper, "title", f"{where}: paper {block['paper']}"),
        **{name: _text(block, name, where) for name in ("where", "dataset", "variant")},
        "notes": str(block.get("notes") or "").strip(),
    }


def expand_block(block: Any, papers: Mapping[str, Any], where: str) -> list[Published]:
    """One `Published` entry per number of a block of the file.

    Raises:
        ValueError: naming the block, for a missing or empty field, an unknown paper or protocol, a statistic
            the protocol does not show, a row whose numbers do not match the columns, or a number not as printed.
    """
    checked = _checked_block(block, papers, where)
    columns, rows = block["columns"], block["rows"]
    if not isinstance(columns, Mapping) or not columns or not isinstance(rows, Mapping) or not rows:
        raise ValueError(f"{where}: 'columns' and 'rows' must map headings to metrics and judges to figures")
    entries = []
    for judge, printed in rows.items():
        if not isinstance(printed, list) or len(printed) != len(columns):
            raise ValueError(f"{where}: row {judge!r} must give {len(columns)} figures, one per column")
        for index, (heading, metric) in enumerate(columns.items()):
            text = printed[index]
            source = Source(checked["title"], checked["where"], str(judge), str(heading), checked["variant"])
            entries.append(
                Published(
                    metric=str(metric),
                    dataset=checked["dataset"],
                    protocol=str(block["protocol"]),
                    statistic=str(block["statistic"]),
                    value=_value(text, f"{where}: {source.where}"),
                    printed=text,
                    judge=str(judge),
                    source=source,
                    notes=checked["notes"],
                )
            )
    return entries


def parse_published(document: Mapping[str, Any], name: str = PUBLISHED_FILE) -> list[Published]:
    """Every published figure of a parsed file.

    Raises:
        ValueError: naming the file and block, for anything `expand_block` refuses or a file without blocks.
    """
    papers = document.get("papers")
    tables = document.get("tables")
    if not isinstance(papers, Mapping) or not isinstance(tables, list) or not tables:
        raise ValueError(f"{name}: needs 'papers' (by name) and a non-empty list of 'tables'")
    return [entry for i, block in enumerate(tables, 1) for entry in expand_block(block, papers, f"{name}: block {i}")]


def published_figures() -> list[Published]:
    """The published figures the package ships."""
    import yaml

    # PyYAML reads the bytes as UTF-8 (the file has no byte-order mark), whatever the locale.
    return parse_published(yaml.safe_load((files("radiology_tasks.agreement") / PUBLISHED_FILE).read_bytes()))
