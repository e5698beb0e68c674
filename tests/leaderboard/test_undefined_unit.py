"""A figure that cannot be computed reaches no output as NaN: a corpus statistic undefined on a run's samples
leaves that run unranked with the reason, one undefined on some resamples leaves the interval or the paired test
empty with the reason, and an undefined breakdown figure is null (shown with its reason by the writers)."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from radiology_tasks.core.family import add_family, remove_family
from radiology_tasks.core.undefined import not_numbers
from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard.board import build_leaderboard
from radiology_tasks.leaderboard.evidence import RunEvidence
from radiology_tasks.leaderboard.outputs import write_outputs
from tests.leaderboard.memory_runs import write_pairs
from tests.leaderboard.test_corpus_unit import A_COUNTS, SETTINGS, _Corpus, _run
from tests.toy_families import ToyFamily

# s0-s2 count nothing, so a resample of only them has no F1; s3 has one hit.
SPARSE = [(0, 0, 0), (0, 0, 0), (0, 0, 0), (1, 0, 0)]
EMPTY = [(0, 0, 0)] * 4


class _GapBreakdown(_Corpus):
    def breakdown(self, run: RunEvidence) -> dict[str, dict[str, float]] | None:
        return {"Per label": {"seen": 0.5, "never seen": math.nan}}


@pytest.fixture(autouse=True)
def toy_families() -> Iterator[None]:
    for name, rules in (("toy_sparse", _Corpus()), ("toy_gap", _GapBreakdown())):
        add_family(ToyFamily(name, (name,), rules={name: rules}))
    yield
    remove_family("toy_sparse")
    remove_family("toy_gap")


def _leaderboard(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, **counts: tuple[str, list]) -> dict:
    data = write_pairs(tmp_path)
    runs = {}
    for name, (task, run_counts) in counts.items():
        path = tmp_path / f"{name}.eval"
        path.write_text(name)
        sha256 = hashlib.sha256(name.encode()).hexdigest()
        runs[path.name] = replace(_run(data, run_counts, task=task, sha256=sha256), path=path)
    monkeypatch.setattr(board_module, "read_run", lambda path: runs[Path(path).name])
    return build_leaderboard([tmp_path / name for name in runs], tmp_path / "site", SETTINGS)


def test_a_run_whose_statistic_is_undefined_is_not_ranked_and_says_why(tmp_path, monkeypatch):
    result = _leaderboard(tmp_path, monkeypatch, a=("toy_sparse", A_COUNTS), empty=("toy_sparse", EMPTY))
    (board,) = result["boards"]
    assert [e["log"] for e in board["entries"]] == ["../a.eval"] and board["significance"]["tests"] == []
    assert [(row["log"], row["reasons"]) for row in result["not_ranked"]] == [
        ("../empty.eval", ["its f1 is undefined (not a number) on its samples, so it has no rank"])
    ]
    (tmp_path / "alone").mkdir()
    alone = _leaderboard(tmp_path / "alone", monkeypatch, empty=("toy_sparse", EMPTY))
    assert alone["boards"] == [] and len(alone["not_ranked"]) == 1
    assert not_numbers(result, "leaderboard") == [] and not_numbers(alone, "leaderboard") == []


def test_an_interval_and_tests_undefined_on_resamples_are_empty_with_the_reason(tmp_path, monkeypatch):
    result = _leaderboard(tmp_path, monkeypatch, a=("toy_sparse", A_COUNTS), sparse=("toy_sparse", SPARSE))
    (board,) = result["boards"]
    assert board["statistic"] == "f1 of the whole sample set"
    sparse = next(e for e in board["entries"] if e["log"] == "../sparse.eval")
    assert sparse["score"] == 1.0 and (sparse["ci_low"], sparse["ci_high"]) == (None, None)
    (why,) = set(sparse["empty"].values())
    assert set(sparse["empty"]) == {"ci_low", "ci_high"}
    assert why.startswith("no interval: f1 is undefined on ") and why.endswith(" of the 60 resampled sample sets")
    assert int(why.split()[6]) > 0
    clean = next(e for e in board["entries"] if e["log"] == "../a.eval")
    assert clean["empty"] == {} and clean["ci_low"] < clean["score"] < clean["ci_high"]
    (test,) = board["significance"]["tests"]
    assert (test["paired_bootstrap_p"], test["randomization_p"]) == (None, None)
    assert set(test["empty"]) == {"paired_bootstrap_p", "randomization_p"}
    assert test["empty"]["randomization_p"].startswith("not computed: f1 is undefined on ")
    assert test["difference"] == pytest.approx(sparse["score"] - clean["score"])
    assert not_numbers(result, "leaderboard") == []
    written = write_outputs(result, tmp_path / "site")
    assert "NaN" not in written["json"].read_text() and "nan" not in written["csv"].read_text().lower()
    assert "nan" not in written["markdown"].read_text().lower()


def test_an_undefined_breakdown_figure_is_null(tmp_path, monkeypatch):
    result = _leaderboard(tmp_path, monkeypatch, a=("toy_gap", A_COUNTS))
    (entry,) = result["boards"][0]["entries"]
    assert entry["breakdown"] == {"Per label": {"seen": 0.5, "never seen": None}}
    markdown = write_outputs(result, tmp_path / "site")["markdown"].read_text()
    assert "| never seen | n/a [1] |" in markdown and "[1] the run's breakdown gives no value" in markdown
