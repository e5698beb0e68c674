"""The lexical metrics on the bundled demo cases, against outcomes worked out by hand.

ROUGE-L here is rouge-score's F-measure of the longest common subsequence of lower-cased word tokens:
F = 2PR / (P + R) with P = LCS / candidate tokens and R = LCS / reference tokens. Worked out per case:

- ff-1: C1 is the reference (1.0); C2 adds three words (LCS 4 of 7, F = 8/11): right.
- ff-3: C1 shares "left lower lobe" (3 of 9 and 3 of 4, F = 0.4615); C2 repeats the reference inside 10 tokens
  (F = 0.5714): wrong, the false findings score higher.
- mf-2: dropping the pneumothorax (F = 0.6) scores below dropping the nodule (F = 0.7273): wrong.
- mf-3: both come to 2/3 (5 of 9 and 5 of 6, against 3 of 3 and 3 of 6): a tie.
- loc-3: "Nodule in the left lower lobe" keeps 5 of 6 words in order (0.8333), "Right lower lobe nodule" 3 of 4
  and 3 of 6 (0.6): wrong.
- ms-1: 9 mm and 25 mm differ from 8 mm in one token at the same place (6/7 each): a tie.
- sv-2: "Pulmonary edema, severe" and "Mild pulmonary edema" both keep 2 of 3 words in order (2/3): a tie.
- ct-3: "Evidence of pneumothorax" (3 of 3 and 3 of 4, 0.8571) beats "Pneumothorax is not seen" (0.25): wrong.
- pc-1, pc-2: the same text twice: ties (ROUGE-L does not read patient context).
- pp-1: the near copy with the wrong finding (0.8) beats the paraphrase (0.4): wrong; pp-2 (1.0 against 0.2857) and
  pp-3 (0.4 against 0.8571) expect equal scores: wrong.
- Every other case: the expected order, each by more than 0.01.

So per category: false findings 2/3, missing findings 1/3 (one tie), location 2/3, measurement 2/3 (one tie),
severity 2/3 (one tie), certainty 2/3, patient context 0 (two ties), paraphrase robustness 0; overall 11 of 23
right, 5 ties, none unscored.
"""

from __future__ import annotations

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.core.run_report import report_of
from radiology_tasks.ranking_tests.tasks import ranking_tests

ROUGE_L_OUTCOMES = {
    "ff-1": "right",
    "ff-2": "right",
    "ff-3": "wrong",
    "mf-1": "right",
    "mf-2": "wrong",
    "mf-3": "tie",
    "loc-1": "right",
    "loc-2": "right",
    "loc-3": "wrong",
    "ms-1": "tie",
    "ms-2": "right",
    "ms-3": "right",
    "sv-1": "right",
    "sv-2": "tie",
    "sv-3": "right",
    "ct-1": "right",
    "ct-2": "right",
    "ct-3": "wrong",
    "pc-1": "tie",
    "pc-2": "tie",
    "pp-1": "wrong",
    "pp-2": "wrong",
    "pp-3": "wrong",
}


def _run(tmp_path, **args: object) -> EvalLog:
    (log,) = inspect_eval(ranking_tests(**args), model="none", display="none", log_dir=str(tmp_path))
    assert log.status == "success", log.error
    return log


def _metrics(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {name: m.value for score in log.results.scores for name, m in score.metrics.items()}


def _report(log: EvalLog) -> dict[str, float | None]:
    """Every figure `radiology-tasks report` computes from the log, its summary recomputed to match the log's."""
    report = report_of(log)
    assert report.headline_matches
    return {figure.name: figure.value for figure in [*report.headline, *report.secondary]}


def _outcomes(log: EvalLog) -> dict[str, str | None]:
    assert log.samples is not None
    return {str(s.id): s.scores["ranking_scorer"].metadata["outcome"] for s in log.samples}  # type: ignore[index]


@pytest.mark.slow
def test_rouge_l_on_the_demo_matches_the_hand_worked_outcomes(tmp_path):
    log = _run(tmp_path, metric="rouge_l")
    assert _outcomes(log) == ROUGE_L_OUTCOMES
    metrics = _metrics(log)
    assert list(metrics) == ["accuracy_mean", "accuracy_ci_low", "accuracy_ci_high", "tie_share", "unscored_share"]
    assert metrics["accuracy_mean"] == pytest.approx(11 / 23)
    assert metrics["tie_share"] == pytest.approx(5 / 23)
    assert metrics["unscored_share"] == 0.0
    assert metrics["accuracy_ci_low"] < 11 / 23 < metrics["accuracy_ci_high"]
    figures = _report(log)
    by_category = {name: value for name, value in figures.items() if name.endswith("_accuracy")}
    assert by_category == pytest.approx(
        {
            "false_findings_accuracy": 2 / 3,
            "missing_findings_accuracy": 1 / 3,
            "location_accuracy": 2 / 3,
            "measurement_accuracy": 2 / 3,
            "severity_accuracy": 2 / 3,
            "certainty_accuracy": 2 / 3,
            "patient_context_accuracy": 0.0,
            "paraphrase_robustness_accuracy": 0.0,
        }
    )
    assert log.eval.metadata is not None and log.eval.metadata["data"]["fingerprint"]["layout"] == "flat"


def test_bleu_rexrank_on_the_demo_where_the_outcome_follows_by_hand(tmp_path):
    """Identical texts score the same; the reference itself scores 1 and a one-word change less; a one-token change
    at the same place (8 -> 9 or 25 mm) changes the same n-grams, so those two tie."""
    outcomes = _outcomes(_run(tmp_path, metric="bleu_rexrank"))
    assert {case: outcomes[case] for case in ("pc-1", "pc-2", "ms-1", "loc-1", "ms-2", "sv-1", "ff-1")} == {
        "pc-1": "tie",
        "pc-2": "tie",
        "ms-1": "tie",
        "loc-1": "right",
        "ms-2": "right",
        "sv-1": "right",
        "ff-1": "right",
    }


def test_a_lower_is_better_direction_turns_the_clear_cases_round(tmp_path):
    log = _run(tmp_path, metric="rouge_l", direction="lower", tie_tolerance=0)
    outcomes = _outcomes(log)
    assert (outcomes["ff-1"], outcomes["ff-3"], outcomes["loc-3"], outcomes["pc-1"]) == (
        "wrong",
        "right",
        "right",
        "tie",
    )
    # sv-2's two values are computed from the same counts (2 of 3 both ways), so they are equal to the last bit.
    assert outcomes["sv-2"] == "tie"
