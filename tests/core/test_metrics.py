"""The Inspect metrics, called on hand-built SampleScore lists and inside a tiny evaluation."""

from __future__ import annotations

import math
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.scorer import SampleScore, Score, Target, scorer
from inspect_ai.solver import Generate, TaskState, solver
from scipy import stats

from radiology_tasks.core.metrics import (
    category_f1,
    error_count_bias,
    expert_agreement,
    mean_of,
    parse_failure_rate,
)

NAN = math.nan


def _counts(**nonzero: int) -> dict[str, int]:
    return {c: nonzero.get(c, 0) for c in "abcdef"}


def _sample(
    sample_id: int,
    value: Any,
    *,
    expert: float | None = None,
    human: dict[str, int] | None = None,
    predicted: dict[str, int] | None = None,
    reason: str | None = None,
) -> SampleScore:
    metadata = {"expert_score": expert, "expert_significant": human, "predicted_significant": predicted}
    return SampleScore(score=Score(value=value, reason=reason, metadata=metadata), sample_id=sample_id)


def _unscored(sample_id: int, expert: float | None = None) -> SampleScore:
    return _sample(
        sample_id,
        {"vert": NAN, "green": NAN, "green_ec": NAN},
        expert=expert,
        reason="invalid_response_format",
    )


VERT = [0.9, 0.3, 0.6, 0.7, 0.2]
GREEN_EC = [0.0, 4.0, 2.0, 1.0, 3.0]
EXPERTS = [1.0, 0.2, 0.6, 0.4, 0.0]
SCORED = [
    _sample(i, {"vert": v, "green": 1 - e / 5, "green_ec": e}, expert=x)
    for i, (v, e, x) in enumerate(zip(VERT, GREEN_EC, EXPERTS))
]


def _call(metric: Any, scores: list[SampleScore]) -> dict[str, float]:
    value = metric(scores)
    assert isinstance(value, dict)
    return value


# expert_agreement ----------------------------------------------------------------------------


def test_agreement_matches_scipy_and_counts_what_it_skips() -> None:
    scores = [*SCORED, _unscored(10, expert=0.5), _sample(11, {"vert": 0.5, "green": 0.5, "green_ec": 1.0})]
    value = _call(expert_agreement("vert", n_resamples=100), scores)
    assert value["vert_kendall_tau"] == pytest.approx(stats.kendalltau(VERT, EXPERTS).statistic, abs=1e-12)
    assert value["vert_spearman"] == pytest.approx(stats.spearmanr(VERT, EXPERTS).statistic, abs=1e-12)
    assert value["vert_pearson"] == pytest.approx(stats.pearsonr(VERT, EXPERTS).statistic, abs=1e-12)
    assert value["vert_kendall_tau_ci_low"] <= value["vert_kendall_tau"] <= value["vert_kendall_tau_ci_high"]
    assert value["vert_n_pairs"] == 5.0
    assert value["vert_n_unscored"] == 1.0
    assert value["vert_n_no_expert"] == 1.0
    assert value["vert_sign"] == 1.0


def test_agreement_on_error_counts_is_positive_when_judge_agrees() -> None:
    value = _call(expert_agreement("green_ec", higher_is_better=False, n_resamples=50), SCORED)
    assert value["green_ec_kendall_tau"] == pytest.approx(-stats.kendalltau(GREEN_EC, EXPERTS).statistic, abs=1e-12)
    assert value["green_ec_kendall_tau"] > 0
    assert value["green_ec_sign"] == -1.0


def test_agreement_accepts_a_plain_float_value() -> None:
    scores = [_sample(i, v, expert=x) for i, (v, x) in enumerate(zip(VERT, EXPERTS))]
    value = _call(expert_agreement("vert", n_resamples=0), scores)
    assert value["vert_kendall_tau"] == pytest.approx(stats.kendalltau(VERT, EXPERTS).statistic, abs=1e-12)


@pytest.mark.parametrize(
    "scores",
    [[], [_unscored(1, 0.3), _unscored(2, 0.4)], [_sample(1, {"vert": 0.5}), _sample(2, {"vert": 0.6})]],
    ids=["empty", "all-unscored", "no-expert"],
)
def test_agreement_is_nan_without_pairs(scores: list[SampleScore]) -> None:
    value = _call(expert_agreement("vert"), scores)
    assert len(value) == 13
    assert value["vert_sign"] == 1.0
    for name in ("kendall_tau", "kendall_tau_ci_low", "spearman", "pearson_ci_high"):
        assert math.isnan(value[f"vert_{name}"])
    assert value["vert_n_pairs"] == 0.0
    assert value["vert_n_unscored"] + value["vert_n_no_expert"] == len(scores)


def test_agreement_refuses_a_missing_key() -> None:
    with pytest.raises(ValueError) as caught:
        expert_agreement("rubric")(SCORED)
    assert str(caught.value) == "sample 0: score has no key 'rubric' (keys: vert, green, green_ec)"


@pytest.mark.parametrize("bad", ["0.5", True], ids=["text", "bool"])
def test_agreement_refuses_a_score_or_expert_score_that_is_not_a_number(bad: object) -> None:
    with pytest.raises(ValueError) as caught:
        expert_agreement("vert")([*SCORED, _sample(7, {"vert": bad}, expert=0.5)])
    assert str(caught.value) == f"sample 7: score 'vert' is not a number: {bad!r}"
    with pytest.raises(ValueError) as caught:
        expert_agreement("vert")([*SCORED, _sample(8, {"vert": 0.5}, expert=bad)])  # type: ignore[arg-type]
    assert str(caught.value) == f"sample 8: expert_score is not a number: {bad!r}"


# parse_failure_rate --------------------------------------------------------------------------


def test_parse_failure_rate_counts_dict_nan_and_bare_nan() -> None:
    scores = [
        *SCORED[:3],
        _unscored(10),
        SampleScore(score=Score.unscored(reason="invalid_response_format"), sample_id=11),
    ]
    assert _call(parse_failure_rate(), scores) == {"parse_failure_rate": 2 / 5, "unscored": 2.0}


def test_only_unreadable_answers_are_parse_failures() -> None:
    """An empty candidate or a judge that could not answer is unscored, but not a parse failure."""
    scores = [
        *SCORED[:2],
        _unscored(10),
        SampleScore(score=Score.unscored(reason="no_response"), sample_id=11),
        _sample(12, {"vert": NAN}, reason="judge_context_exceeded"),
    ]
    assert _call(parse_failure_rate(), scores) == {"parse_failure_rate": 1 / 5, "unscored": 3.0}


def test_parse_failure_rate_reads_the_reasons_in_the_metadata() -> None:
    def judged(sample_id: int, reasons: dict[str, str], filled: list[str]) -> SampleScore:
        value = {"vert": 0.0 if "vert" in filled else (NAN if "vert" in reasons else 0.4), "green_ec": NAN}
        metadata = {"unscored": reasons, "filled_in": filled, "expert_score": 0.5}
        return SampleScore(score=Score(value=value, metadata=metadata), sample_id=sample_id)

    scores = [
        judged(1, {"vert": "truncated", "green_ec": "truncated"}, ["vert"]),  # filled in by unscored=worst
        judged(2, {"vert": "judge_refused", "green_ec": "judge_refused"}, []),
        judged(3, {"green_ec": "invalid_response_format"}, []),  # only the count is missing
        judged(4, {}, []),
    ]
    assert _call(parse_failure_rate("vert"), scores) == {"parse_failure_rate": 1 / 4, "unscored": 2.0}
    assert _call(parse_failure_rate("green_ec"), scores) == {"parse_failure_rate": 2 / 4, "unscored": 3.0}


def test_parse_failure_rate_edge_cases() -> None:
    assert _call(parse_failure_rate(), SCORED) == {"parse_failure_rate": 0.0, "unscored": 0.0}
    assert _call(parse_failure_rate(), [_unscored(1), _unscored(2)]) == {
        "parse_failure_rate": 1.0,
        "unscored": 2.0,
    }
    empty = _call(parse_failure_rate(), [])
    assert math.isnan(empty["parse_failure_rate"]) and empty["unscored"] == 0.0


def test_a_plain_nan_score_is_a_parse_failure_and_a_plain_number_is_not() -> None:
    scores = [_sample(1, 0.5), _sample(2, NAN), _sample(3, NAN, reason="judge_context_exceeded")]
    assert _call(parse_failure_rate(), scores) == {"parse_failure_rate": 1 / 3, "unscored": 2.0}


def test_parse_failure_rate_of_one_key() -> None:
    partly = _sample(3, {"vert": NAN, "green": 0.5, "green_ec": 1.0})
    assert _call(parse_failure_rate(), [*SCORED[:3], partly])["unscored"] == 0.0
    assert _call(parse_failure_rate("vert"), [*SCORED[:3], partly]) == {
        "parse_failure_rate": 0.25,
        "unscored": 1.0,
    }


# category_f1 and error_count_bias ------------------------------------------------------------

COUNTED = [
    _sample(1, {"vert": 0.5}, human=_counts(a=2, b=1), predicted=_counts(a=1, b=1, c=1)),
    _sample(2, {"vert": 0.5}, human=_counts(b=3, d=1), predicted=_counts(a=1, b=2, d=1)),
    _sample(3, {"vert": 0.5}, human=_counts(), predicted=_counts()),
    _sample(4, {"vert": 0.5}, human=_counts(a=5), predicted=None),  # judge gave no counts: left out
    _unscored(5),
]


def test_category_f1_hand_computed() -> None:
    value = _call(category_f1(), COUNTED)
    assert value["f1_a"] == 0.5
    assert value["f1_b"] == pytest.approx(6 / 7, abs=1e-12)
    assert value["f1_c"] == 0.0
    assert value["f1_d"] == 1.0
    assert value["f1_e"] == 0.0 and value["f1_f"] == 0.0
    assert value["f1_all"] == pytest.approx(5 / 7, abs=1e-12)
    assert value["f1_n_reports"] == 3.0


def test_category_f1_without_counts_is_nan() -> None:
    for scores in ([], [_unscored(1), _unscored(2)]):
        value = _call(category_f1(), scores)
        assert math.isnan(value["f1_all"]) and math.isnan(value["f1_a"])
        assert value["f1_n_reports"] == 0.0


def test_category_f1_names_the_sample_with_bad_counts() -> None:
    bad = _sample(9, {"vert": 0.5}, human=_counts(), predicted={"a": 1})
    with pytest.raises(ValueError, match="sample 9: predicted_significant: category 'b' is missing"):
        category_f1()([*COUNTED, bad])
    bad_expert = _sample(6, {"vert": 0.5}, human={"a": 1}, predicted=_counts())
    with pytest.raises(ValueError, match="sample 6: expert_significant: category 'b' is missing"):
        category_f1()([*COUNTED, bad_expert])


def test_error_count_bias() -> None:
    # Totals (human, predicted): (3, 3), (4, 4), (0, 0); top bucket 2 pools the first two.
    value = _call(error_count_bias(top_bucket=2), COUNTED)
    assert list(value) == ["bias_0", "bias_1", "bias_2+", "n_0", "n_1", "n_2+"]
    assert value["bias_0"] == 0.0 and value["bias_2+"] == 0.0
    assert math.isnan(value["bias_1"])
    assert (value["n_0"], value["n_1"], value["n_2+"]) == (1.0, 0.0, 2.0)
    over = _sample(6, {"vert": 0.5}, human=_counts(a=1), predicted=_counts(a=2, c=1))
    assert _call(error_count_bias(), [over])["bias_1"] == 2.0


def test_error_count_bias_of_nothing_keeps_its_shape() -> None:
    value = _call(error_count_bias(), [])
    assert list(value) == [
        "bias_0",
        "bias_1",
        "bias_2",
        "bias_3",
        "bias_4+",
        "n_0",
        "n_1",
        "n_2",
        "n_3",
        "n_4+",
    ]
    assert all(math.isnan(value[f"bias_{k}"]) for k in ("0", "1", "2", "3", "4+"))


# mean_of -------------------------------------------------------------------------------------


def test_mean_of_skips_nan() -> None:
    value = _call(mean_of("vert"), [*SCORED, _unscored(10)])
    assert value == {"vert_mean": pytest.approx(sum(VERT) / len(VERT), abs=1e-12)}


def test_mean_of_nothing_is_nan() -> None:
    assert math.isnan(_call(mean_of("vert"), [])["vert_mean"])
    assert math.isnan(_call(mean_of("vert"), [_unscored(1)])["vert_mean"])


# inside an Inspect evaluation ----------------------------------------------------------------

ROWS = [
    # (value of vert or None for an unparsable answer, expert score)
    (0.9, 1.0),
    (0.3, 0.2),
    (0.6, 0.6),
    (None, 0.4),
    (0.7, 0.4),
]


@solver
def _no_generation():  # type: ignore[no-untyped-def]
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return state

    return solve


@scorer(metrics=[mean_of("vert"), expert_agreement("vert", n_resamples=50), parse_failure_rate(), category_f1()])
def _fake_judge():  # type: ignore[no-untyped-def]
    async def score(state: TaskState, target: Target) -> Score:
        vert, expert = ROWS[int(state.sample_id) - 1]
        metadata = {
            "expert_score": expert,
            "expert_significant": _counts(a=1),
            "predicted_significant": _counts(a=1) if vert is not None else None,
        }
        if vert is None:
            return Score(value={"vert": NAN}, reason="invalid_response_format", metadata=metadata)
        return Score(value={"vert": vert}, metadata=metadata)

    return score


@pytest.mark.slow
def test_metrics_inside_an_evaluation(tmp_path: Any) -> None:
    task = Task(
        dataset=[Sample(id=i + 1, input="x", target="") for i in range(len(ROWS))],
        solver=_no_generation(),
        scorer=_fake_judge(),
    )
    [log] = inspect_eval(task, model="mockllm/model", log_dir=str(tmp_path), display="none")
    assert log.status == "success"
    assert log.results is not None
    metrics = {name: m.value for score in log.results.scores for name, m in score.metrics.items()}
    scored = [(v, x) for v, x in ROWS if v is not None]
    assert metrics["vert_mean"] == pytest.approx(sum(v for v, _ in scored) / 4, abs=1e-12)
    assert metrics["vert_kendall_tau"] == pytest.approx(stats.kendalltau(*zip(*scored)).statistic, abs=1e-12)
    assert metrics["vert_n_unscored"] == 1.0
    assert metrics["parse_failure_rate"] == 0.2
    assert metrics["f1_a"] == 1.0
