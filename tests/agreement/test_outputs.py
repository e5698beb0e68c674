"""The table's four files: JSON, CSV, Markdown and the page, each escaping what came from the logs."""

from __future__ import annotations

import csv
import json
import math
import re

import pytest

from radiology_tasks.agreement.model import (
    PROTOCOL_BY_NAME,
    Cell,
    Dataset,
    PairedTest,
    PreferenceFigures,
    Published,
    RowId,
    Source,
    TauFigures,
)
from radiology_tasks.agreement.outputs import (
    CELL_KEY,
    CSV_COLUMNS,
    Footnotes,
    as_json,
    csv_rows,
    figures_text,
    markdown,
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
        run("p.eval", preference("bleu_2", 0.75, right=6, wrong=2, ties=1), keys=["bleu_2"], dataset=RADPREF),
    ]

    def tester(group, first, second):
        return PairedTest(group.id, first[0], second[0], 0.125, 0.04, 8, 100, 97)

    return build_table(runs, published, paired=tester, resamples=100, seed=1)


def test_figures_text_per_kind():
    assert figures_text(Cell(TauFigures(0.41, 0.2, 0.6, 8, 1, 0), None)) == "0.410 [0.200, 0.600], n 8, unscored 1"
    assert figures_text(Cell(TauFigures(0.41, None, None, 8, 0, 2), None)) == "0.410, n 8, unscored 0, no expert 2"
    assert figures_text(Cell(PreferenceFigures(0.75, 9, 6, 2, 1), None)) == "0.750 (right 6, wrong 2, ties 1; pairs 9)"
    assert figures_text(Cell(PreferenceFigures(None, None, None, None, None), None)) == (
        "n/a (right n/a, wrong n/a, ties n/a; pairs n/a)"
    )
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
    assert bleu["cells"]["radpref / preference"]["pairs"] == 9
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
            "first": {"key": "bleu_2", "judge": None, "prompt": None, "label": "bleu_2"},
            "second": {"key": "chrf", "judge": None, "prompt": None, "label": "chrf"},
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
    assert (first["pairs"], first["right"], first["wrong"], first["ties"], first["judge"]) == ("", "", "", "", "")
    assert (first["log"], first["same_in"], first["differs_in"], first["reason"]) == ("x.eval", "", "y.eval", "")
    assert first["published"] == '0.4474 (GPT-4.1 mini): "A paper", Table 2: tau vs the score.'
    preference_row = rows[1]
    assert [preference_row[k] for k in ("value", "pairs", "right", "wrong", "ties")] == [0.75, 9, 6, 2, 1]
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
        "| bleu_2 | 0.410 [0.200, 0.600], n 8, unscored 1 [1] | 0.4474 (GPT-4.1 mini) [P1] "
        "| 0.750 (right 6, wrong 2, ties 1; pairs 9) |" in lines
    )
    assert "| rouge_l | n/a, n 12, unscored 0 [2] |  | n/a [3] |" in lines
    assert "[1] y.eval give(s) different figures for this cell; the newest run, x.eval, is shown" in lines
    assert "[2] the experts gave all 8 samples the same value" in lines
    assert "[3] no run on radpref scored rouge_l" in lines
    assert '[P1] "A paper", Table 2: tau vs the score.' in lines
    assert "| bleu_2 | rouge_l | 0.125 | 0.040 | 8 | 97 of 100 |" not in lines
    assert "- x.eval" in lines and "- p.eval" in lines


def test_markdown_lists_paired_tests_with_their_reasons():
    runs = [run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.3), *tau("rouge_l", 0.2)])]
    answers = iter([(0.125, 0.04, None), (None, None, "only 1 sample(s) have both metrics and the experts' value")])

    def tester(group, first, second):
        difference, p, reason = next(answers, (0.5, 0.5, None))
        return PairedTest(group.id, first[0], second[0], difference, p, 12, 100, 0 if reason else 97, reason)

    lines = markdown(build_table(runs, paired=tester)).splitlines()
    assert "### rate: tau-b vs the expert score" in lines
    assert "| bleu_2 | chrf | 0.125 | 0.040 | 12 | 97 of 100 |" in lines
    assert (
        "| bleu_2 | rouge_l | n/a: only 1 sample(s) have both metrics and the experts' value "
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
    assert '&lt;img src=x onerror="window.__pwned=1"&gt;=cmd\\|x' in text
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


def test_protocol_labels_name_the_experts_side():
    labels = {name: protocol.label for name, protocol in PROTOCOL_BY_NAME.items()}
    assert labels == {
        "score": "tau-b vs the expert score",
        "significant_errors": "tau-b vs mean clinically significant errors",
        "total_errors": "tau-b vs mean total errors",
        "preference": "pairwise preference accuracy",
    }
    assert RowId("k", "j").label == "k (judge j)"


def _small():
    """Two metrics on one dataset, a note, two published figures (one without a judge) and their paired test."""
    source = Source("A paper", "Table 2", "-", "ROUGE", "tau vs the score")
    entries = [
        _published("rouge_l", "rate-eval", "score", "0.2"),
        Published("rouge_l", "rate-eval", "score", "kendall_tau", 0.3, "0.3", None, source, "Read from a figure."),
    ]
    runs = [
        run("a.eval", [*tau("bleu_2", 0.4, n=5), *tau("rouge_l", 0.2, n=5)], created="2026-02-01T00:00:00+00:00"),
        run("b.eval", tau("bleu_2", 0.1, n=5)),
        run("c.eval", tau("bleu_2", 0.0, n=5)),
        run("d.eval", tau("bleu_2", 0.4, n=5)),
        run("e.eval", tau("bleu_2", 0.4, n=5)),
    ]

    def tester(group, first, second):
        return PairedTest(group.id, first[0], second[0], 0.2, 0.5, 5, 10, 9)

    return build_table(runs, entries, paired=tester, resamples=10, seed=2)


SMALL_MARKDOWN = """\
# Agreement with radiologists

{key}

| metric | rate: tau-b vs the expert score | published |
|---|---|---|
| bleu_2 | 0.400 [0.300, 0.500], n 5, unscored 0 [1] |  |
| rouge_l | 0.200 [0.100, 0.300], n 5, unscored 0 | 0.2 (GPT-4.1 mini) [P1]; 0.3 [P2] |

[1] b.eval, c.eval give(s) different figures for this cell; the newest run, a.eval, is shown
[P1] "A paper", Table 2: tau vs the score.
[P2] "A paper", Table 2: tau vs the score. Read from a figure.

## Paired tests of the tau difference

### rate: tau-b vs the expert score

| first | second | tau(first) - tau(second) | p (paired bootstrap) | n | valid resamples |
|---|---|---|---|---|---|
| bleu_2 | rouge_l | 0.200 | 0.500 | 5 | 9 of 10 |

## Logs

- a.eval
- b.eval
- c.eval
- d.eval
- e.eval
"""


def test_the_markdown_of_a_small_table_line_by_line():
    assert markdown(_small()) == SMALL_MARKDOWN.format(key=CELL_KEY)


def test_the_csv_joins_several_runs_and_published_figures_and_leaves_unknown_text_empty():
    rows = csv_rows(_small())
    bleu, rouge = rows
    assert (bleu["same_in"], bleu["differs_in"]) == ("d.eval; e.eval", "b.eval; c.eval")
    assert rouge["published"] == (
        '0.2 (GPT-4.1 mini): "A paper", Table 2: tau vs the score.; 0.3: "A paper", Table 2: tau vs the score. '
        "Read from a figure."
    )
    bare = Dataset("d", None, None, None, None, "ids", 3)
    empty = csv_rows(build_table([run("x.eval", tau("bleu_2", 0.1)), run("y.eval", tau("chrf", 0.2), dataset=bare)]))
    chrf_on_rate = next(r for r in empty if r["metric"] == "chrf" and r["dataset"] == "rate")
    assert (chrf_on_rate["log"], chrf_on_rate["value"]) == ("", "")
    bleu_on_bare = next(r for r in empty if r["metric"] == "bleu_2" and r["dataset"] == "d")
    assert (bleu_on_bare["layout"], bleu_on_bare["data_sha256"]) == ("", "")


def test_the_csv_reason_of_a_tau_without_interval_is_the_intervals():
    figures = [figure("vert_kendall_tau", 0.3), figure("vert_kendall_tau_ci_low", None, "resamples were constant")]
    (row,) = csv_rows(build_table([run("v.eval", figures, keys=["vert"])]))
    assert row["reason"] == "resamples were constant"


def test_the_json_names_group_labels_and_preference_counts():
    figures = preference("bleu_2", 0.6, right=3, wrong=2, ties=1)
    data = as_json(build_table([run("p.eval", figures, keys=["bleu_2"], dataset=RADPREF)]))
    (group,) = data["groups"]
    assert (group["label"], group["protocol_label"]) == ("radpref", "pairwise preference accuracy")
    cell = data["rows"][0]["cells"]["radpref / preference"]
    assert {k: cell[k] for k in ("statistic", "pairs", "right", "wrong", "ties")} == {
        "statistic": 0.6,
        "pairs": 6,
        "right": 3,
        "wrong": 2,
        "ties": 1,
    }


def test_the_page_text_key_title_empty_cells_and_untested_pairs():
    html = page(_small())
    assert html.startswith("<!DOCTYPE html>") and html.endswith("</html>\n")
    assert "<title>Agreement with radiologists</title>" in html and "<h1>Agreement with radiologists</h1>" in html
    assert f'<p class="meta">{CELL_KEY.replace(chr(39), "&#39;")}</p>' in html
    runs = [run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.1)]), run("x.eval", tau("chrf", 0.2), dataset=REXVAL)]
    gapped = build_table(runs)
    text = page(gapped)
    assert text.count('class="num empty"') == 1 and text.count('class="num"') == 3
    assert page(gapped, title="Mine").count("Mine") == 2


def test_the_page_shows_why_a_paired_test_could_not_be_made():
    runs = [run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.3)])]
    why = "only 1 sample(s) have both metrics and the experts' value"

    def tester(group, first, second):
        return PairedTest(group.id, first[0], second[0], None, None, 1, 10, 0, why)

    assert f"n/a: {why.replace(chr(39), '&#39;')}" in page(build_table(runs, paired=tester))


def test_the_files_are_written_into_new_folders_as_utf8_with_indented_json(tmp_path):
    table = _small()
    written = write_outputs(table, tmp_path / "a" / "b")
    assert written["json"].read_bytes() == (json.dumps(as_json(table), indent=2) + "\n").encode()
    assert written["markdown"].read_bytes() == markdown(table).encode()
    assert written["page"].read_bytes() == page(table).encode()
    assert written["csv"].read_bytes().startswith(b"metric,judge,prompt,dataset,layout,data_sha256,samples,protocol,")
    assert b"\r\nbleu_2,,,rate,rate-eval,aaaa1111,12,score,kendall_tau,0.4," in written["csv"].read_bytes()


def test_every_nan_is_named_in_the_refusal(tmp_path):
    broken = build_table([run("n.eval", [*tau("bleu_2", math.nan), *tau("chrf", math.inf)])])
    with pytest.raises(ValueError) as raised:
        write_outputs(broken, tmp_path)
    assert str(raised.value).startswith(
        "not a number at agreement.rows[0].cells.rate / score.statistic, agreement.rows[0].cells.rate / score.ci_low"
    )


def test_markdown_lists_the_tests_of_every_group_that_has_some():
    runs = [
        run("x.eval", tau("bleu_2", 0.1, infix="_vs_errors"), dataset=REXVAL),
        run("a.eval", [*tau("bleu_2", 0.4), *tau("chrf", 0.3)]),
        run("p.eval", [*tau("bleu_2", 0.2), *tau("chrf", 0.1)], dataset=RADPREF),
    ]

    def tester(group, first, second):
        return PairedTest(group.id, first[0], second[0], 0.1, 0.5, 12, 10, 10)

    lines = markdown(build_table(runs, paired=tester)).splitlines()
    headings = [line for line in lines if line.startswith("### ")]
    assert headings == ["### rate: tau-b vs the expert score", "### radpref: tau-b vs the expert score"]
    assert lines.count("| bleu_2 | chrf | 0.100 | 0.500 | 12 | 10 of 10 |") == 2
