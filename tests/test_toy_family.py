"""A family added with nothing but its own code and one registration is listed, runs, is submitted and ranked.

Everything the toy family needs is in this file: its task, its scorer (the share of the reference's words the
candidate repeats, no judge), its rules for re-scoring a stored log and its descriptor, a `Family` subclass.
`add_family` stands in for the one line a family adds to `radiology_tasks/families.py`. That no shared module is
edited is checked too: the toy family is also written as a package in a temporary folder and added through a
copy of `radiology_tasks/families.py` with one line more, and the repository's shared modules are read for it.
"""

from __future__ import annotations

import os
import re
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

import radiology_tasks.families as families_module
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
from radiology_tasks.leaderboard.rules import RankedScore, Rescoring
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


class ToyRescoring(Rescoring):
    """How the leaderboard re-scores a toy log: the overlap again, from the texts the log stores."""

    def ranked(self, run: RunEvidence) -> RankedScore:
        return RankedScore(KEY)

    def expected(self, run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
        return {KEY: word_overlap(sample.candidate or "", sample.target or "")}

    def answers(self, sample: SampleEvidence) -> list[str]:
        return []

    def needs_judge(self) -> bool:
        return False


class Toy(Family):
    """The toy family's descriptor."""

    name = "toy"
    tasks_module = __name__
    tasks = ("toy_overlap",)
    version = "0.1.0"

    def rescoring(self, task: str) -> Rescoring | None:
        return ToyRescoring()


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


def test_the_registry_line_is_the_only_shared_edit(tmp_path):
    # The toy family's descriptor in a package of its own, and a copy of the shared registry with one line
    # more: the task is then registered, listed and submittable with every shared module as it is on disk.
    package = tmp_path / "toy_family_package"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "family.py").write_text("from tests.test_toy_family import Toy\n\nFAMILY = Toy()\n")
    registry = Path(families_module.__file__).read_text()
    added = registry.replace(")\n", '    "toy_family_package.family",\n)\n')
    assert len(added.splitlines()) == len(registry.splitlines()) + 1, "one line added to the registry"
    (tmp_path / "families_copy.py").write_text(added)
    copy = str(tmp_path / "families_copy.py")
    code = (
        "import sys, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('radiology_tasks.families', {copy!r})\n"
        "module = importlib.util.module_from_spec(spec); spec.loader.exec_module(module)\n"
        "sys.modules['radiology_tasks.families'] = module\n"
        "import radiology_tasks._registry\n"
        "from radiology_tasks.cli import main\n"
        "from radiology_tasks.leaderboard.rescore import rescorable_tasks\n"
        "assert hasattr(radiology_tasks._registry, 'toy_overlap'), 'the registry exports the task'\n"
        "assert 'toy_overlap' in rescorable_tasks(), rescorable_tasks()\n"
        "main(['list'])\n"
    )
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPOSITORY)])}
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "  toy_overlap" in result.stdout.splitlines()
