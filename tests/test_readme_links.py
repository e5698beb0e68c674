"""Every relative link in the repository's Markdown (READMEs, docs/, CONTRIBUTING.md) reaches a file, and every
`#anchor` a heading of its file, as GitHub names headings."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("docs", "radiology_tasks", "scorers", "solvers", "templates", "bench")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*#*\s*$")


def markdown_files() -> list[Path]:
    files = sorted(ROOT.glob("*.md"))
    for folder in FOLDERS:
        files += sorted((ROOT / folder).rglob("*.md"))
    return files


def _prose_lines(text: str) -> list[tuple[int, str]]:
    """Lines outside fenced code blocks, with inline code removed (links inside code are examples, not links)."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, re.sub(r"`[^`]*`", "``", line)))
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "").strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a Markdown file's headings (a repeated heading's second anchor ends in -1, and so on)."""
    found: set[str] = set()
    counts: Counter[str] = Counter()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            continue
        heading = None if fenced else _HEADING.match(line)
        if heading:
            base = slug(heading.group(1))
            found.add(base if counts[base] == 0 else f"{base}-{counts[base]}")
            counts[base] += 1
    return found


def broken_links(path: Path) -> list[str]:
    """One line per link of `path` that reaches no file or no heading."""
    problems = []
    for number, line in _prose_lines(path.read_text(encoding="utf-8")):
        for target in _LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            destination = (path.parent / file_part).resolve() if file_part else path
            where = f"{path.relative_to(ROOT)}:{number}: {target}"
            if not destination.exists():
                problems.append(f"{where}: no such file")
            elif anchor and destination.suffix == ".md" and anchor not in anchors(destination):
                problems.append(f"{where}: no heading #{anchor} in {destination.relative_to(ROOT)}")
    return problems


def test_every_relative_link_resolves():
    files = markdown_files()
    assert ROOT / "README.md" in files and ROOT / "CONTRIBUTING.md" in files
    assert [problem for path in files for problem in broken_links(path)] == []


def test_a_broken_link_or_anchor_is_found(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A title\n\n## The `x` part: two\n", encoding="utf-8")
    page = tmp_path / "README.md"
    page.write_text(
        "# Top\n\n[ok](docs/a.md) [ok](docs/a.md#the-x-part-two) [ok](#top) ![img](docs/a.md)\n"
        "`[code](missing.md)`\n```\n[fenced](missing.md)\n```\n[web](https://example.org/x.md)\n"
        "[gone](docs/b.md) [bad anchor](docs/a.md#nope) ![gone](pic.png) [self](#nothing)\n",
        encoding="utf-8",
    )
    assert broken_links(page) == [
        "README.md:9: docs/b.md: no such file",
        "README.md:9: docs/a.md#nope: no heading #nope in docs/a.md",
        "README.md:9: pic.png: no such file",
        "README.md:9: #nothing: no heading #nothing in README.md",
    ]
