"""On ReXVal as downloaded, every lexical metric of `baselines` and `metric_suite` is compared with the radiologists'
mean clinically significant errors and their mean total errors: Kendall tau-b equal to scipy's on the exact means.

The copy below is written so that exactness matters: candidates whose raters split the same total differently
(over categories, or between significant and insignificant) have equal mean totals, which float sums of the
category means would tell apart.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from scipy import stats

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.suite.tasks import metric_suite
from tests.real_layouts import REXVAL_CANDIDATES, rexval_copy
from tests.report_values import report_values

Key = tuple[int, str, int, int, bool]


def _errors() -> dict[Key, int]:
    errors: dict[Key, int] = {}
    # Study 1, bertscore: 4 raters x 1 in (a) + 6 x 1 in (b), significant: 10 / 6 significant, nothing else.
    errors |= {(1, "bertscore", 1, rater, True): 1 for rater in range(4)}
    errors |= {(1, "bertscore", 2, rater, True): 1 for rater in range(6)}
    # Study 1, s_emb: 5 + 5 significant (the same 10 / 6), and 2 insignificant (a total of 12 / 6).
    errors |= {(1, "s_emb", 1, rater, True): 1 for rater in range(5)}
    errors |= {(1, "s_emb", 2, rater, True): 1 for rater in range(5)}
    errors |= {(1, "s_emb", 4, rater, False): 1 for rater in range(2)}
    # Study 1, bleu: 12 significant over six raters; radgraph: 6 significant and 6 insignificant (total 12 / 6,
    # tied in total with s_emb and bleu).
    errors |= {(1, "bleu", 1, rater, True): 2 for rater in range(6)}
    errors |= {(1, "radgraph", 3, rater, True): 1 for rater in range(6)}
    errors |= {(1, "radgraph", 5, rater, False): 1 for rater in range(6)}
    # Study 0: a few errors of each kind.
    errors |= {(0, "s_emb", 3, 2, True): 1, (0, "bleu", 6, 0, False): 3, (0, "radgraph", 2, 4, True): 1}
    return errors


def _mean_totals(errors: dict[Key, int], *, significant_only: bool) -> dict[str, Fraction]:
    """Each pair's mean over six raters of its errors, straight from the grid (ids `<study>-<candidate>`)."""
    totals = {f"{study}-{candidate}": Fraction(0) for study in (0, 1) for candidate in REXVAL_CANDIDATES}
    for (study, candidate, _, _, significant), count in errors.items():
        if significant or not significant_only:
            totals[f"{study}-{candidate}"] += Fraction(count, 6)
    return totals


@pytest.fixture(scope="module")
def rexval(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return rexval_copy(tmp_path_factory.mktemp("rexval") / "ReXVal", _errors())


def _check_lexical_agreement(log_dir: Path, task: object, keys: list[str]) -> None:
    (log,) = inspect_eval(task, model="none", display="none", log_dir=str(log_dir))  # type: ignore[arg-type]
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 8
    figures = report_values(log)
    ids = sorted(str(sample.id) for sample in log.samples)
    by_id = {str(sample.id): sample for sample in log.samples}
    for truth, prefix in ((True, "_vs_errors"), (False, "_vs_total_errors")):
        means = _mean_totals(_errors(), significant_only=truth)
        assert len({means[i] for i in ids}) < len(ids), "the copy must hold tied means"
        for key in keys:
            values = [next(iter(by_id[i].scores.values())).value[key] for i in ids]  # type: ignore[index]
            # Fewer errors is better: a metric that agrees has a positive tau against the negated means.
            expected = stats.kendalltau(values, [-means[i] for i in ids], variant="b").statistic
            name = f"{key}{prefix}_kendall_tau"
            assert figures[name] == pytest.approx(expected, abs=1e-12), name
            assert figures[f"{name}_ci_low"] <= figures[name] <= figures[f"{name}_ci_high"], name
            assert figures[f"{key}{prefix}_n_pairs"] == 8
            assert figures[f"{key}{prefix}_sign"] == 1.0


def test_baselines_on_rexval_give_tau_against_significant_and_total_errors(rexval: Path, tmp_path: Path) -> None:
    keys = ["bleu_2", "chrf", "rouge_l"]
    _check_lexical_agreement(tmp_path, baselines(baselines=",".join(keys), data=str(rexval)), keys)


def test_metric_suite_on_rexval_gives_tau_against_significant_and_total_errors(rexval: Path, tmp_path: Path) -> None:
    keys = ["bleu_1", "rouge_l"]
    _check_lexical_agreement(tmp_path, metric_suite(metrics=",".join(keys), data=str(rexval)), keys)
