"""Every figure of a run as data: `radiology_tasks.run_figures`, `radiology-tasks report --json` and the Markdown
report hold the same figures, and the JSON never holds NaN or Infinity."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.scorer import SampleScore, Score, metric

import radiology_tasks
from radiology_tasks.cli import main
from radiology_tasks.core import run_report
from radiology_tasks.core.run_report import Figure, RunFigures, compute_figures, run_figures, summary_check
from radiology_tasks.core.run_report_output import report_command

OLD_LOGS = Path(__file__).parents[1] / "fixtures" / "old_logs"
SLOW_REPORTS = {"baselines", "ran_score"}
"""Logs whose report takes a second or more: computed three times over, they run with the slow tests."""
LOGS = [
    pytest.param(path, id=path.stem, marks=[pytest.mark.slow] if path.stem in SLOW_REPORTS else [])
    for path in sorted(OLD_LOGS.glob("*.eval"))
]
_UNDECLARED = "Logged, not declared"


def strict_json(text: str) -> Any:
    """The JSON in `text`, refusing the NaN, Infinity and -Infinity tokens Python's json would accept."""

    def refuse(token: str) -> None:
        raise AssertionError(f"the JSON holds {token}")

    return json.loads(text, parse_constant=refuse)


def markdown_tables(text: str) -> dict[str, dict[str, list[str]]]:
    """Each table of the Markdown report by its section title: row cells (after the name) by the row's name."""
    tables: dict[str, dict[str, list[str]]] = {}
    title = ""
    for line in text.splitlines():
        if line.startswith("## "):
            title = line[3:]
            tables[title] = {}
        elif line.startswith("| ") and not line.startswith("| metric |"):
            cells = [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", line)[1:-1]]
            tables[title][cells[0]] = cells[1:]
    return tables


def _shown(value: float) -> float:
    return float(f"{value:.4g}")


@pytest.mark.parametrize("path", LOGS)
def test_json_python_and_markdown_hold_the_same_figures(
    path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    figures = radiology_tasks.run_figures(path)
    code = report_command(str(path), str(tmp_path / "md"))
    markdown = capsys.readouterr().out
    assert report_command(str(path), str(tmp_path / "json"), as_json=True) == code
    printed = capsys.readouterr().out
    data = strict_json(printed)
    assert (tmp_path / "json" / "report.json").read_text() == printed
    assert (tmp_path / "md" / "report.json").read_text() == printed
    assert code == (1 if figures.summary_check == "differs" else 0)

    # The JSON is the Python result, field by field, each value the exact float.
    assert [key for key in data if key != "figures"] == [
        "log", "task", "task_version", "current_version", "family", "scorer", "sample_count", "task_args",
        "summary_check", "not_recomputed",
    ]  # fmt: skip
    for key in ("log", "task", "task_version", "current_version", "family", "scorer", "sample_count", "task_args"):
        assert data[key] == getattr(figures, key), key
    assert data["summary_check"] == figures.summary_check
    assert len(data["figures"]) == len(figures.figures) > 0
    for found, figure in zip(data["figures"], figures.figures, strict=True):
        logged = None if figure.logged is None or math.isnan(figure.logged) else figure.logged
        assert found == {
            "name": figure.name,
            "kind": figure.kind,
            "value": figure.value,
            "reason": figure.reason,
            "metric": figure.metric,
            "scorer": figure.scorer,
            "logged": logged,
            "matches_log": figure.matches_log,
        }
        assert (figure.value is None) == (figure.reason is not None), figure
    assert data["not_recomputed"] == {
        name: None if math.isnan(value) else value for name, value in figures.not_recomputed.items()
    }

    # The Markdown shows the same figures in the same order, each value as printed or with its reason.
    intro = f"- Task: {figures.task} {figures.task_version} ({figures.family}), scorer {figures.scorer}, "
    assert f"{intro}{figures.sample_count} samples" in markdown
    tables = markdown_tables(markdown)
    rows = {
        name: cells
        for title, table in tables.items()
        if not title.startswith(_UNDECLARED)
        for name, cells in table.items()
    }
    # (the Markdown groups the secondary figures by metric, so only the headline table keeps the JSON's order)
    assert sorted(rows) == sorted(figure.name for figure in figures.figures)
    assert list(tables["Headline (the run's summary)"]) == [figure.name for figure in figures.headline]
    for found in data["figures"]:
        cells = rows[found["name"]]
        if found["value"] is None:
            assert cells[0] == f"undefined: {found['reason']}"
        else:
            assert float(cells[0]) == _shown(found["value"])
        if found["matches_log"] is not None:
            assert cells[1].endswith("(equal)" if found["matches_log"] else "(DIFFERS)")
            assert cells[1].startswith("logged as NaN" if found["logged"] is None else "")
        elif len(cells) > 1:
            assert cells[1] == "not logged"
    assert set(tables.get(f"{_UNDECLARED} by the task today (an older version's metrics)", {})) == set(
        data["not_recomputed"]
    )


def test_an_undefined_figure_and_a_logged_nan_are_null_in_the_json_with_the_reason() -> None:
    figures = run_figures(OLD_LOGS / "green.eval")
    bias = next(figure for figure in figures.figures if figure.name == "bias_4+")
    assert bias.value is None and bias.logged is not None and math.isnan(bias.logged) and bias.matches_log is True
    found = next(f for f in strict_json(figures.model_dump_json())["figures"] if f["name"] == "bias_4+")
    assert found["value"] is None and found["logged"] is None and found["matches_log"] is True
    assert found["reason"] == bias.reason and "4+ significant" in found["reason"]
    assert found["kind"] == "secondary" and found["metric"] == "radiology_tasks/error_count_bias"


def test_an_infinite_value_is_undefined_with_its_reason_never_an_infinity_token() -> None:
    @metric(name="toy_infinite")
    def infinite() -> Any:
        return lambda scores: {"toy_up": math.inf, "toy_down": -math.inf, "toy_fine": 1.5}

    samples = [SampleScore(score=Score(value=1.0), sample_id="s0")]
    figures = compute_figures([infinite()], samples, {"toy_up": math.inf}, kind="secondary", scorer="toy")
    assert [(f.name, f.value) for f in figures] == [("toy_up", None), ("toy_down", None), ("toy_fine", 1.5)]
    assert figures[0].reason == "the metric gave inf, which is not a finite number"
    assert figures[1].reason == "the metric gave -inf, which is not a finite number"
    assert figures[2].reason is None and all(f.scorer == "toy" and f.kind == "secondary" for f in figures)
    assert figures[0].logged == math.inf and figures[0].matches_log is False  # Python keeps the logged float
    text = RunFigures(
        log="x", task="t", task_version="1", current_version="1", family="f", scorer="toy", sample_count=1,
        task_args={}, summary_check="not_logged", figures=figures, not_recomputed={"old": math.nan},
    ).model_dump_json()  # fmt: skip
    data = strict_json(text)
    assert data["figures"][0]["logged"] is None and data["figures"][0]["matches_log"] is False
    assert data["not_recomputed"] == {"old": None}


def _figure(name: str, value: float | None, logged: float | None) -> Figure:
    return Figure(name=name, kind="headline", value=value, metric="m", scorer="s", logged=logged)


@pytest.mark.parametrize(
    ("headline", "versions", "check"),
    [
        ([], ("1", "1"), "not_logged"),
        ([_figure("a", 1.0, None)], ("1", "1"), "not_logged"),
        ([_figure("a", 1.0, 1.0), _figure("b", None, math.nan), _figure("c", 2.0, None)], ("1", "1"), "equal"),
        ([_figure("a", 1.0, 1.0), _figure("b", 2.0, 2.5)], ("1", "1"), "differs"),
        ([_figure("a", 1.0, 1.0), _figure("b", None, 2.5)], ("1", "2"), "older_version"),
        ([_figure("a", 1.0, 1.0)], ("1", "2"), "equal"),
    ],
)
def test_the_summary_check_says_how_the_logged_headline_compares(
    headline: list[Figure], versions: tuple[str, str], check: str
) -> None:
    assert summary_check(headline, *versions) == check


def test_the_check_and_its_verdict_for_a_log_cut_short_before_its_results(capsys: pytest.CaptureFixture[str]) -> None:
    from radiology_tasks.core.run_report import report_of
    from radiology_tasks.core.run_report_output import markdown

    log = read_eval_log(str(OLD_LOGS / "vert.eval"))
    log.results = None
    report = report_of(log, "cut.eval")
    assert report.summary_check == "not_logged" and report.headline_matches
    assert "Recomputed from the log's samples: the log holds no headline value to compare." in markdown(report)


def test_run_figures_reads_a_path_a_path_like_or_a_log_and_gives_values_by_name() -> None:
    path = OLD_LOGS / "vert.eval"
    from_path, from_text = run_figures(path), run_figures(str(path))
    log = read_eval_log(str(path))
    from_log = run_figures(log)
    assert from_path == from_text and from_path.log == str(path)
    assert from_log.log == log.location and from_log.model_copy(update={"log": str(path)}) == from_path
    assert type(from_path) is RunFigures and "samples" not in from_path.model_dump()
    values = from_path.values()
    assert list(values) == [figure.name for figure in from_path.figures]
    assert values["vert_mean"] == from_path.headline[0].value and values["bias_4+"] is None
    assert [f.kind for f in from_path.figures] == ["headline"] * len(from_path.headline) + ["secondary"] * len(
        from_path.secondary
    )


def test_run_figures_is_exported_lazily_from_the_package() -> None:
    assert "run_figures" in radiology_tasks.__all__ and radiology_tasks.run_figures is run_report.run_figures
    heavy = ("radiology_tasks.core.run_report", "pydantic")
    code = f"import sys, radiology_tasks; print(*(name in sys.modules for name in {heavy!r}))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_report_json_from_the_command_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = OLD_LOGS / "judge_sensitivity.eval"
    assert main(["report", str(path), "--json"]) == 0
    captured = capsys.readouterr()
    assert strict_json(captured.out) == strict_json(run_figures(path).model_dump_json())
    assert captured.err == "" and not path.with_suffix(".report").exists()  # nothing written without --out
    assert main(["report", str(path), "--json", "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    assert (tmp_path / "report.json").read_text() == captured.out
    assert captured.err.startswith("Written: ") and (tmp_path / "report.md").exists()


@pytest.mark.slow
def test_evals_df_reads_every_figure_through_a_column_of_run_figures(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    from inspect_ai.analysis import EvalColumn, EvalColumns, evals_df
    from inspect_ai.log import write_eval_log

    # The column docs/python.md gives: the log itself holds only the summary, so the figures are read from it.
    figure_columns = [EvalColumn("figure_*", path=lambda log: run_figures(log.location).values())]
    paths = [str(OLD_LOGS / "vert.eval"), str(OLD_LOGS / "ct_finebench.eval")]
    frame = evals_df(paths, columns=[*EvalColumns, *figure_columns])
    for path in paths:
        row = frame[frame["log"] == path].iloc[0]
        for name, value in run_figures(path).values().items():
            cell = row[f"figure_{name}"]
            assert pandas.isna(cell) if value is None else cell == value, (path, name)
    # A log of another task: refused, or with strict=False kept without figures and its error returned.
    other = read_eval_log(str(OLD_LOGS / "vert_over_generation.eval"))
    other.eval.task, other.eval.eval_id = "someone_else/other_task", "another-eval"
    write_eval_log(other, str(tmp_path / "other.eval"))
    mixed = [str(tmp_path / "other.eval"), paths[0]]
    with pytest.raises(ValueError, match="other_task belongs to no radiology-tasks family"):
        evals_df(mixed, columns=[*EvalColumns, *figure_columns])
    frame, errors = evals_df(mixed, columns=[*EvalColumns, *figure_columns], strict=False)
    assert list(frame["task_name"]) == ["other_task", "vert"] and len(errors) == 1
    assert (
        pandas.isna(frame["figure_vert_mean"].iloc[0])
        and frame["figure_vert_mean"].iloc[1] == run_figures(paths[0]).values()["vert_mean"]
    )


def test_a_log_s_arguments_and_cells_stay_inert_in_the_markdown() -> None:
    from radiology_tasks.core.run_report_output import markdown

    figures = run_figures(OLD_LOGS / "vert.eval")
    hostile = "<img src=x onerror=alert(1)>|`x`"
    forged = figures.model_copy(
        update={
            "task_args": {"data": hostile},
            "figures": [figures.figures[0].model_copy(update={"name": hostile})],
        }
    )
    text = markdown(forged)
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;" in text
    row = next(line for line in text.splitlines() if "onerror" in line and line.startswith("| "))
    # The pipe and backticks in the name are escaped: the row keeps its cells and opens no code span.
    assert "&gt;\\|\\`x\\`" in row
