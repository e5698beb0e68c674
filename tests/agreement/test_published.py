"""The published figures the package ships: each names its source, and speaks the project's vocabulary."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from radiology_tasks.agreement.model import PROTOCOL_BY_NAME
from radiology_tasks.agreement.published import expand_block, parse_published, published_figures
from radiology_tasks.agreement.runs import judged_keys
from radiology_tasks.core.layouts import all_layouts
from radiology_tasks.scorers.lexical import LEXICAL_KEYS
from radiology_tasks.scorers.suite.radeval_adapter import RADEVAL_METRICS, radeval_keys

VERT_PAPER = "VERT: Reliable LLM Judges for Radiology Report Evaluation"


def _metric_vocabulary() -> set[str]:
    return {*LEXICAL_KEYS, *radeval_keys(RADEVAL_METRICS), *judged_keys()}


def test_every_published_figure_names_its_source_and_what_it_correlates():
    entries = published_figures()
    assert len(entries) == 48
    for entry in entries:
        source = entry.source
        assert all(text.strip() for text in (source.title, source.table, source.row, source.column, source.variant))
        assert source.where == f"{source.table}, row {source.row}, column {source.column}"
        assert entry.notes.strip(), entry


def test_every_published_metric_dataset_and_protocol_exists_in_the_project():
    metrics, layouts = _metric_vocabulary(), set(all_layouts())
    for entry in published_figures():
        assert entry.metric in metrics, entry.metric
        assert entry.dataset in layouts, entry.dataset
        assert entry.protocol in PROTOCOL_BY_NAME, entry.protocol
        assert entry.statistic == PROTOCOL_BY_NAME[entry.protocol].statistic


def test_every_value_is_the_number_printed():
    for entry in published_figures():
        assert entry.value == float(entry.printed.rstrip("†"))
        assert entry.printed.lstrip("0").startswith(".")


def test_the_vert_paper_figures_are_those_of_its_tables():
    by_place = {(e.source.table, e.source.row, e.source.column): e for e in published_figures()}
    rate = by_place[('Table 2, block "RaTE-Eval — Expert Scores (0–5)"', "GPT-4.1 mini", "VERT")]
    assert (rate.metric, rate.dataset, rate.protocol, rate.printed) == ("vert", "rate-eval", "score", "0.4474")
    assert rate.source.title == VERT_PAPER and rate.judge == "GPT-4.1 mini"
    radeval = by_place[('Table 2, block "RadEval — Error Annotations"', "Gemini 3 Flash (low)", "GREEN-EC")]
    assert (radeval.metric, radeval.dataset, radeval.protocol) == ("green_ec", "radeval-expert", "significant_errors")
    assert (radeval.printed, radeval.value) == ("0.0206†", 0.0206)
    nano = by_place[("Table 3", "GPT-4.1 nano", "VERT")]
    assert (nano.metric, nano.dataset, nano.printed) == ("vert", "rate-eval", "0.5040")
    assert "does not name its dataset" in nano.notes


def _document() -> dict[str, Any]:
    return {
        "papers": {"p": {"title": "A paper"}},
        "tables": [
            {
                "paper": "p",
                "where": "Table 1",
                "dataset": "rate-eval",
                "protocol": "score",
                "statistic": "kendall_tau",
                "variant": "tau vs the score",
                "notes": "none",
                "columns": {"BLEU": "bleu_2", "ROUGE": "rouge_l"},
                "rows": {"-": ["0.10", "0.20*"]},
            }
        ],
    }


def test_a_block_expands_into_one_entry_per_number_in_column_order():
    first, second = parse_published(_document())
    assert (first.metric, first.value, first.printed, first.judge) == ("bleu_2", 0.10, "0.10", "-")
    assert (second.metric, second.value, second.printed) == ("rouge_l", 0.20, "0.20*")
    assert second.source.where == "Table 1, row -, column ROUGE"
    assert (second.source.title, second.source.variant, second.notes) == ("A paper", "tau vs the score", "none")
    assert (second.dataset, second.protocol, second.statistic) == ("rate-eval", "score", "kendall_tau")


def test_notes_may_be_left_out():
    document = _document()
    del document["tables"][0]["notes"]
    assert parse_published(document)[0].notes == ""


def _broken(change) -> dict[str, Any]:
    document = copy.deepcopy(_document())
    change(document)
    return document


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["tables"][0].pop("variant"), "block 1: missing variant"),
        (lambda d: [d["tables"][0].pop(k) for k in ("where", "rows")], "block 1: missing where, rows"),
        (lambda d: d["tables"][0].pop("paper"), "block 1: missing paper"),
        (lambda d: d["tables"][0].update(paper="q"), "paper 'q' is not listed under 'papers'"),
        (lambda d: d["papers"]["p"].update(title=" "), "paper p: 'title' must be a non-empty text"),
        (lambda d: d["tables"][0].update(where=""), "block 1: 'where' must be a non-empty text"),
        (lambda d: d["tables"][0].update(dataset=3), "block 1: 'dataset' must be a non-empty text"),
        (
            lambda d: d["tables"][0].update(protocol="errors"),
            "unknown protocol 'errors' (known: score, significant_errors, total_errors, preference)",
        ),
        (lambda d: d["tables"][0].update(statistic="spearman"), "protocol score shows kendall_tau, not 'spearman'"),
        (lambda d: d["tables"][0]["rows"].update({"-": ["0.1"]}), "row '-' must give 2 figures, one per column"),
        (lambda d: d["tables"][0]["rows"].update({"-": "0.1"}), "row '-' must give 2 figures, one per column"),
        (lambda d: d["tables"][0]["rows"].update({"-": [0.1, "0.2"]}), "write the figure as printed, in quotes"),
        (lambda d: d["tables"][0]["rows"].update({"-": ["high", "0.2"]}), "'high' is not a number as printed"),
        (lambda d: d["tables"][0].update(columns={}), "'columns' and 'rows' must map"),
        (lambda d: d["tables"][0].update(rows={}), "'columns' and 'rows' must map"),
        (lambda d: d["tables"][0].update(columns=["bleu_2"]), "'columns' and 'rows' must map"),
        (lambda d: d["tables"][0].update(rows=["0.1"]), "'columns' and 'rows' must map"),
        (lambda d: d.update(tables=[]), "needs 'papers' (by name) and a non-empty list of 'tables'"),
        (lambda d: d.update(tables={"a": 1}), "needs 'papers'"),
        (lambda d: d.pop("papers"), "needs 'papers'"),
        (lambda d: d.update(tables=["text"]), "block 1: a block must map field names to values"),
        (lambda d: d["papers"].update(p="A paper"), "paper 'p' is not listed under 'papers'"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_block(change, message):
    with pytest.raises(ValueError, match="published.yaml") as raised:
        parse_published(_broken(change))
    assert message in str(raised.value)


def test_the_place_of_a_bad_number_is_named():
    document = _broken(lambda d: d["tables"][0]["rows"].update({"judge x": ["0.1", "n/a"]}))
    with pytest.raises(ValueError, match=r"block 1: Table 1, row judge x, column ROUGE: 'n/a'"):
        expand_block(document["tables"][0], document["papers"], "published.yaml: block 1")
