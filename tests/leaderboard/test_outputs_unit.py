"""The leaderboard's written forms from a leaderboard built in memory: the exact Markdown (boards, breakdowns,
paired tests, judges' boards, runs not ranked), the CSV rows, the page and the files; and the two subcommands."""

from __future__ import annotations

import argparse
import csv
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.leaderboard import board as board_module
from radiology_tasks.leaderboard import bundle
from radiology_tasks.leaderboard.commands import leaderboard_command, submit_command
from radiology_tasks.leaderboard.outputs import CSV_COLUMNS, csv_rows, markdown, page, schema, write_outputs
from tests.leaderboard.memory_runs import VALUES, memory_run, sample, write_pairs


def _entry(rank: int, system: str, score: float, **extra: Any) -> dict[str, Any]:
    return {
        "rank": rank,
        "system": system,
        "score": score,
        "ci_low": score - 0.1,
        "ci_high": score + 0.05,
        "n": 4,
        "n_unscored": rank - 1,
        "log": f"../{system}.eval",
        "log_sha256": "f" * 64,
        **extra,
    }


def _leaderboard() -> dict[str, Any]:
    ranked = {
        "id": "vert-vert-pairs-findings",
        "task": "vert",
        "score": "vert",
        "dataset": {"name": "pairs"},
        "track": "findings",
        "task_version": "1.4.0",
        "judge": {"model": "openai/judge"},
        "n_samples": 4,
        "note": "A note.",
        "entries": [
            _entry(1, "A|x", 0.8, breakdown={"By type": {"numeric": 0.5, "other": None}}),
            _entry(2, "B", 0.6, breakdown={"By type": {"numeric": 0.25, "location": 1.0}, "Second": {"r": 0.1}}),
            _entry(3, "C", 0.5, breakdown=None),
        ],
        "significance": {
            "resamples": 300,
            "seed": 2,
            "tests": [{"a": "A|x", "b": "B", "difference": 0.2, "paired_bootstrap_p": 0.01234, "randomization_p": 0.5}],
        },
    }
    plain = {
        **ranked,
        "id": "green",
        "track": None,
        "note": None,
        "significance": {**ranked["significance"], "tests": []},
    }
    plain["entries"] = [_entry(1, "D", 0.9)]
    judges = {
        "task": "judge_sensitivity",
        "score": "balance",
        "dataset": {"name": "refs"},
        "task_version": "1.3.0",
        "n_samples": 14,
        "note": None,
        "measures": ["balance", "robustness"],
        "entries": [
            {
                "rank": 1,
                "system": "judge|1",
                "log": "../j1.eval",
                "measures": {"balance": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8, "n": 7}, "robustness": None},
            }
        ],
        "significance": {
            "resamples": 100,
            "seed": 0,
            "tests": [
                {
                    "a": "judge|1",
                    "b": "j2",
                    "difference": -0.125,
                    "paired_bootstrap_p": 0.5,
                    "randomization_p": None,
                    "n": 7,
                },
                {"a": "j3", "b": "j2", "difference": 0.0, "paired_bootstrap_p": 1.0, "randomization_p": 0.25, "n": 6},
            ],
        },
    }
    return {
        "settings": {"confidence": 0.9, "resamples": 300, "seed": 2},
        "boards": [ranked, plain],
        "judge_boards": [
            judges,
            {**judges, "note": "Judged.", "significance": {**judges["significance"], "tests": []}},
        ],
        "not_ranked": [{"system": "E|e", "task": None, "log": "../e.eval", "reasons": ["one", "two|2"]}],
    }


EXPECTED = """# Leaderboard

Intervals: 90% percentile bootstrap, 300 resamples, seed 2. A missing score counts as 0.

## vert · vert · pairs · findings

Judge openai/judge, task version 1.4.0, 4 samples.

| rank | system | score | 90% interval | n | unscored | log |
|---:|---|---:|---|---:|---:|---|
| 1 | A\\|x | 0.800 | 0.700 – 0.850 | 4 | 0 | `../A|x.eval` |
| 2 | B | 0.600 | 0.500 – 0.650 | 4 | 1 | `../B.eval` |
| 3 | C | 0.500 | 0.400 – 0.550 | 4 | 2 | `../C.eval` |

Note: A note.

By type:

| | A\\|x | B |
|---|---:|---:|
| numeric | 0.500 | 0.250 |
| other |  |  |
| location |  | 1.000 |

Second:

| | B |
|---|---:|
| r | 0.100 |

Paired tests (300 resamples, seed 2):

| a | b | mean(a) − mean(b) | paired bootstrap p | approximate randomization p |
|---|---|---:|---:|---:|
| A\\|x | B | +0.200 | 0.012 | 0.500 |

## vert · vert · pairs

Judge openai/judge, task version 1.4.0, 4 samples.

| rank | system | score | 90% interval | n | unscored | log |
|---:|---|---:|---|---:|---:|---|
| 1 | D | 0.900 | 0.800 – 0.950 | 4 | 0 | `../D.eval` |

## Judges

### judge_sensitivity · balance · refs

Task version 1.3.0, 14 samples.

| rank | judge | balance | 90% interval | n | robustness | 90% interval | n | log |
|---:|---|---:|---|---:|---:|---|---:|---|
| 1 | judge\\|1 | 0.700 | 0.600 – 0.800 | 7 |  |  |  | `../j1.eval` |

Paired tests of balance (100 resamples, seed 0):

| a | b | a − b | paired bootstrap p | approximate randomization p | n |
|---|---|---:|---:|---:|---:|
| judge\\|1 | j2 | -0.125 | 0.500 |  | 7 |
| j3 | j2 | +0.000 | 1.000 | 0.250 | 6 |

### judge_sensitivity · balance · refs

Task version 1.3.0, 14 samples. Judged.

| rank | judge | balance | 90% interval | n | robustness | 90% interval | n | log |
|---:|---|---:|---|---:|---:|---|---:|---|
| 1 | judge\\|1 | 0.700 | 0.600 – 0.800 | 7 |  |  |  | `../j1.eval` |

## Not ranked

| system | task | log | reasons |
|---|---|---|---|
| E\\|e |  | `../e.eval` | one; two\\|2 |
"""


def test_the_markdown_of_every_kind_of_board():
    assert markdown(_leaderboard()) == EXPECTED


def test_the_interval_columns_are_named_for_the_runs_confidence():
    leaderboard = _leaderboard()
    assert "95%" not in markdown(leaderboard), "intervals at 90% are not headed 95%"
    leaderboard["settings"]["confidence"] = 0.95
    assert markdown(leaderboard).count("| 95% interval |") == 6, "two boards, two judges' boards of two measures"


def test_the_markdown_without_judges_or_refused_runs():
    leaderboard = {**_leaderboard(), "judge_boards": [], "not_ranked": []}
    text = markdown(leaderboard)
    assert "## Judges" not in text and "## Not ranked" not in text
    assert text.endswith(
        "| A\\|x | B | +0.200 | 0.012 | 0.500 |\n\n## vert · vert · pairs\n\nJudge openai/judge, task version "
        "1.4.0, 4 samples.\n\n| rank | system | score | 90% interval | n | unscored | log |\n"
        "|---:|---|---:|---|---:|---:|---|\n| 1 | D | 0.900 | 0.800 – 0.950 | 4 | 0 | `../D.eval` |\n"
    )
    assert markdown({**leaderboard, "judge_boards": None}) == text
    del leaderboard["judge_boards"]
    assert markdown(leaderboard) == text


def test_csv_rows_carry_the_boards_fields():
    rows = csv_rows(_leaderboard())
    assert [(r["board"], r["system"], r["track"], r["rank"]) for r in rows] == [
        ("vert-vert-pairs-findings", "A|x", "findings", 1),
        ("vert-vert-pairs-findings", "B", "findings", 2),
        ("vert-vert-pairs-findings", "C", "findings", 3),
        ("green", "D", "", 1),
    ]
    first = rows[0]
    assert {k: first[k] for k in ("task", "score_key", "dataset", "judge", "task_version")} == {
        "task": "vert",
        "score_key": "vert",
        "dataset": "pairs",
        "judge": "openai/judge",
        "task_version": "1.4.0",
    }
    assert set(first) == set(CSV_COLUMNS), "the entry's breakdown is not a column"
    assert (first["score"], first["ci_low"], first["ci_high"], first["n"], first["n_unscored"]) == (
        0.8,
        pytest.approx(0.7),
        pytest.approx(0.85),
        4,
        0,
    )
    assert (first["log"], first["log_sha256"]) == ("../A|x.eval", "f" * 64)


def test_the_files_written(tmp_path):
    leaderboard = _leaderboard()
    out = tmp_path / "site" / "nested"
    written = write_outputs(leaderboard, out)
    assert written == {
        "json": out / "leaderboard.json",
        "csv": out / "leaderboard.csv",
        "markdown": out / "leaderboard.md",
        "page": out / "index.html",
    }
    assert json.loads(written["json"].read_text()) == leaderboard
    assert written["json"].read_text().startswith('{\n  "settings"') and written["json"].read_text().endswith("}\n")
    with written["csv"].open(newline="") as handle:
        read = list(csv.DictReader(handle))
    assert list(read[0]) == list(CSV_COLUMNS) and len(read) == 4 and read[3]["system"] == "D"
    assert written["markdown"].read_text() == EXPECTED
    assert written["page"].read_text() == page(leaderboard)
    write_outputs(leaderboard, out)  # an existing folder is written again


def test_the_page_embeds_the_data_and_escapes_it():
    text = page(_leaderboard(), title="Board <1>")
    assert "<title>Board &lt;1&gt;</title>" in text and "<h1>Board &lt;1&gt;</h1>" in text
    assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n"), "the template's last newline is kept"
    start = text.index('<script type="application/json" id="leaderboard-data">') + len(
        '<script type="application/json" id="leaderboard-data">'
    )
    embedded = text[start : text.index("</script>", start)]
    assert json.loads(embedded) == _leaderboard()
    assert "<title>Radiology report metrics leaderboard</title>" in page(_leaderboard())
    assert schema()["type"] == "object"


# The subcommands, on runs built in memory.
@pytest.fixture
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    data = write_pairs(tmp_path)
    made = {
        "a.eval": memory_run(data),
        "bad.eval": memory_run(data, status="error", results={"vert_mean": 0.5}),
        "b.eval": memory_run(data, [sample(f"s{i}", values={**VALUES, "vert": 0.7}) for i in range(4)]),
    }
    paths = {}
    for name in made:
        paths[name] = tmp_path / name
        paths[name].write_text(name)
        made[name] = replace(made[name], path=paths[name])

    def read(path: str | Path) -> Any:
        return made[Path(path).name]

    monkeypatch.setattr(bundle, "read_run", read)
    monkeypatch.setattr(board_module, "read_run", read)
    return paths


def _submit_args(logs: list[Path], out: Path, **changes: Any) -> argparse.Namespace:
    fields = {"system": "Sys", "institution": "I", "paper": "P", "code": "C", "description": "D", "track": None}
    return argparse.Namespace(logs=[str(p) for p in logs], out=str(out), **{"max_unscored": 0.02, **fields, **changes})


def test_submit_writes_the_bundle_and_says_so(runs, tmp_path, capsys):
    out = tmp_path / "bundle"
    assert submit_command(_submit_args([runs["a.eval"]], out, track="findings")) == 0
    assert capsys.readouterr().out == f"wrote {out / 'manifest.json'} with 1 log(s)\n"
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["system"] == {"name": "Sys", "institution": "I", "paper": "P", "code": "C", "description": "D"}
    assert (manifest["track"], manifest["max_unscored"]) == ("findings", 0.02)


def test_submit_passes_its_unscored_limit_on(runs, tmp_path, monkeypatch, capsys):
    filled = {"vert": 0.0, "green": 0.0, "green_ec": None, "green_f1": 0.0}
    refused = sample("s0", answer=None, values=filled, unscored=dict.fromkeys(filled, "judge_refused"))
    one_unscored = memory_run(write_pairs(tmp_path), [refused, *[sample(f"s{i}") for i in (1, 2, 3)]])
    monkeypatch.setattr(bundle, "read_run", lambda path: one_unscored)
    args = _submit_args([runs["a.eval"]], tmp_path / "lenient", max_unscored=0.25)
    assert submit_command(args) == 0
    assert submit_command(_submit_args([runs["a.eval"]], tmp_path / "strict")) == 1


def test_submit_prints_each_refusal_and_fails(runs, tmp_path, capsys):
    code = submit_command(_submit_args([runs["a.eval"], runs["bad.eval"]], tmp_path / "bundle"))
    assert code == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "radiology-tasks submit: refused, 2 problem(s):\n  bad.eval: log status is error, not success\n"
        "  bad.eval: results: vert_mean 0.5 is not the mean of the samples' vert (0.7)\n"
    )


def test_the_leaderboard_command_ranks_and_lists_what_it_wrote(runs, tmp_path, capsys):
    out = tmp_path / "site"
    args = argparse.Namespace(
        inputs=[str(runs["a.eval"]), str(runs["b.eval"]), str(runs["bad.eval"])],
        out=str(out),
        confidence=0.9,
        resamples=50,
        seed=3,
        max_unscored=0.5,
    )
    assert leaderboard_command(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "1 board(s), 2 ranked run(s), 1 not ranked"
    assert lines[1] == (
        "  not ranked: pairs candidates (../bad.eval): log status is error, not success; "
        "results: vert_mean 0.5 is not the mean of the samples' vert (0.7)"
    )
    assert lines[2:] == [
        f"wrote json: {out / 'leaderboard.json'}",
        f"wrote csv: {out / 'leaderboard.csv'}",
        f"wrote markdown: {out / 'leaderboard.md'}",
        f"wrote page: {out / 'index.html'}",
    ]
    written = json.loads((out / "leaderboard.json").read_text())
    assert written["settings"] == {
        "confidence": 0.9,
        "resamples": 50,
        "seed": 3,
        "max_unscored": 0.5,
        "unscored": "worst",
    }
