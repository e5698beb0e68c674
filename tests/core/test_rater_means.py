"""Means over several raters are exact: equal rater totals give equal expert means, and Kendall's tau-b ties them.

Two candidates whose six raters counted ten significant errors in all, split 4 + 6 over two categories for one
and 5 + 5 for the other, have the same mean, 10/6. Per-category float means added up give 1.6666666666666665
against 1.6666666666666667, which tau-b would count as an ordered pair instead of a tie.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from inspect_ai.scorer import SampleScore, Score
from scipy import stats

from radiology_tasks.core.agreement import expert_error_total
from radiology_tasks.core.metrics import expert_agreement
from radiology_tasks.core.records import ExpertAnnotation
from radiology_tasks.core.rows import pair_from_row

RATERS = 6
# Whole rater totals per category (summed over the six raters) of three candidates.
TOTALS = {"split-4-6": {"a": 4, "b": 6}, "split-5-5": {"a": 5, "b": 5}, "clean": {}}
JUDGE_EC = {"split-4-6": 1.0, "split-5-5": 2.0, "clean": 0.0}


def _float_means(totals: dict[str, int]) -> dict[str, float]:
    """The per-category means as a flat file or a log writes them: each total divided by the raters, a float."""
    return {c: totals.get(c, 0) / RATERS for c in "abcdef"}


def _row(name: str) -> dict[str, Any]:
    means = _float_means(TOTALS[name])
    return {
        "id": name,
        "reference": "Small left pleural effusion.",
        "candidate": f"Candidate {name}.",
        "expert_raters": RATERS,
        **{f"significant_{c}": value for c, value in means.items()},
        **{f"insignificant_{c}": 0.0 for c in "abcdef"},
    }


def test_the_float_sums_really_differ() -> None:
    """The premise: added as floats, the two splits of ten errors differ (so the tests below can fail)."""
    as_floats = [sum(_float_means(TOTALS[name]).values()) for name in ("split-4-6", "split-5-5")]
    assert as_floats[0] != as_floats[1]


def test_rater_means_read_from_floats_are_exact_and_equal_totals_compare_equal() -> None:
    pairs = {name: pair_from_row(_row(name), source="rows.jsonl", row_number=1) for name in TOTALS}
    first, second = (pairs[name].expert.significant for name in ("split-4-6", "split-5-5"))  # type: ignore[union-attr]
    assert (first.a, first.b) == (Fraction(4, 6), Fraction(6, 6))
    assert isinstance(first.a, Fraction) and isinstance(second.a, Fraction)
    assert first.total == second.total == Fraction(10, 6)
    # Written out as floats, as logs hold them, and read back exactly.
    dumped = json.loads(pairs["split-4-6"].model_dump_json())
    assert dumped["expert"]["significant"]["a"] == 4 / 6
    assert ExpertAnnotation.model_validate(dumped["expert"]).significant == first


def test_a_mean_no_rater_total_gives_is_refused_by_the_record_and_by_the_total() -> None:
    with pytest.raises(ValueError, match=r"error count 0\.25 of category \(a\) is not the mean over 6 raters"):
        ExpertAnnotation(significant={**dict.fromkeys("abcdef", 0), "a": 0.25}, raters=RATERS)
    with pytest.raises(
        ValueError, match=r"sample 3: category 'a': 0\.25 is not a mean over 6 raters \(a multiple of 1/6\)"
    ):
        expert_error_total({**dict.fromkeys("abcdef", 0.0), "a": 0.25}, RATERS, "sample 3")
    with pytest.raises(ValueError, match=r"category 'c' is missing"):
        expert_error_total({"a": 0.5, "b": 0.5}, RATERS, "sample 3")


def test_expert_total_adds_stored_float_means_exactly() -> None:
    totals = [expert_error_total(_float_means(TOTALS[name]), RATERS, name) for name in TOTALS]
    assert totals == [Fraction(10, 6), Fraction(10, 6), Fraction(0)]
    assert expert_error_total({**dict.fromkeys("abcdef", 0), "b": 2}, None, "whole counts") == 2


def _sample(name: str) -> SampleScore:
    """A scored sample whose expert metadata went through JSON, as a log stores it."""
    metadata = json.loads(
        json.dumps(
            {
                "expert_score": None,
                "expert_significant": _float_means(TOTALS[name]),
                "expert_raters": RATERS,
            }
        )
    )
    return SampleScore(score=Score(value={"green_ec": JUDGE_EC[name]}, metadata=metadata), sample_id=name)


def test_kendall_tau_b_treats_equal_rater_totals_as_a_tie() -> None:
    names = list(TOTALS)
    metric = expert_agreement("green_ec", higher_is_better=False, truth="significant_errors", n_resamples=0)
    value = metric([_sample(name) for name in names])
    assert isinstance(value, dict)
    # scipy on the exact values: the raters' whole totals (dividing all by six keeps their order and ties).
    exact_totals = [sum(TOTALS[name].values()) for name in names]
    judge = [JUDGE_EC[name] for name in names]
    expected = stats.kendalltau(judge, exact_totals, variant="b").statistic
    assert value["green_ec_vs_errors_kendall_tau"] == pytest.approx(expected, abs=1e-12)
    # The statistic on float sums is another number: the tie matters here.
    float_sums = [sum(_float_means(TOTALS[name]).values()) for name in names]
    assert stats.kendalltau(judge, float_sums, variant="b").statistic != pytest.approx(expected, abs=1e-6)


def test_a_stored_mean_that_is_no_multiple_of_one_over_the_raters_names_the_sample() -> None:
    broken = _sample("split-4-6")
    assert broken.score.metadata is not None
    broken.score.metadata["expert_significant"]["a"] = 0.3
    metric = expert_agreement("green_ec", higher_is_better=False, truth="significant_errors", n_resamples=0)
    with pytest.raises(ValueError, match=r"sample split-4-6: expert_significant: category 'a'"):
        metric([broken, _sample("clean")])


@pytest.mark.parametrize(
    ("counts", "raters", "message"),
    [
        ([1, 2], None, r"^row 2: expected counts keyed a-f, got \[1, 2\]$"),
        ({**dict.fromkeys("abcdef", 0), "g": 1}, None, r"^row 2: unknown categories \['g'\]$"),
        (dict.fromkeys("abcdef", 0), 0, r"^row 2: the number of raters must be a whole number of at least 1, got 0$"),
        (dict.fromkeys("abcdef", 0), 2.5, r"number of raters must be a whole number of at least 1, got 2\.5$"),
        (dict.fromkeys("abcdef", 0), True, r"number of raters must be a whole number of at least 1, got True$"),
        (dict.fromkeys("abcdef", 0), "6", r"number of raters must be a whole number of at least 1, got '6'$"),
        (
            {**dict.fromkeys("abcdef", 0), "d": 0.5},
            None,
            r"^row 2: category 'd': 0\.5 is not a whole number of at least 0$",
        ),
        (
            {**dict.fromkeys("abcdef", 0), "e": -1},
            None,
            r"^row 2: category 'e': -1 is not a whole number of at least 0$",
        ),
        (
            {**dict.fromkeys("abcdef", 0), "f": -1},
            1,
            r"category 'f': -1 is not a mean over 1 raters \(a multiple of 1/1\)",
        ),
    ],
)
def test_expert_total_refuses_bad_counts_and_raters_naming_the_place(counts, raters, message) -> None:
    with pytest.raises(ValueError, match=message):
        expert_error_total(counts, raters, "row 2")


def test_expert_total_reads_whole_counts_without_raters_and_means_over_one_rater() -> None:
    counts = {**dict.fromkeys("abcdef", 0), "a": 3, "f": 1}
    assert expert_error_total(counts, None, "row") == expert_error_total(counts, 1, "row") == Fraction(4)
