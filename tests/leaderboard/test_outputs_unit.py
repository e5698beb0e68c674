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
from radiology_tasks.leaderboard.outputs import (
    CSV_COLUMNS,
    csv_rows,
    evidence_command,
    markdown,
    page,
    schema,
    schema_problems,
    write_outputs,
)
from radiology_tasks.leaderboard.redact import HASH_ONLY_UNCHECKED_DATA
from tests.leaderboard.hand_built import hand_built
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
        "empty": {},
        **extra,
    }


UNDEFINED = ("ci_low", "ci_high")


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
        "trial": {"samples": 4, "dataset_samples": 41},
        "statistic": "mean vert over the samples",
        "note": "A note.",
        "entries": [
            _entry(1, "A|x", 0.8, breakdown={"By type": {"numeric": 0.5, "other": None}}),
            _entry(2, "B", 0.6, breakdown={"By type": {"numeric": 0.25, "location": 1.0}, "Second": {"r": 0.1}}),
            _entry(
                3, "C", 0.5, breakdown=None, ci_low=None, ci_high=None, empty=dict.fromkeys(UNDEFINED, "no interval")
            ),
        ],
        "significance": {
            "resamples": 300,
            "seed": 2,
            "tests": [
                {
                    "a": "A|x",
                    "b": "B",
                    "difference": 0.2,
                    "paired_bootstrap_p": 0.01234,
                    "randomization_p": 0.5,
                    "n": 4,
                },
                {
                    "a": "A|x",
                    "b": "C",
                    "difference": 0.3,
                    "paired_bootstrap_p": None,
                    "randomization_p": None,
                    "n": 4,
                    "empty": dict.fromkeys(("paired_bootstrap_p", "randomization_p"), "undefined"),
                },
            ],
        },
    }
    plain = {
        **ranked,
        "id": "green",
        "track": None,
        "trial": None,
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
        "trial": None,
        "note": None,
        "measures": ["balance", "robustness"],
        "statistic": "mean balance over the units",
        "measure_labels": {"balance": "mean balance over the units", "robustness": "mean robustness over the units"},
        "measure_units": {"balance": "units", "robustness": "units"},
        "entries": [
            {
                "rank": 1,
                "system": "judge|1",
                "log": "../j1.eval",
                "measures": {"balance": {"value": 0.7, "ci_low": 0.6, "ci_high": 0.8, "n": 7}, "robustness": None},
                "empty": {"robustness": "no unit has one"},
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
                    "empty": {"randomization_p": "bootstrap only"},
                },
                {"a": "j3", "b": "j2", "difference": 0.0, "paired_bootstrap_p": 1.0, "randomization_p": 0.25, "n": 6},
            ],
        },
    }
    return {
        "settings": {"confidence": 0.9, "resamples": 300, "seed": 2},
        "trial": True,
        "boards": [ranked, plain],
        "judge_boards": [
            judges,
            {**judges, "note": "Judged.", "significance": {**judges["significance"], "tests": []}},
        ],
        "not_ranked": [{"system": "E|e", "task": None, "log": "../e.eval", "reasons": ["one", "two|2"]}],
    }


EXPECTED = """# Leaderboard

Intervals: 90% percentile bootstrap, 300 resamples, seed 2. A missing score counts as 0.

Trial leaderboard: every board ranks runs on part of their dataset (the samples each covers are in its heading); its ranks and intervals say nothing certain about the whole dataset.

## Task vert · data pairs · track findings · trial: 4 of 41 samples

Judge openai/judge, task version 1.4.0, 4 samples.

| rank | system | mean vert over the samples | 90% interval | n (samples) | unscored (counted as 0) | log | open the evidence |
|---:|---|---:|---|---:|---:|---|---|
| 1 | A\\|x | 0.800 | 0.700 – 0.850 | 4 | 0 | `../A\\|x.eval` | `inspect view --log-dir /site` |
| 2 | B | 0.600 | 0.500 – 0.650 | 4 | 1 | `../B.eval` | `inspect view --log-dir /site` |
| 3 | C | 0.500 | n/a [1] | 4 | 2 | `../C.eval` | `inspect view --log-dir /site` |

[1] no interval

Note: A note.

By type:

| row | A\\|x | B |
|---|---:|---:|
| numeric | 0.500 | 0.250 |
| other | n/a [1] | n/a [1] |
| location | n/a [1] | 1.000 |

[1] the run's breakdown gives no value for this row (undefined for its samples)

Second:

| row | B |
|---|---:|
| r | 0.100 |

Paired tests (300 resamples, seed 2):

| a | b | mean vert over the samples, a − b | paired bootstrap p | approximate randomization p | n |
|---|---|---:|---:|---:|---:|
| A\\|x | B | +0.200 | 0.012 | 0.500 | 4 |
| A\\|x | C | +0.300 | n/a [1] | n/a [1] | 4 |

[1] undefined

## Task vert · data pairs

Judge openai/judge, task version 1.4.0, 4 samples.

| rank | system | mean vert over the samples | 90% interval | n (samples) | unscored (counted as 0) | log | open the evidence |
|---:|---|---:|---|---:|---:|---|---|
| 1 | D | 0.900 | 0.800 – 0.950 | 4 | 0 | `../D.eval` | `inspect view --log-dir /site` |

## Judges

### Task judge_sensitivity · data refs

Judges ranked by mean balance over the units, task version 1.3.0, 14 samples.

| rank | judge | mean balance over the units | 90% interval | n (units) | mean robustness over the units | 90% interval | n (units) | log | open the evidence |
|---:|---|---:|---|---:|---:|---|---:|---|---|
| 1 | judge\\|1 | 0.700 | 0.600 – 0.800 | 7 | n/a [1] | n/a [1] | n/a [1] | `../j1.eval` | `inspect view --log-dir /site` |

[1] no unit has one

Paired tests (100 resamples, seed 0):

| a | b | mean balance over the units, a − b | paired bootstrap p | approximate randomization p | n |
|---|---|---:|---:|---:|---:|
| judge\\|1 | j2 | -0.125 | 0.500 | n/a [1] | 7 |
| j3 | j2 | +0.000 | 1.000 | 0.250 | 6 |

[1] bootstrap only

### Task judge_sensitivity · data refs

Judges ranked by mean balance over the units, task version 1.3.0, 14 samples. Judged.

| rank | judge | mean balance over the units | 90% interval | n (units) | mean robustness over the units | 90% interval | n (units) | log | open the evidence |
|---:|---|---:|---|---:|---:|---|---:|---|---|
| 1 | judge\\|1 | 0.700 | 0.600 – 0.800 | 7 | n/a [1] | n/a [1] | n/a [1] | `../j1.eval` | `inspect view --log-dir /site` |

[1] no unit has one

## Not ranked

| system | task | log | reasons |
|---|---|---|---|
| E\\|e | n/a [1] | `../e.eval` | one; two\\|2 |

[1] the log could not be read, so its task is unknown
"""  # noqa: E501 - the Markdown's table lines are as long as they are


FOLDER = Path("/site/board")


def test_the_markdown_of_every_kind_of_board():
    assert markdown(_leaderboard(), FOLDER) == EXPECTED


def test_the_interval_columns_are_named_for_the_runs_confidence():
    leaderboard = _leaderboard()
    assert "95%" not in markdown(leaderboard, FOLDER), "intervals at 90% are not headed 95%"
    leaderboard["settings"]["confidence"] = 0.95
    assert markdown(leaderboard, FOLDER).count("| 95% interval |") == 6, (
        "two boards, two judges' boards of two measures"
    )


def test_the_markdown_without_judges_or_refused_runs():
    leaderboard = {**_leaderboard(), "judge_boards": [], "not_ranked": []}
    text = markdown(leaderboard, FOLDER)
    assert "## Judges" not in text and "## Not ranked" not in text
    assert text.endswith(
        "\n\n## Task vert · data pairs\n\nJudge openai/judge, task version 1.4.0, 4 samples.\n\n"
        "| rank | system | mean vert over the samples | 90% interval | n (samples) | unscored (counted as 0) | log "
        "| open the evidence |\n|---:|---|---:|---|---:|---:|---|---|\n"
        "| 1 | D | 0.900 | 0.800 – 0.950 | 4 | 0 | `../D.eval` | `inspect view --log-dir /site` |\n"
    )
    assert markdown({**leaderboard, "judge_boards": None}, FOLDER) == text
    del leaderboard["judge_boards"]
    assert markdown(leaderboard, FOLDER) == text


def test_a_judges_board_of_agreement_counts_samples_and_names_the_judged_score():
    leaderboard = _leaderboard()
    judges = leaderboard["judge_boards"][0]
    judges |= {"kind": "agreement", "score": "vert", "statistic": "Kendall's tau-b against the experts"}
    judges["measure_units"] = {"balance": "samples", "robustness": "pairs"}
    text = markdown(leaderboard, FOLDER)
    assert "| 90% interval | n (samples) | mean robustness over the units | 90% interval | n (pairs) |" in text
    assert "Judges ranked by Kendall's tau-b against the experts (of vert), task version 1.3.0" in text
    assert "| a | b | Kendall's tau-b against the experts, a − b | paired bootstrap p |" in text


def test_a_full_leaderboard_has_no_trial_note_and_a_board_of_full_runs_no_marker():
    leaderboard = {**_leaderboard(), "trial": False}
    text = markdown(leaderboard, FOLDER)
    assert "Trial leaderboard" not in text and "## Task vert · data pairs · track findings · trial: 4 of 41" in text
    leaderboard["boards"][0]["trial"] = None
    assert "trial:" not in markdown(leaderboard, FOLDER)


def test_the_evidence_command_names_the_log_folder_absolutely_and_quotes_it():
    assert evidence_command("../bundles/a b/logs/x.eval", Path("/srv/site")) == (
        "inspect view --log-dir '/srv/bundles/a b/logs'"
    )
    assert evidence_command("logs/x.eval", Path("site")) == f"inspect view --log-dir {Path.cwd() / 'site' / 'logs'}"


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
    leaderboard = hand_built()
    out = tmp_path / "site" / "nested"
    written = write_outputs(leaderboard, out)
    assert written == {
        "json": out / "leaderboard.json",
        "csv": out / "leaderboard.csv",
        "markdown": out / "leaderboard.md",
        "page": out / "index.html",
    }
    assert json.loads(written["json"].read_text()) == leaderboard
    assert written["json"].read_text().startswith('{\n  "schema_version"') and written["json"].read_text().endswith(
        "}\n"
    )
    with written["csv"].open(newline="") as handle:
        read = list(csv.DictReader(handle))
    assert list(read[0]) == list(CSV_COLUMNS) and [row["system"] for row in read] == ["System A", "System B"]
    assert written["markdown"].read_text() == markdown(leaderboard, out)
    assert f"`inspect view --log-dir {out / 'logs'}` |" in written["markdown"].read_text()
    assert written["page"].read_text() == page(leaderboard)
    write_outputs(leaderboard, out)  # an existing folder is written again


def test_a_leaderboard_that_does_not_follow_its_schema_is_not_written(tmp_path):
    leaderboard = hand_built()
    leaderboard["boards"][0]["entries"][1]["system"] = 7
    del leaderboard["settings"]["seed"]
    leaderboard["judge_boards"][0]["entries"][0]["log_sha256"] = "not a hash"
    with pytest.raises(ValueError) as refused:
        write_outputs(leaderboard, tmp_path / "site")
    assert str(refused.value) == (
        "leaderboard.json would not follow leaderboard.schema.json: "
        "boards[0].entries[1].system: 7 is not of type 'string'; "
        "judge_boards[0].entries[0].log_sha256: 'not a hash' does not match '^[0-9a-f]{64}$'; "
        "settings: 'seed' is a required property"
    )
    assert not (tmp_path / "site").exists()
    assert schema_problems(hand_built()) == []


def test_no_output_is_written_with_a_figure_that_is_not_a_number(tmp_path):
    leaderboard = _leaderboard()
    leaderboard["boards"][1]["entries"][0]["ci_low"] = float("nan")
    leaderboard["judge_boards"][0]["significance"]["tests"][1]["randomization_p"] = float("inf")
    with pytest.raises(ValueError) as refused:
        write_outputs(leaderboard, tmp_path / "site")
    assert str(refused.value) == (
        "not a number at leaderboard.boards[1].entries[0].ci_low, "
        "leaderboard.judge_boards[0].significance.tests[1].randomization_p: a missing figure is null with its reason"
    )
    assert not (tmp_path / "site").exists()


def test_a_csv_row_says_why_a_cell_is_empty_and_whether_it_is_a_trial():
    rows = csv_rows(_leaderboard())
    assert [(r["system"], r["ci_low"], r["empty_cells"]) for r in rows[2:]] == [
        ("C", None, "ci_low: no interval; ci_high: no interval"),
        ("D", pytest.approx(0.8), ""),
    ]
    assert [(r["trial"], r["statistic"]) for r in (rows[0], rows[3])] == [
        ("trial: 4 of 41 samples", "mean vert over the samples"),
        ("", "mean vert over the samples"),
    ]


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
        "trial-a.eval": memory_run(data, [sample(f"s{i}") for i in range(2)]),
        "trial-b.eval": memory_run(data, [sample(f"s{i}") for i in range(2)]),
        "other-samples.eval": memory_run(data, [sample(f"s{i}") for i in (1, 2, 3)]),
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
    fields |= {"redact_text": None, "replace": False}
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
        trial=False,
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


def _board_args(runs: dict[str, Path], names: list[str], out: Path, trial: bool) -> argparse.Namespace:
    inputs = [str(runs[name]) for name in names]
    return argparse.Namespace(
        inputs=inputs, out=str(out), confidence=0.95, resamples=50, seed=0, max_unscored=0.02, trial=trial
    )


def test_a_trial_leaderboard_ranks_runs_on_part_of_the_data_and_marks_every_board(runs, tmp_path, capsys):
    out = tmp_path / "trial"
    args = _board_args(runs, ["trial-a.eval", "trial-b.eval", "other-samples.eval"], out, trial=True)
    assert leaderboard_command(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "trial leaderboard: 1 board(s), 2 ranked run(s), 1 not ranked"
    written = json.loads((out / "leaderboard.json").read_text())
    assert written["trial"] is True
    (board,) = written["boards"]
    assert (board["trial"], board["n_samples"]) == ({"samples": 2, "dataset_samples": 4}, 2)
    (refused,) = written["not_ranked"]
    assert refused["reasons"] == [
        "not comparable: sample set differs (3 samples, 1 of them among the board's 2; runs on part of the data are "
        "compared only on the same samples: give them the same -T limit and -T seed)"
    ]
    heading = f"## Task vert · data {tmp_path / 'pairs.jsonl'} · trial: 2 of 4 samples\n"
    assert heading in (out / "leaderboard.md").read_text()


def test_a_trial_leaderboard_refuses_a_full_run_and_writes_nothing(runs, tmp_path, capsys):
    out = tmp_path / "mixed"
    assert leaderboard_command(_board_args(runs, ["trial-a.eval", "a.eval"], out, trial=True)) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == (
        "radiology-tasks leaderboard: refused, a trial leaderboard ranks runs on part of their dataset and never "
        "ranks a full run beside them; rank these without --trial, the trial runs with it:\n"
        f"  {runs['a.eval']}: covers all 4 samples of {tmp_path / 'pairs.jsonl'}\n"
    )
    assert not out.exists()


def test_a_full_leaderboard_does_not_rank_a_run_on_part_of_the_data_and_says_how_to(runs, tmp_path, capsys):
    out = tmp_path / "full"
    assert leaderboard_command(_board_args(runs, ["a.eval", "trial-a.eval"], out, trial=False)) == 0
    written = json.loads((out / "leaderboard.json").read_text())
    assert written["trial"] is False and written["boards"][0]["trial"] is None
    assert [e["log"] for e in written["boards"][0]["entries"]] == ["../a.eval"]
    (refused,) = written["not_ranked"]
    assert refused["reasons"] == [
        "2 of the dataset's 4 samples are missing: s2, s3 (a run on part of the data is ranked only on a trial "
        "page: radiology-tasks leaderboard --trial)"
    ]


def test_a_preference_measure_shows_its_counts_and_a_redacted_judge_its_checks():
    leaderboard = _leaderboard()
    entry = leaderboard["judge_boards"][0]["entries"][0]
    entry["measures"]["robustness"] = {"value": 0.75, "ci_low": 0.5, "ci_high": 1.0, "n": 5, "right": 3, "wrong": 1}
    entry["measures"]["robustness"]["ties"] = 1
    entry["checks"] = HASH_ONLY_UNCHECKED_DATA
    text = markdown(leaderboard, FOLDER)
    assert (
        f"| 1 | judge\\|1 ({HASH_ONLY_UNCHECKED_DATA}) | 0.700 | 0.600 – 0.800 | 7 | 0.750 | 0.500 – 1.000 "
        "| 5 (3 right, 1 wrong, 1 tied) |"
    ) in text
