"""The table's four files: JSON, CSV, Markdown and the page, each escaping what came from the logs."""

from __future__ import annotations

import csv
import json
import math
import re

import pytest

from radiology_tasks.agreement.model import PROTOCOL_BY_NAME, Cell, PairedTest, PreferenceFigures, RowId, TauFigures
from radiology_tasks.agreement.outputs import (
    CSV_COLUMNS,
    Footnotes,
    as_json,
    count,
    csv_rows,
    csv_text,
    figures_text,
    markdown,
    markdown_text,
    not_numbers,
    number,
    page,
    write_outputs,
)
from radiology_tasks.agreement.table import build_table
from tests.agreement.memory import RADPREF, REXVAL, figure, preference, run, tau
from tests.agreement.test_table_unit import _published

HOSTILE = '<img src=x onerror="window.__pwned=1">=cmd|x'


def _table():
    published = [_published("bleu_2", "rexval", "significant_errors", "0.4474")]
    runs = [
        run(
            "x.eval",
            [
                *tau("bleu_2", 0.41, infix="_vs_errors", low=0.2, high=0.6, n=8, unscored=1),
                *tau("rouge_l", None, infix="_vs_errors", reason="the experts gave all 8 samples the same value"),
            ],
            dataset=REXVAL,
        ),
        run("y.eval", tau("bleu_2", 0.3, infix="_vs_errors"), dataset=REXVAL, created="2025-01-01T00:00:00+00:00"),
        run("p.eval", preference("bleu_2", 0.75, pairs=8, ties=1), keys=["bleu_2"], dataset=RADPREF),
    ]

    def tester(group, first, second):
        return PairedTest(group.id, first[0], second[0], 0.125, 0.04, 8, 100, 97)

    return build_table(runs, published, paired=tester, resamples=100, seed=1)


def test_text_helpers():
    assert markdown_text("a|b <i>*x*</i>\n_y_ [z](u) `c` !#~&\\") == (
        "a\\|b \\<i\\>\\*x\\*\\</i\\> \\_y\\_ \\[z\\](u) \\`c\\` \\!\\#\\~\\&\\\\"
    )
    assert [csv_text(t) for t in ("=1+1", "+a", "-b", "@c", "\td", "\re", "ok", "a=b")] == [
        "'=1+1",
        "'+a",
        "'-b",
        "'@c",
        "'\td",
        "'\re",
        "ok",
        "a=b",
    ]
    assert (number(0.12345), number(None), number(-0.5, 2), count(3), count(None)) == (
        "0.123",
        "n/a",
        "-0.50",
        "3",
        "n/a",
    )


def test_figures_text_per_kind():
    assert figures_text(Cell(TauFigures(0.41, 0.2, 0.6, 8, 1, 0), None)) == "0.410 [0.200, 0.600], n 8, unscored 1"
    assert figures_text(Cell(TauFigures(0.41, None, None, 8, 0, 2), None)) == "0.410, n 8, unscored 0, no expert 2"
    assert figures_text(Cell(PreferenceFigures(0.75, 8, 1), None)) == "0.750 (pairs 8, ties 1)"
    assert figures_text(Cell(PreferenceFigures(0.75, 8, 1, 5), None)) == "0.750 (pairs 8, agreeing 5, ties 1)"
    assert figures_text(Cell(None, "why")) == "n/a"


def test_footnotes_number_each_text_once():
    notes = Footnotes()
    assert [notes.mark("a"), notes.mark("b"), notes.mark("a")] == [1, 2, 1]
    assert notes.texts == ["a", "b"]


def test_the_json_holds_groups_rows_cells_tests_and_settings():
    data = as_json(_table())
    assert data["logs"] == ["x.eval", "y.eval", "p.eval"]
    assert data["settings"] == {"resamples": 100, "seed": 1}
    assert [g["id"] for g in data["groups"]] == ["rexval / significant_errors", "radpref / preference"]
    assert data["groups"][0]["dataset"] == {
        "name": "rexval",
        "layout": "rexval",
        "data_sha256": "bbbb2222",
        "candidates_sha256": None,
        "reports_sha256": None,
        "sample_ids_sha256": "ids-rexval",
        "samples": 8,
    }
    assert (data["groups"][1]["protocol"], data["groups"][1]["statistic"]) == ("preference", "preference_accuracy")
    bleu = data["rows"][0]
    assert (bleu["key"], bleu["judge"], bleu["label"]) == ("bleu_2", None, "bleu_2")
    cell = bleu["cells"]["rexval / significant_errors"]
    assert cell == {
        "statistic": 0.41,
        "ci_low": 0.2,
        "ci_high": 0.6,
        "n": 8,
        "n_unscored": 1,
        "n_no_expert": 0,
        "interval_reason": None,
        "reason": None,
        "log": "x.eval",
        "same_in": [],
        "differs_in": ["y.eval"],
        "published": [
            {
                "value": 0.4474,
                "printed": "0.4474",
                "judge": "GPT-4.1 mini",
                "statistic": "kendall_tau",
                "source": {"title": "A paper", "table": "Table 2", "row": "GPT-4.1 mini", "column": "BLEU_2"},
                "variant": "tau vs the score",
                "notes": "",
            }
        ],
    }
    assert bleu["cells"]["radpref / preference"]["statistic"] == 0.75
    assert bleu["cells"]["radpref / preference"]["pairs"] == 8
    rouge = data["rows"][1]["cells"]
    assert rouge["radpref / preference"]["statistic"] is None
    assert rouge["radpref / preference"]["reason"] == "no run on radpref scored rouge_l"
    assert data["tests"] == []


def test_paired_tests_are_in_the_json():
    table = _table()
    tests = build_table(
        [run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.3)])],
        paired=lambda group, first, second: PairedTest(group.id, first[0], second[0], 0.1, 0.2, 12, 50, 49, None),
    ).tests
    data = as_json(type(table)(table.rows, table.groups, table.cells, tests))
    assert data["tests"] == [
        {
            "group": "rate / score",
            "first": {"key": "bleu_2", "judge": None, "label": "bleu_2"},
            "second": {"key": "chrf", "judge": None, "label": "chrf"},
            "difference": 0.1,
            "p_value": 0.2,
            "n": 12,
            "resamples": 50,
            "valid": 49,
            "reason": None,
        }
    ]


def test_csv_rows_are_one_per_metric_and_group_with_numbers_as_numbers():
    rows = csv_rows(_table())
    assert len(rows) == 4 and set(rows[0]) == set(CSV_COLUMNS)
    first = rows[0]
    assert (first["metric"], first["dataset"], first["protocol"], first["statistic"]) == (
        "bleu_2",
        "rexval",
        "significant_errors",
        "kendall_tau",
    )
    assert (first["value"], first["ci_low"], first["ci_high"], first["n"], first["n_unscored"]) == (
        0.41,
        0.2,
        0.6,
        8,
        1,
    )
    assert (first["samples"], first["layout"], first["data_sha256"]) == (8, "rexval", "bbbb2222")
    assert (first["pairs"], first["ties"], first["agreeing"], first["judge"]) == ("", "", "", "")
    assert (first["log"], first["same_in"], first["differs_in"], first["reason"]) == ("x.eval", "", "y.eval", "")
    assert first["published"] == '0.4474 (GPT-4.1 mini): "A paper", Table 2: tau vs the score.'
    preference_row = rows[1]
    assert (preference_row["value"], preference_row["pairs"], preference_row["ties"]) == (0.75, 8, 1)
    assert rows[2]["reason"] == "the experts gave all 8 samples the same value" and rows[2]["value"] == ""


def test_csv_text_from_logs_cannot_run_as_a_formula_but_negative_numbers_stay_numbers(tmp_path):
    hostile = run("=HYPERLINK(x).eval", tau("-key", -0.25), judge="@judge", judged=("-key",))
    table = build_table([hostile])
    written = write_outputs(table, tmp_path)
    with written["csv"].open() as f:
        (row,) = list(csv.DictReader(f))
    assert (row["metric"], row["judge"], row["log"]) == ("'-key", "'@judge", "'=HYPERLINK(x).eval")
    assert row["value"] == "-0.25"


def test_markdown_has_the_table_notes_sources_tests_and_logs():
    text = markdown(_table())
    lines = text.splitlines()
    header = (
        "| metric | rexval: tau-b vs mean clinically significant errors | published | "
        "radpref: pairwise preference accuracy |"
    )
    assert header in lines
    assert (
        "| bleu\\_2 | 0.410 [0.200, 0.600], n 8, unscored 1 [1] | 0.4474 (GPT-4.1 mini) [P1] "
        "| 0.750 (pairs 8, ties 1) |" in lines
    )
    assert "| rouge\\_l | n/a, n 12, unscored 0 [2] |  | n/a [3] |" in lines
    assert "[1] y.eval give(s) different figures for this cell; the newest run, x.eval, is shown" in lines
    assert "[2] the experts gave all 8 samples the same value" in lines
    assert "[3] no run on radpref scored rouge\\_l" in lines
    assert '[P1] "A paper", Table 2: tau vs the score.' in lines
    assert "| bleu\\_2 | rouge\\_l | 0.125 | 0.040 | 8 | 97 of 100 |" not in lines
    assert "- x.eval" in lines and "- p.eval" in lines


def test_markdown_lists_paired_tests_with_their_reasons():
    runs = [run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.3), *tau("rouge_l", 0.2)])]
    answers = iter([(0.125, 0.04, None), (None, None, "only 1 sample(s) have both metrics and the experts' value")])

    def tester(group, first, second):
        difference, p, reason = next(answers, (0.5, 0.5, None))
        return PairedTest(group.id, first[0], second[0], difference, p, 12, 100, 0 if reason else 97, reason)

    lines = markdown(build_table(runs, paired=tester)).splitlines()
    assert "### rate: tau-b vs the expert score" in lines
    assert "| bleu\\_2 | chrf | 0.125 | 0.040 | 12 | 97 of 100 |" in lines
    assert (
        "| bleu\\_2 | rouge\\_l | n/a: only 1 sample(s) have both metrics and the experts' value "
        "| n/a | 12 | 0 of 100 |" in lines
    )
    assert "## Paired tests of the tau difference" in lines
    assert "## Paired tests of the tau difference" not in markdown(build_table(runs))


def test_an_interval_reason_gets_its_own_note():
    figures = [figure("vert_kendall_tau", 0.3), figure("vert_kendall_tau_ci_low", None, "resamples were constant")]
    text = markdown(build_table([run("v.eval", figures, keys=["vert"])]))
    assert "| vert | 0.300, n n/a, unscored n/a [1] |" in text
    assert "[1] interval: resamples were constant" in text


def test_markdown_escapes_what_came_from_logs():
    text = markdown(build_table([run(HOSTILE, tau(HOSTILE, 0.2))]))
    assert '\\<img src=x onerror="window.\\_\\_pwned=1"\\>=cmd\\|x' in text
    # Every <, > and | left unescaped is the table's own (its column separators).
    bare = re.sub(r"\\.", "", text)
    assert "<" not in bare and ">" not in bare
    assert all(line.count("|") == 3 for line in bare.splitlines() if line.startswith("| "))


def test_the_page_escapes_what_came_from_logs_and_embeds_the_json():
    html = page(build_table([run(HOSTILE, tau(HOSTILE, 0.2), judge="<b>j</b>", judged=(HOSTILE,))]))
    assert "<img" not in html and "<b>j</b>" not in html
    assert "&lt;img src=x onerror=&#34;window.__pwned=1&#34;&gt;=cmd|x" in html
    data = html.split('<script type="application/json" id="agreement-data">')[1].split("</script>")[0]
    assert json.loads(data)["rows"][0]["key"] == HOSTILE


def test_write_outputs_writes_four_files_and_refuses_a_nan(tmp_path):
    written = write_outputs(_table(), tmp_path / "out")
    assert {kind: path.name for kind, path in written.items()} == {
        "json": "agreement.json",
        "csv": "agreement.csv",
        "markdown": "agreement.md",
        "page": "agreement.html",
    }
    assert json.loads(written["json"].read_text())["logs"] == ["x.eval", "y.eval", "p.eval"]
    assert written["markdown"].read_text() == markdown(_table())
    broken = build_table([run("n.eval", tau("bleu_2", math.nan))])
    with pytest.raises(ValueError, match=r"not a number at agreement\.rows\[0\]\.cells\.rate / score\.statistic"):
        write_outputs(broken, tmp_path / "nan")
    assert not (tmp_path / "nan").exists()


def test_not_numbers_finds_each_nan_and_infinity():
    assert not_numbers({"a": [1.0, math.inf, {"b": math.nan}], "c": "nan", "d": None}) == [
        "agreement.a[1]",
        "agreement.a[2].b",
    ]


def test_protocol_labels_name_the_experts_side():
    labels = {name: protocol.label for name, protocol in PROTOCOL_BY_NAME.items()}
    assert labels == {
        "score": "tau-b vs the expert score",
        "significant_errors": "tau-b vs mean clinically significant errors",
        "total_errors": "tau-b vs mean total errors",
        "preference": "pairwise preference accuracy",
    }
    assert RowId("k", "j").label == "k (judge j)"
