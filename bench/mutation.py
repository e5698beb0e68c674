"""Mutation testing of the core logic with mutmut, scored per module.

Copies the repository's committed tree (``HEAD``) into a work directory, so the `mutants/` tree mutmut writes
never lands in the checkout and half-done edits of others sharing the checkout cannot fail the baseline test run;
``--with PATH`` adds files or folders from the working tree on top (the tests being written, say), and
``--worktree`` copies the working tree as it is instead. It then runs ``mutmut run`` there with the
``[tool.mutmut]`` settings of ``pyproject.toml`` (which modules to mutate, and the fast tests only), and
prints for each module how many mutants the tests killed out of how many were made. The modules are the shared ones
``only_mutate`` lists and those each registered family names in its ``family.py`` (``Family.mutation_tested``),
read from the copy, so a new family's modules are mutated without an edit of ``pyproject.toml``. A mutant counts as
killed when a test fails or times out on it; one that no test even runs ("no tests") counts against the score like a
survivor.

Usage::

    python bench/mutation.py [MODULE ...] [--workdir DIR] [--max-children N] [--survivors] [--fail-under PCT]
                             [--with PATH ...] [--worktree] [--tests PATH ...]
                             [--deselect NODEID ...]

MODULE is a file path as listed in ``only_mutate``, e.g. ``radiology_tasks/core/rows.py``; without any, every
configured module is run. Without ``--workdir`` the copy is made in a temporary directory and removed at the end;
with it the copy is kept, so ``mutmut show NAME`` can be run there afterwards to see a mutant's diff.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Left out of the copy: version control, caches, virtual environments and earlier mutmut output.
IGNORED = shutil.ignore_patterns(
    ".git", "mutants", "__pycache__", ".pytest_cache", ".hypothesis", "*venv*", "logs", ".ci-logs", "dist", "build"
)
# mutmut statuses that mean the tests noticed the mutant.
DETECTED = {"killed", "timeout", "caught by type check"}


@dataclass(frozen=True)
class ModuleScore:
    """Mutant outcomes of one source file.

    Attributes:
        path: The file, relative to the repository root.
        statuses: Number of mutants per mutmut status (``killed``, ``survived``, ``no tests``, ...).
        survivors: Name and status of each mutant no test detected.
    """

    path: str
    statuses: Counter[str]
    survivors: list[tuple[str, str]]

    @property
    def total(self) -> int:
        """Mutants made from the file."""
        return sum(self.statuses.values())

    @property
    def killed(self) -> int:
        """Mutants some test detected."""
        return sum(n for status, n in self.statuses.items() if status in DETECTED)

    @property
    def score(self) -> float:
        """Share of mutants killed, in percent (100 for a file without mutants)."""
        return 100.0 * self.killed / self.total if self.total else 100.0


def module_pattern(path: str) -> str:
    """The mutmut mutant-name pattern covering every mutant of one source file."""
    return path.removesuffix(".py").replace("/", ".") + ".*"


def module_of(mutant: str) -> str:
    """The source file of a mutant: ``scorers.agreement.x_f__mutmut_3`` -> ``scorers/agreement.py``."""
    function = mutant.partition("__mutmut_")[0]
    return function.rpartition(".")[0].replace(".", "/") + ".py"


def copy_repository(workdir: Path, *, overlay: Sequence[str] = (), worktree: bool = False) -> None:
    """Replace `workdir` with a fresh copy of the repository: its committed tree, then each `overlay` path (a file or
    folder relative to the repository root) as the working tree has it; with `worktree`, the working tree whole."""
    if workdir.exists():
        shutil.rmtree(workdir)
    if worktree:
        shutil.copytree(ROOT, workdir, ignore=IGNORED)
        return
    workdir.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(workdir, filter="data")
    for relative in overlay:
        source, target = ROOT / relative, workdir / relative
        if source.is_dir():
            shutil.copytree(source, target, ignore=IGNORED, dirs_exist_ok=True)
        elif source.is_file():
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        else:
            raise SystemExit(f"--with {relative}: no such file or folder in {ROOT}")


LINKED = ("scorers", "solvers", "templates")
"""Repository folders that `radiology_tasks/<name>` links to, so they import as ``radiology_tasks.<name>``."""


def linked_path(path: str) -> str:
    """Where a source file sits in the copy: a linked folder's files under ``radiology_tasks/``."""
    return f"radiology_tasks/{path}" if path.split("/", 1)[0] in LINKED else path


def move_linked_folders_in_copy(workdir: Path) -> None:
    """Put the linked folders inside the copy's package, where the links point to them from, and say so in the copy's
    ``[tool.mutmut]``: mutmut names a mutant by its file's path and a test's hit by the module's import name, which
    must agree (``radiology_tasks.scorers.x``), and it copies no links."""
    package = workdir / "radiology_tasks"
    moved = [name for name in LINKED if (package / name).is_symlink()]
    for name in moved:
        (package / name).unlink()
        shutil.move(str(workdir / name), str(package / name))
    if not moved:
        return
    config = workdir / "pyproject.toml"
    text = config.read_text()
    start = text.index("only_mutate = [")
    end = text.index("]", start)
    listed = text[start:end]
    for name in moved:
        listed = listed.replace(f'"{name}/', f'"radiology_tasks/{name}/')
    text = text[:start] + listed + text[end:]
    kept = ", ".join(f'"{name}"' for name in ("radiology_tasks", *(n for n in LINKED if n not in moved)))
    config.write_text(re.sub(r"(?m)^source_paths = \[.*\]$", f"source_paths = [{kept}]", text, count=1))


def mutate_only_in_copy(workdir: Path, modules: Sequence[str]) -> None:
    """Make the copy's ``only_mutate`` list exactly `modules`, so mutmut spends no time making mutants of the
    other configured files (which a run restricted to `modules` would never try)."""
    if not modules:
        return
    config = workdir / "pyproject.toml"
    text = config.read_text()
    start = text.index("only_mutate = [")
    end = text.index("]", start) + 1
    listed = "".join(f'    "{module}",\n' for module in modules)
    config.write_text(text[:start] + "only_mutate = [\n" + listed + "]" + text[end:])


def family_modules(workdir: Path) -> list[str]:
    """The modules the families registered in the copy ask to be mutated (``Family.mutation_tested``), as
    repository paths: read by importing the copy's own registry."""
    code = "from radiology_tasks.core.family import mutation_targets; print('\\n'.join(mutation_targets()))"
    env = dict(os.environ, PYTHONPATH=str(workdir))
    listed = subprocess.run([sys.executable, "-c", code], cwd=workdir, env=env, capture_output=True, text=True)
    if listed.returncode != 0:
        raise SystemExit(f"could not read the families' modules to mutate:\n{listed.stderr}")
    return listed.stdout.split()


def with_modules(text: str, modules: Sequence[str]) -> str:
    """A pyproject.toml text with `modules` added at the end of its ``only_mutate`` list (those not listed yet)."""
    start = text.index("only_mutate = [")
    end = text.index("]", start)
    listed = text[start:end]
    added = "".join(f'    "{module}",\n' for module in modules if f'"{module}"' not in listed)
    return text[:end] + added + text[end:]


def add_family_modules_in_copy(workdir: Path) -> None:
    """Add every family's own modules to the copy's ``only_mutate`` (a run of every configured module)."""
    config = workdir / "pyproject.toml"
    config.write_text(with_modules(config.read_text(), family_modules(workdir)))


def select_in_copy(workdir: Path, *, tests: Sequence[str] = (), deselect: Sequence[str] = ()) -> None:
    """Narrow the copy's test selection (``pytest_add_cli_args_test_selection``) for this run only.

    `tests` (paths or node ids) replace the whole ``tests`` folder: the baseline run then takes seconds, not
    minutes, and a score can only come out lower than with every fast test, never higher. `deselect` leaves tests
    out by node id: mutmut tries no mutant until every selected test passes on the unmutated code, so a test broken
    by someone else's unfinished change is set aside here, by name.
    """
    if not tests and not deselect:
        return
    config = workdir / "pyproject.toml"
    text = config.read_text()
    anchor = 'pytest_add_cli_args_test_selection = [\n    "tests",\n'
    if anchor not in text:
        raise SystemExit(f"--tests/--deselect: no selection list starting with the tests folder in {config}")
    chosen = "".join(f'    "{path}",\n' for path in tests or ["tests"])
    added = "".join(f'    "--deselect={test}",\n' for test in deselect)
    config.write_text(text.replace(anchor, anchor.split("\n")[0] + "\n" + chosen + added, 1))


def run_mutmut(workdir: Path, modules: list[str], max_children: int) -> None:
    """Run mutmut in `workdir` on the mutants of `modules` (all configured modules when empty)."""
    env = dict(os.environ, PYTHONPATH=str(workdir), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1")
    # CI=1 would make the test session fail on skips, which mutmut's selective runs are full of.
    env.pop("CI", None)
    command = [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)]
    subprocess.run([*command, *map(module_pattern, modules)], cwd=workdir, env=env, check=True)


def read_results(workdir: Path) -> dict[str, ModuleScore]:
    """Per-file outcomes from ``mutmut results``, keyed by file path."""
    listing = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=workdir,
        env=dict(os.environ, PYTHONPATH=str(workdir)),
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    scores: dict[str, ModuleScore] = {}
    for line in listing.splitlines():
        mutant, separator, status = line.strip().rpartition(": ")
        if not separator or "__mutmut_" not in mutant:
            continue
        path = module_of(mutant)
        score = scores.setdefault(path, ModuleScore(path, Counter(), []))
        score.statuses[status] += 1
        if status not in DETECTED:
            score.survivors.append((mutant, status))
    return scores


def format_table(scores: list[ModuleScore]) -> str:
    """A plain-text table: one row per module, then the total."""
    width = max([len("module"), *(len(s.path) for s in scores)])
    lines = [f"{'module':<{width}}  {'killed/total':>12}  {'score':>6}  {'survived':>8}  {'no tests':>8}  timeout"]
    for s in scores:
        lines.append(
            f"{s.path:<{width}}  {f'{s.killed}/{s.total}':>12}  {s.score:>5.1f}%  {s.statuses['survived']:>8}  "
            f"{s.statuses['no tests']:>8}  {s.statuses['timeout']:>7}"
        )
    killed, total = sum(s.killed for s in scores), sum(s.total for s in scores)
    overall = 100.0 * killed / total if total else 100.0
    lines.append(f"{'all':<{width}}  {f'{killed}/{total}':>12}  {overall:>5.1f}%")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Run mutmut on a copy of the repository and print the per-module scores."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*", help="source files to mutate (default: every configured module)")
    parser.add_argument("--workdir", type=Path, help="keep the copy here (replaced if it exists)")
    parser.add_argument("--max-children", type=int, default=os.cpu_count() or 1, help="parallel test workers")
    parser.add_argument("--survivors", action="store_true", help="list the mutants no test detected")
    parser.add_argument("--fail-under", type=float, help="exit 1 when a module scores below this percentage")
    parser.add_argument(
        "--with",
        dest="overlay",
        action="append",
        default=[],
        metavar="PATH",
        help="a file or folder to take from the working tree instead of HEAD (repeatable)",
    )
    parser.add_argument("--worktree", action="store_true", help="copy the working tree as it is, not HEAD")
    parser.add_argument(
        "--tests",
        action="append",
        default=[],
        metavar="PATH",
        help="run only these test files or folders instead of the whole tests folder (repeatable)",
    )
    parser.add_argument(
        "--deselect",
        action="append",
        default=[],
        metavar="NODEID",
        help="a test failing on the unmutated code (someone else's unfinished change) to leave out of this run",
    )
    args = parser.parse_args(argv)

    temporary = None if args.workdir else tempfile.TemporaryDirectory(prefix="mutation-")
    workdir = (args.workdir or Path(temporary.name) / "repo").resolve()
    try:
        copy_repository(workdir, overlay=args.overlay, worktree=args.worktree)
        select_in_copy(workdir, tests=args.tests, deselect=args.deselect)
        if args.modules:
            mutate_only_in_copy(workdir, args.modules)
        else:
            add_family_modules_in_copy(workdir)
        move_linked_folders_in_copy(workdir)
        run_mutmut(workdir, [linked_path(m) for m in args.modules], args.max_children)
        found = read_results(workdir)
    finally:
        if temporary is not None:
            temporary.cleanup()
    wanted = [linked_path(m) for m in args.modules] or sorted(found)
    scores = [found.get(path, ModuleScore(path, Counter(), [])) for path in wanted]
    print(format_table(scores))
    if args.survivors:
        for score in scores:
            for mutant, status in score.survivors:
                print(f"{mutant}: {status}")
    if args.fail_under is not None and any(s.score < args.fail_under for s in scores):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
