"""The table on ReXVal-shaped and RadPref-shaped runs: at least eight metrics each, every protocol the data allows,
each cell equal to scipy's tau (or the preference counts) on the exact inputs of the logs."""

from __future__ import annotations

from fractions import Fraction

import pytest
from inspect_ai.log import EvalLog, read_eval_log
from scipy import stats

from radiology_tasks.agreement.model import PreferenceFigures, RowId
from radiology_tasks.agreement.published import published_figures
from radiology_tasks.agreement.runs import read_runs
from radiology_tasks.agreement.table import build_table
from tests.agreement.logs import JUDGE, REXVAL_ERRORS
from tests.real_layouts import RADPREF_RATINGS, RADPREF_STUDIES

pytestmark = pytest.mark.slow

LEXICAL_ROWS = [RowId(key) for key in ("bleu_1", "bleu_2", "bleu_3", "bleu_4", "bleu_rexrank", "chrf", "rouge_l")]
LOWER_IS_BETTER = {"green_ec"}


def _values(log: EvalLog, key: str) -> dict[str, float]:
    """Each sample's `key`, turned so that higher is better, by sample id."""
    sign = -1.0 if key in LOWER_IS_BETTER else 1.0
    values = {}
    for sample in read_eval_log(log.location).samples or []:
        (score,) = (sample.scores or {}).values()
        values[str(sample.id)] = sign * score.value[key]  # type: ignore[index]
    return values


def _mean_errors(significant_only: bool) -> dict[str, Fraction]:
    """Each ReXVal candidate's errors, summed over categories and averaged over the six raters, exactly."""
    totals = {f"{study}-{c}": Fraction(0) for study in (0, 1) for c in ("radgraph", "bertscore", "s_emb", "bleu")}
    for (study, candidate, _, _, significant), count in REXVAL_ERRORS.items():
        if significant or not significant_only:
            totals[f"{study}-{candidate}"] += Fraction(count, 6)
    return totals


def _scipy_tau(metric: dict[str, float], truth: dict[str, float]) -> float:
    ids = sorted(metric)
    return float(stats.kendalltau([metric[i] for i in ids], [truth[i] for i in ids]).statistic)


def test_rexval_tables_every_metric_against_both_error_counts(rexval_logs):
    suite, green_log = rexval_logs
    table = build_table(read_runs([log.location for log in rexval_logs]), published_figures())
    assert [(g.label, g.protocol.name) for g in table.groups] == [
        ("ReXVal", "significant_errors"),
        ("ReXVal", "total_errors"),
    ]
    judged = [RowId(key, JUDGE) for key in ("green", "green_ec", "green_f1")]
    assert table.rows == [*LEXICAL_ROWS, *judged]
    for group in table.groups:
        # Fewer errors is better: the experts' side is the negated mean total.
        errors = _mean_errors(group.protocol.name == "significant_errors")
        truth = {sample: -float(total) for sample, total in errors.items()}
        for row in table.rows:
            cell = table.cell(row, group)
            log = suite if row.judge is None else green_log
            assert cell.reason is None and cell.log == log.location, (row, group.id, cell.reason)
            assert cell.figures.tau == pytest.approx(_scipy_tau(_values(log, row.key), truth), abs=1e-12), row
            assert (cell.figures.n, cell.figures.n_unscored, cell.figures.n_no_expert) == (8, 0, 0)
            assert cell.published == ()


def _mean_rating(sample: str) -> float:
    study, candidate = sample.rsplit("-", 1)
    ratings = RADPREF_RATINGS[(study, candidate)]
    return sum(ratings.values()) / len(ratings)


def _preferences(metric: dict[str, float]) -> tuple[int, int, int, int]:
    """Pairs, right, wrong and tied pairs of the metric against the radiologists' mean ratings, study by study."""
    pairs = right = wrong = ties = 0
    for study in RADPREF_STUDIES:
        first, second = f"{study}-C1", f"{study}-C2"
        if _mean_rating(first) == _mean_rating(second):
            continue
        pairs += 1
        preferred_first = _mean_rating(first) > _mean_rating(second)
        if metric[first] == metric[second]:
            ties += 1
        elif (metric[first] > metric[second]) == preferred_first:
            right += 1
        else:
            wrong += 1
    return pairs, right, wrong, ties


def test_radpref_tables_every_metric_against_the_mean_rating_and_the_preferences(radpref_logs):
    suite, vert_log = radpref_logs
    table = build_table(read_runs([log.location for log in radpref_logs]), published_figures())
    assert [(g.label, g.protocol.name, g.dataset.layout) for g in table.groups] == [
        ("RadPref", "score", "radpref"),
        ("RadPref", "preference", "radpref"),
    ]
    # A VERT run: GREEN's keys come from the VERT prompt's answers.
    judged = [RowId("vert", JUDGE), *(RowId(key, JUDGE, "vert") for key in ("green", "green_ec", "green_f1"))]
    assert table.rows == [*LEXICAL_ROWS, *judged]
    ratings = {f"{study}-{c}": _mean_rating(f"{study}-{c}") for study in RADPREF_STUDIES for c in ("C1", "C2")}
    score, preference = table.groups
    for row in table.rows:
        log = suite if row.judge is None else vert_log
        values = _values(log, row.key)
        tau_cell = table.cell(row, score)
        assert tau_cell.figures.tau == pytest.approx(_scipy_tau(values, ratings), abs=1e-12), row
        assert tau_cell.figures.n == 8 and tau_cell.log == log.location
        pairs, right, wrong, ties = _preferences(values)
        accuracy = right / (right + wrong) if right + wrong else None
        assert table.cell(row, preference).figures == PreferenceFigures(accuracy, pairs, right, wrong, ties), row
        assert pairs == 3
