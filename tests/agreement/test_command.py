"""`radiology-tasks agreement` on real logs: lexical metrics and scripted judges on a RaTE-Eval copy."""

from __future__ import annotations

import csv
import json

import pytest
from inspect_ai.log import EvalLog, read_eval_log
from scipy import stats

from radiology_tasks.agreement.model import RowId
from radiology_tasks.agreement.published import published_figures
from radiology_tasks.agreement.runs import read_runs
from radiology_tasks.agreement.table import build_table
from radiology_tasks.cli import main
from tests.agreement.logs import JUDGE

pytestmark = pytest.mark.slow

LEXICAL_KEYS = ["bleu_1", "bleu_2", "bleu_3", "bleu_4", "bleu_rexrank", "chrf", "rouge_l"]


def _scipy_tau(log: EvalLog, key: str, sign: float = 1.0) -> tuple[float, int]:
    """Kendall's tau-b of `key` against the expert score over the log's samples, straight from scipy."""
    samples = read_eval_log(log.location).samples or []
    pairs = []
    for sample in samples:
        (score,) = (sample.scores or {}).values()
        pairs.append((sign * score.value[key], score.metadata["expert_score"]))  # type: ignore[index]
    return float(stats.kendalltau([p[0] for p in pairs], [p[1] for p in pairs]).statistic), len(pairs)


def test_the_table_holds_every_metric_with_scipys_tau_and_the_published_figures(rate_logs):
    table = build_table(read_runs([log.location for log in rate_logs]), published_figures())
    # RaTE-Eval rates several candidates of one reference: preferences too.
    assert [(g.label, g.protocol.name, g.dataset.layout) for g in table.groups] == [
        ("RaTE-Eval", "score", "rate-eval"),
        ("RaTE-Eval", "preference", "rate-eval"),
    ]
    group = table.groups[0]
    # The VERT run scores GREEN's keys from its own answers too: those are rows of their own, told apart by the
    # prompt, not GREEN's (whose own run gives GREEN's rows).
    by_vert = [RowId("vert", JUDGE), *(RowId(key, JUDGE, "vert") for key in ("green", "green_ec", "green_f1"))]
    own = [RowId(key, JUDGE) for key in ("green", "green_ec", "green_f1")]
    assert table.rows == [*(RowId(key) for key in LEXICAL_KEYS), *by_vert, *own]
    assert by_vert[1].label == f"green (vert prompt, judge {JUDGE})" and own[0].label == f"green (judge {JUDGE})"
    suite, vert_log, green_log = rate_logs
    expected = {RowId(key): (suite, key, 1.0) for key in LEXICAL_KEYS}
    signs = {"green": 1.0, "green_ec": -1.0, "green_f1": 1.0}
    expected |= {by_vert[0]: (vert_log, "vert", 1.0)}
    expected |= {row: (vert_log, row.key, signs[row.key]) for row in by_vert[1:]}
    expected |= {row: (green_log, row.key, signs[row.key]) for row in own}
    for row, (log, key, sign) in expected.items():
        cell = table.cell(row, group)
        tau, n = _scipy_tau(log, key, sign)
        assert cell.figures.tau == pytest.approx(tau, abs=1e-12), row
        assert (cell.figures.n, cell.figures.n_unscored, cell.figures.n_no_expert) == (n, 0, 0)
        assert cell.figures.low <= cell.figures.tau <= cell.figures.high
        assert cell.log == log.location and cell.reason is None
        assert cell.differing == (), row
    assert len(table.cell(by_vert[0], group).published) == 9
    assert {p.printed for p in table.cell(own[2], group).published} >= {"0.3369", "0.4641", "0.3782"}
    # The papers' GREEN figures are of GREEN's prompt: none beside the GREEN keys of a VERT run.
    assert all(table.cell(row, group).published == () for row in by_vert[1:])
    assert table.cell(RowId("chrf"), group).published == ()


def test_the_command_writes_four_files_and_prints_the_markdown(rate_logs, tmp_path, capsys):
    out = tmp_path / "table"
    assert main(["agreement", *(log.location for log in rate_logs), "--out", str(out), "--resamples", "50"]) == 0
    printed = capsys.readouterr().out
    assert printed == (out / "agreement.md").read_text()
    data = json.loads((out / "agreement.json").read_text())
    assert [row["label"] for row in data["rows"]][:2] == ["bleu_1", "bleu_2"]
    with (out / "agreement.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(data["rows"]) * len(data["groups"])
    vert_row = next(r for r in rows if r["metric"] == "vert")
    assert float(vert_row["value"]) == data["rows"][7]["cells"]["RaTE-Eval / score"]["statistic"]
    assert '<table class="agreement">' in (out / "agreement.html").read_text()


def test_a_log_given_twice_or_without_experts_is_refused_naming_it(rate_logs, tmp_path, capsys):
    suite = rate_logs[0].location
    assert main(["agreement", suite, suite, "--out", str(tmp_path / "a")]) == 2
    assert f"{suite}: the same log is given twice" in capsys.readouterr().err
    assert not (tmp_path / "a").exists()


def test_the_paired_tests_can_be_left_out(rate_logs, tmp_path, capsys):
    out = tmp_path / "table"
    assert main(["agreement", rate_logs[0].location, "--out", str(out), "--no-paired-tests"]) == 0
    data = json.loads((out / "agreement.json").read_text())
    assert data["tests"] == [] and len(data["rows"]) == 7
    assert "## Paired tests" not in capsys.readouterr().out
