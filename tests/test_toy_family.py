"""A family added with nothing but its own code and one registration is listed, runs, is submitted and ranked.

Everything the toy family needs is in this file: its task, its scorer (the share of the reference's words the
candidate repeats, no judge), its rules for re-scoring a stored log and its descriptor, a `Family` subclass.
`add_family` stands in for the one line a family adds to `radiology_tasks/families.py`. That no shared file is
edited is checked too: the same family, laid out in its own folders (tests/fixtures/toy_family), is copied into a
copy of the repository with one line more in `radiology_tasks/families.py`, and the shared tests pass there.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai import Task, task
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.cli import main
from radiology_tasks.core.catalog import bundled_path
from radiology_tasks.core.family import Family, add_family, remove_family
from radiology_tasks.core.metrics import mean_of
from radiology_tasks.core.solvers import replay_candidate
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore, Rescoring
from tests.leaderboard.runs import edited

KEY = "overlap"
REPOSITORY = Path(__file__).resolve().parent.parent


def word_overlap(candidate: str, reference: str) -> float:
    """The share of the reference's distinct words that the candidate also uses."""
    words = set(re.findall(r"[a-z]+", reference.lower()))
    used = set(re.findall(r"[a-z]+", candidate.lower()))
    return len(words & used) / len(words) if words else 0.0


@scorer(metrics=[mean_of(KEY)])
def overlap_scorer() -> Scorer:
    """The toy metric of each candidate against its reference."""

    async def score(state: TaskState, target: Target) -> Score:
        return Score(value={KEY: word_overlap(state.output.completion, target.text)}, answer=state.output.completion)

    return score


@task
@shared_parameters(data=shared(DataOptions, only=["data", "candidates"]))
def toy_overlap(*, data: DataOptions) -> Task:
    """Toy family task: the share of the reference's words each candidate repeats."""
    dataset, summary, _ = report_dataset(data, require_candidate=True)
    return Task(
        dataset=dataset,
        solver=replay_candidate(),
        scorer=overlap_scorer(),
        metadata={"data": summary, "templates": {}},
        version=TOY.version,
    )


def _expected(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    return {KEY: word_overlap(sample.candidate or "", sample.target or "")}


# How the leaderboard re-scores a toy log: the overlap again, from the texts the log stores; no judge answers.
RULES = FunctionRescoring(ranked=RankedScore(KEY), expected=_expected, answers=lambda sample: [], needs_judge=False)


class Toy(Family):
    """The toy family's descriptor."""

    name = "toy"
    tasks_module = __name__
    tasks = ("toy_overlap",)
    version = "0.1.0"

    def rescoring(self, task: str) -> Rescoring | None:
        return RULES


TOY = Toy()


@pytest.fixture(scope="module")
def registered() -> Iterator[Family]:
    add_family(TOY)
    yield TOY
    remove_family(TOY.name)


def _run(folder: Path, **args: str) -> Path:
    (log,) = inspect_eval(toy_overlap(**args), model="none", display="none", log_dir=str(folder))
    assert log.status == "success", log.error
    return Path(log.location)


@pytest.fixture(scope="module")
def logs(registered: Family, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("toy")
    return {
        "A": _run(root / "a"),
        "B": _run(root / "b", candidates=str(bundled_path("demo_system_b.jsonl"))),
    }


def test_the_toy_family_is_listed(registered, capsys):
    assert main(["list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    start = lines.index("  toy_overlap")
    assert lines[start + 1] == "      Toy family task: the share of the reference's words each candidate repeats."
    assert lines[start + 2] == "      defaults: -T data=demo"
    assert lines[start + 3] == "      unset unless given: candidates"


def test_the_toy_family_is_submitted_re_scored_and_ranked(logs, tmp_path):
    bundles = {}
    for system, log in logs.items():
        bundles[system] = tmp_path / f"bundle-{system}"
        write_bundle([log], bundles[system], SystemCard(name=f"system {system}"))
    board = build_leaderboard(list(bundles.values()), tmp_path / "site", Settings(resamples=200))
    assert board["not_ranked"] == []
    (ranked,) = board["boards"]
    assert (ranked["task"], ranked["score"], ranked["task_version"]) == ("toy_overlap", KEY, "0.1.0")
    expected = {f"system {name}": _mean_overlap(log) for name, log in logs.items()}
    assert {e["system"]: e["score"] for e in ranked["entries"]} == pytest.approx(expected)
    assert [e["system"] for e in ranked["entries"]] == sorted(expected, key=lambda name: -expected[name])
    assert len(set(expected.values())) == 2, "the two systems differ, so the order is a real ranking"
    assert ranked["significance"]["tests"][0]["n"] == ranked["n_samples"] == 41


def test_an_edited_toy_score_is_refused_naming_the_sample(logs, tmp_path):
    def forge(log: EvalLog) -> None:
        assert log.samples is not None
        score = log.samples[2].scores["overlap_scorer"]
        score.value = {KEY: 1.0}

    forged = edited(logs["A"], forge, "forged.eval")
    with pytest.raises(SubmissionRefused) as refused:
        write_bundle([forged], tmp_path / "x", SystemCard())
    sample_id = _third_id(forged)
    assert any(
        line.startswith(f"forged.eval: sample {sample_id}: logged overlap 1 but its stored texts give ")
        for line in refused.value.lines
    ), refused.value.lines


def _mean_overlap(path: Path) -> float:
    """The toy metric's mean over a log's pairs, computed here from the texts the log holds."""
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    assert log.samples is not None
    values = [word_overlap(s.output.completion, str(s.target)) for s in log.samples]
    return sum(values) / len(values)


def _third_id(path: Path) -> str:
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    assert log.samples is not None
    return str(log.samples[2].id)


TOY_FAMILY = REPOSITORY / "tests" / "fixtures" / "toy_family"
"""The toy family in its own folders (radiology_tasks/toy/, templates/toy/, tests/toy/), as a contributor adds one."""
SHARED_TESTS = [
    "tests/test_task_docs.py",
    "tests/test_task_args.py",
    "tests/test_templates.py",
    "tests/test_family_docs.py",
    "tests/test_families.py",
    "tests/test_import_graph.py",
    "tests/test_mutation_targets.py",
    "tests/test_registry.py",
    "tests/test_readme_links.py",
    "tests/test_cli.py",
    "tests/core/test_catalog.py",
    "tests/toy",
]
"""The shared tests that enumerate tasks, templates, commands, data sets or mutation targets, and the toy's own."""


def _tracked_files(root: Path) -> list[str]:
    """The repository's files as git sees them: tracked, and new ones it does not ignore."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root, capture_output=True, text=True
    )
    assert listed.returncode == 0, listed.stderr
    return [name for name in listed.stdout.splitlines() if (root / name).exists() or (root / name).is_symlink()]


def _copy_repository(target: Path) -> None:
    for name in _tracked_files(REPOSITORY):
        source, copy = REPOSITORY / name, target / name
        copy.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            copy.symlink_to(os.readlink(source))
        elif source.is_file():
            shutil.copy2(source, copy)


def _add_the_toy_family(copy: Path) -> None:
    """The contributor's whole change: the family's own folders, and one line in the registry."""
    for folder in ("radiology_tasks/toy", "templates/toy", "tests/toy"):
        shutil.copytree(TOY_FAMILY / folder, copy / folder, ignore=shutil.ignore_patterns("__pycache__"))
    registry = copy / "radiology_tasks" / "families.py"
    text = registry.read_text()
    added = text.replace(")\n", '    "radiology_tasks.toy.family",\n)\n')
    assert len(added.splitlines()) == len(text.splitlines()) + 1, "one line added to the registry"
    registry.write_text(added)


def _command(copy: Path, *command: str) -> subprocess.CompletedProcess[str]:
    environment = {**os.environ, "PYTHONPATH": str(copy)}
    environment.pop("CI", None)  # the copy's run skips nothing either way; CI's skip check is the main run's
    return subprocess.run(command, cwd=copy, env=environment, capture_output=True, text=True, timeout=1200)


def _outside_generated_blocks(text: str) -> str:
    """A document with the body of every generated block (parameter tables, lists of the families) left out."""
    return re.sub(r"(<!-- (?:task-parameters|families):start[^>]*-->).*?(<!-- (?:task-parameters|families):end -->)",
                  r"\1\2", text, flags=re.DOTALL)  # fmt: skip


def _changed_shared_files(copy: Path) -> list[str]:
    """The files of the copy that differ from the repository's, outside the toy's folders and the registry."""
    own = ("radiology_tasks/toy/", "templates/toy/", "tests/toy/", "radiology_tasks/families.py")
    changed = []
    for path in sorted(copy.rglob("*")):
        name = path.relative_to(copy).as_posix()
        if name.startswith(own) or "__pycache__" in name or path.is_symlink() or not path.is_file():
            continue
        original = REPOSITORY / name
        if not original.is_file() or original.read_bytes() != (copy / name).read_bytes():
            changed.append(name)
    return changed


GENERATED = {"README.md", "docs/parameters.md", "docs/changelog.md", "radiology_tasks/leaderboard/README.md"}
"""The shared documents whose lists of the families `radiology-tasks task-docs` writes."""


@pytest.mark.slow
def test_a_family_added_in_its_own_folders_passes_the_shared_tests_with_no_shared_file_edited(tmp_path):
    copy = tmp_path / "repository"
    _copy_repository(copy)
    _add_the_toy_family(copy)
    # The generated blocks of the shared documents are written by the command, not by hand.
    docs = _command(copy, sys.executable, "-m", "radiology_tasks.cli", "task-docs")
    assert docs.returncode == 0, docs.stderr
    changed = _changed_shared_files(copy)
    assert "README.md" in changed and set(changed) <= GENERATED, changed
    for name in changed:
        generated = _outside_generated_blocks((copy / name).read_text())
        assert generated == _outside_generated_blocks((REPOSITORY / name).read_text()), f"{name} changed by hand"
    listed = _command(copy, sys.executable, "-m", "radiology_tasks.cli", "list")
    assert "  radiology_tasks/toy_overlap" in listed.stdout.splitlines(), listed.stderr
    selection = ["-m", "not slow and not embedded", "-k", "not bad_input_in_one_line"]
    tests = _command(
        copy, sys.executable, "-m", "pytest", "-x", "-rA", "-p", "no:cacheprovider", *selection, *SHARED_TESTS
    )
    assert tests.returncode == 0, tests.stdout[-6000:] + tests.stderr[-3000:]
    passed = set(re.findall(r"^PASSED (\S+)", tests.stdout, flags=re.MULTILINE))
    assert {
        "tests/toy/test_toy.py::test_a_run_on_the_toy_data_set",
        "tests/test_task_args.py::test_every_task_takes_the_parameters_its_family_pins[toy]",
        "tests/test_mutation_targets.py::test_each_family_names_existing_modules_of_its_own_folder[toy]",
        "tests/test_templates.py::test_template_hashes_cover_the_family_and_the_shared_templates[toy]",
    } <= passed, "the shared tests ran with the toy family registered"
