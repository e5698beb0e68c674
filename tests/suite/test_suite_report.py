"""suite-report says why each statistic it cannot compute has no value, in the terminal, the CSV and the Markdown."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest

from radiology_tasks.suite.report import (
    SuiteData,
    format_markdown,
    suite_report_command,
    suite_tables,
    write_report,
)

CONSTANT = "a constant has no correlation"


def _data() -> SuiteData:
    """Four pos/neg rows: bleu varies, flat is constant, sparse has one value; two rows carry an expert score."""
    return SuiteData(
        ids=["a-pos", "a-neg", "b-pos", "b-neg"],
        values={"bleu": [0.4, 0.1, 0.3, 0.2], "flat": [0.5] * 4, "sparse": [0.9, None, None, None]},
        expert=[0.8, 0.2, None, None],
        kinds=["pos", "neg", "pos", "neg"],
        sources=["a", "a", "b", "b"],
    )


def _no_nan(text: str) -> None:
    assert not re.search(r"\bnan\b", text, re.IGNORECASE), text
    assert "n/a" not in text


def test_every_undefined_value_has_its_reason() -> None:
    tables = suite_tables(_data(), n_resamples=0)
    flat = f"flat is 0.5 on all 4 samples with both values: {CONSTANT}"
    sparse = "only 1 sample has both {0} and {1}; a correlation needs at least 2"
    assert tables.undefined_cells == {
        ("bleu", "flat"): flat,
        ("bleu", "sparse"): sparse.format("bleu", "sparse"),
        ("flat", "bleu"): flat,
        ("flat", "flat"): flat,
        ("flat", "sparse"): sparse.format("flat", "sparse"),
        ("sparse", "bleu"): sparse.format("sparse", "bleu"),
        ("sparse", "flat"): sparse.format("sparse", "flat"),
        ("sparse", "sparse"): "only 1 sample has a sparse value; a correlation needs at least 2",
    }
    assert tables.undefined_expert == {
        "bleu": "no bootstrap resamples were drawn (resamples = 0)",
        "flat": f"flat is 0.5 on all 2 samples with both values: {CONSTANT}",
        "sparse": "only 1 sample has both sparse and the expert score; a correlation needs at least 2",
    }
    assert tables.undefined_pos_neg == {"sparse": "no pos/neg pair has a sparse value on both rows"}
    assert tables.no_expert is None and tables.no_pos_neg is None


def test_a_constant_expert_score_is_named() -> None:
    data = _data()
    data.expert = [0.5, 0.5, 0.5, None]
    tables = suite_tables(data, n_resamples=10)
    assert tables.undefined_expert["bleu"] == f"the expert score is 0.5 on all 3 samples with both values: {CONSTANT}"


def test_the_markdown_gives_each_reason_and_no_nan() -> None:
    text = format_markdown(suite_tables(_data(), n_resamples=0))
    _no_nan(text)
    assert "| flat | undefined | undefined | undefined |" in text
    # Each pair of metrics is named once per matrix, grouped by reason.
    assert text.count(f"- bleu / flat, flat: flat is 0.5 on all 4 samples with both values: {CONSTANT}") == 2
    assert "Undefined cells:\n- bleu / flat, flat: flat is 0.5" in text
    assert "- sparse: only 1 sample has a sparse value; a correlation needs at least 2" in text
    assert "| sparse | undefined | undefined | undefined | 1 | + | only 1 sample has both sparse and the expert" in text
    assert "| bleu | 1.000 | undefined | undefined | 2 | + | no bootstrap resamples were drawn" in text
    assert "| sparse | undefined | undefined | undefined | undefined | undefined | 0 | no pos/neg pair has" in text


def test_missing_tables_are_explained() -> None:
    data = SuiteData(
        ids=["x", "y"], values={"bleu": [0.1, 0.2]}, expert=[None, None], kinds=[None] * 2, sources=[None] * 2
    )
    text = format_markdown(suite_tables(data, n_resamples=0))
    assert "No table against the expert score: no sample carries an expert score." in text
    assert "No pos/neg table: the samples are not pos/neg rows" in text
    data.kinds, data.sources = ["pos", None], ["x", None]
    assert "No pos/neg table: no pos row has a neg partner (1 rows without one)." in format_markdown(suite_tables(data))


def test_the_csv_files_give_each_reason_in_their_last_column(tmp_path: Path) -> None:
    written = write_report(suite_tables(_data(), n_resamples=0), tmp_path)
    for path in written:
        if path.suffix in (".csv", ".md"):
            _no_nan(path.read_text())

    def rows(name: str) -> dict[str, dict[str, str]]:
        with (tmp_path / name).open(newline="") as handle:
            return {row["metric"]: row for row in csv.DictReader(handle)}

    kendall = rows("kendall.csv")
    assert kendall["flat"]["bleu"] == "" and kendall["bleu"]["bleu"] == "1.0"
    flat = f"flat is 0.5 on all 4 samples with both values: {CONSTANT}"
    assert kendall["bleu"]["undefined"] == (
        f"flat: {flat}; sparse: only 1 sample has both bleu and sparse; a correlation needs at least 2"
    )
    assert rows("pearson.csv")["flat"]["undefined"].startswith(f"bleu: {flat}; flat: {flat}; sparse: only 1 sample")
    expert = rows("expert_agreement.csv")
    assert expert["flat"]["kendall_tau"] == "" and expert["flat"]["undefined"].startswith("flat is 0.5 on all 2")
    assert expert["bleu"]["kendall_tau"] == "1.0" and expert["bleu"]["undefined"].startswith("no bootstrap")
    pos_neg = rows("pos_neg.csv")
    assert pos_neg["sparse"]["gap"] == "" and pos_neg["sparse"]["undefined"].startswith("no pos/neg pair")
    assert pos_neg["bleu"]["undefined"] == ""


def test_the_command_prints_the_reasons(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import radiology_tasks.suite.report as report

    monkeypatch.setattr(report, "read_suite", lambda logs, keys: _data())
    assert suite_report_command(["x.eval"], str(tmp_path), keys=None, pairs_by_id=False, resamples=0, seed=0) == 0
    out = capsys.readouterr().out
    _no_nan(out)
    assert "flat is 0.5 on all 4 samples with both values" in out


def test_metric_names_from_the_logs_stay_inert_in_the_markdown_and_the_csv(tmp_path: Path) -> None:
    # A score key is whatever the log says: it must not become HTML, a new cell, or a spreadsheet formula.
    html, formula = "<img src=x onerror=alert(1)>|x", '=HYPERLINK("http://x","y")'
    data = _data()
    data.values = {html: data.values["bleu"], formula: [0.1, 0.4, 0.2, 0.3]}
    tables = suite_tables(data, n_resamples=0)
    text = format_markdown(tables)
    assert "<img" not in text and "&lt;img src=x onerror=alert(1)&gt;\\|x" in text
    header = next(line for line in text.splitlines() if line.startswith("| "))
    assert header.count(" | ") == 2, "one cell per metric and the corner"
    write_report(tables, tmp_path)
    with (tmp_path / "kendall.csv").open(newline="") as handle:
        table = list(csv.reader(handle))
    assert table[0][1:3] == [html, "'" + formula] and [row[0] for row in table[1:]] == [html, "'" + formula]
    assert table[1][1] == "1.0" and table[2][1].startswith("-"), "numbers are kept as numbers, a negative one too"
