"""The documentation's commands write under one git-ignored folder, ``runs/``, and never into the package.

A newcomer who follows the READMEs should end with one folder of their own results, not a repository root
littered with ``lb-logs/``, ``bundles/``, ``gen/`` and ``sft/``. Every shell command in a fenced block of the
Markdown files is read: an `inspect eval`, `eval-set` or `view` must name its log folder, and every folder or
file a command writes (``--log-dir``, ``--out``, ``--output_path``) must lie under ``runs/``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUNS = "runs/"
WRITES = re.compile(r"--(?:log-dir|out|output_path)[ =](\S+)")
COMMAND = re.compile(r"(?:inspect (?:eval|eval-set|view)|radiology-tasks|lm_eval|python -m lm_eval)\b")
SHELL = {"", "bash", "sh", "shell", "console"}


def documentation() -> list[Path]:
    """The Markdown files a user reads: the READMEs, docs/, CONTRIBUTING and the families' notes."""
    found = {ROOT / "README.md", ROOT / "CONTRIBUTING.md", *ROOT.glob("docs/*.md")}
    found |= set(ROOT.glob("radiology_tasks/*/*.md"))
    return sorted(path for path in found if path.is_file())


def commands(text: str) -> list[str]:
    """The package's shell commands in the fenced shell blocks of a Markdown text, one logical command each."""
    found = []
    for language, body in re.findall(r"```(\w*)\n(.*?)```", text, re.S):
        if language not in SHELL:
            continue
        for line in body.replace("\\\n", " ").splitlines():
            for part in re.split(r"&&|;|\|", line):
                command = part.strip()
                if COMMAND.match(command):
                    found.append(" ".join(command.split()))
    return found


def misplaced_writes(command: str) -> list[str]:
    """What a command writes outside ``runs/`` (Inspect's default ``./logs`` when it names no log folder)."""
    targets = WRITES.findall(command)
    if command.startswith("inspect") and not any(flag in command for flag in ("--log-dir", "--log_dir")):
        return ["./logs (Inspect's default: give --log-dir runs/...)"]
    return [target for target in targets if not target.strip("'\"").startswith(RUNS)]


@pytest.mark.parametrize("path", documentation(), ids=lambda path: str(path.relative_to(ROOT)))
def test_every_documented_command_writes_under_runs(path: Path) -> None:
    problems = [
        f"{command[:100]} -> {', '.join(where)}"
        for command in commands(path.read_text(encoding="utf-8"))
        if (where := misplaced_writes(command))
    ]
    assert not problems, f"{path.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_the_documentation_has_commands_to_check() -> None:
    """The reader above finds the README's main job and the leaderboard's loop (an empty scan would pass anything)."""
    readme = commands((ROOT / "README.md").read_text(encoding="utf-8"))
    assert any(command.startswith("inspect eval radiology_tasks/vert") for command in readme)
    assert sum(len(commands(path.read_text(encoding="utf-8"))) for path in documentation()) > 40


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("inspect eval radiology_tasks/vert --model none", ["./logs (Inspect's default: give --log-dir runs/...)"]),
        ("inspect eval radiology_tasks/vert --model none --log-dir runs/logs", []),
        ("radiology-tasks submit runs/logs/a.eval --out bundles/a", ["bundles/a"]),
        ("radiology-tasks leaderboard runs/bundles/* --out=leaderboard", ["leaderboard"]),
        ("radiology-tasks leaderboard runs/bundles/* --out runs/leaderboard", []),
        ("inspect view --log-dir logs", ["logs"]),
    ],
)
def test_misplaced_writes_are_found(command: str, expected: list[str]) -> None:
    assert misplaced_writes(command) == expected


def test_the_runs_folder_is_ignored_by_git(tmp_path: Path) -> None:
    """`git check-ignore` (the rules git itself applies) says ``runs/`` and what is in it are ignored."""
    for path in ("runs/logs/x.eval", "runs/leaderboard/index.html"):
        result = subprocess.run(
            ["git", "check-ignore", "--no-index", "-q", path], cwd=ROOT, capture_output=True, check=False
        )
        assert result.returncode == 0, f"{path} is not ignored by .gitignore"
    result = subprocess.run(
        ["git", "check-ignore", "--no-index", "-q", "radiology_tasks/data/demo.jsonl"], cwd=ROOT, check=False
    )
    assert result.returncode == 1, "the package's data must not be ignored"
