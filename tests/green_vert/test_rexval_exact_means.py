"""ReXVal's rater means are exact from the layout to the logged agreement: equal rater totals are ties.

In the copy below, six raters counted ten significant errors in study 1's `bertscore` candidate (four in (a),
six in (b)) and ten in its `s_emb` candidate (five and five). Their mean totals are both 10/6; as float means
added up they would differ in the last bit and Kendall's tau-b would order them.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import ChatMessage, ModelOutput, get_model
from inspect_ai.scorer import SampleScore, Score
from scipy import stats

from radiology_tasks.core.layouts import resolve_local
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.metrics import expert_agreement, expert_metadata
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.green_vert.tasks import green
from tests.judge_answers import assessment, mock_output
from tests.real_layouts import rexval_copy
from tests.report_values import report_values

SPLIT_4_6, SPLIT_5_5 = "1-bertscore", "1-s_emb"


def _errors() -> dict[tuple[int, str, int, int, bool], int]:
    errors = {(1, "bertscore", 1, rater, True): 1 for rater in range(4)}
    errors |= {(1, "bertscore", 2, rater, True): 1 for rater in range(6)}
    errors |= {(1, "s_emb", 1, rater, True): 1 for rater in range(5)}
    errors |= {(1, "s_emb", 2, rater, True): 1 for rater in range(5)}
    errors |= {(1, "bleu", 1, rater, True): 2 for rater in range(6)}
    errors |= {(0, "s_emb", 3, 2, True): 1}
    return errors


def _rater_total(pair: ReportPair) -> int:
    """The raters' whole total of significant errors, from each rater's own counts the layout keeps."""
    per_rater = pair.metadata["rater_counts"]
    return sum(sum(counts["significant"].values()) for counts in per_rater.values())


def test_the_layout_writes_exact_means_and_equal_totals_compare_equal(tmp_path: Path) -> None:
    folder = rexval_copy(tmp_path / "rexval", _errors())
    rows = {row["id"]: row for _, row in resolve_local(folder).rows(DataOptions())}
    assert rows[SPLIT_4_6]["significant_a"] == Fraction(4, 6)
    assert isinstance(rows[SPLIT_4_6]["significant_a"], Fraction)

    pairs = {p.id: p for p in load_pairs(str(folder)).pairs}
    first, second = pairs[SPLIT_4_6].expert, pairs[SPLIT_5_5].expert
    assert first is not None and second is not None and first.significant and second.significant
    assert first.significant.as_dict() != second.significant.as_dict()
    assert first.significant.total == second.significant.total == Fraction(10, 6)


def test_the_agreement_over_the_logged_metadata_is_scipy_on_exact_totals(tmp_path: Path) -> None:
    pairs = load_pairs(str(rexval_copy(tmp_path / "rexval", _errors()))).pairs
    # The judge counts one error more than the one before, candidate after candidate; the two ten-error
    # candidates get 1 and 2, so only an exact tie between them gives scipy's figure.
    judge = {pair.id: float(index % 5) for index, pair in enumerate(pairs)}
    judge[SPLIT_4_6], judge[SPLIT_5_5] = 1.0, 2.0
    scores = [
        SampleScore(
            score=Score(value={"green_ec": judge[pair.id]}, metadata=json.loads(json.dumps(expert_metadata(pair)))),
            sample_id=pair.id,
        )
        for pair in pairs
    ]
    metric = expert_agreement("green_ec", higher_is_better=False, truth="significant_errors", n_resamples=0)
    value = metric(scores)
    assert isinstance(value, dict)
    expected = stats.kendalltau([judge[p.id] for p in pairs], [_rater_total(p) for p in pairs]).statistic
    assert value["green_ec_vs_errors_kendall_tau"] == pytest.approx(expected, abs=1e-12)
    assert value["green_ec_vs_errors_n_pairs"] == len(pairs) == 8


def _judge_by_candidate(messages: list[ChatMessage], *_: Any) -> ModelOutput:
    """Significant errors in (b) by candidate: the ten-error candidates get 1 and 2, the rest follow their text."""
    prompt = messages[-1].text
    counts = {"Left pleural effusion, cardiomegaly.": 1, "Large right pleural effusion.": 2, "No effusion.": 4}
    found = next((n for text, n in counts.items() if text in prompt), 3 if "(s_emb)" in prompt else 0)
    return mock_output(assessment({"b": found}, matched=2))


def test_a_green_run_on_rexval_logs_the_tau_of_the_exact_totals(tmp_path: Path) -> None:
    folder = rexval_copy(tmp_path / "rexval", _errors())
    judge = get_model("mockllm/model", custom_outputs=_judge_by_candidate)
    (log,) = inspect_eval(
        green(data=str(folder)), model="none", model_roles={"grader": judge}, display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert log.samples is not None and log.results is not None
    pairs = {p.id: p for p in load_pairs(str(folder)).pairs}
    ids = sorted(str(sample.id) for sample in log.samples)
    by_id = {str(sample.id): sample for sample in log.samples}
    judged = [by_id[i].scores["report_judge"].value["green_ec"] for i in ids]  # type: ignore[index]
    assert judged[ids.index(SPLIT_4_6)] != judged[ids.index(SPLIT_5_5)]
    expected = stats.kendalltau(judged, [_rater_total(pairs[i]) for i in ids]).statistic
    logged = report_values(log)
    assert logged["green_ec_vs_errors_kendall_tau"] == pytest.approx(expected, abs=1e-12)
