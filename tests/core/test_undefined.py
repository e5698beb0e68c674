"""The reasons printed where a correlation or its interval has no value."""

from __future__ import annotations

import math

import pytest

from radiology_tasks.core.agreement import correlate
from radiology_tasks.core.undefined import correlation_undefined, interval_undefined, not_numbers

NAN = math.nan


@pytest.mark.parametrize(
    ("x", "y", "reason"),
    [
        ([None, 0.2], [0.1, None], "no sample has both X and Y"),
        ([0.1, NAN, 0.3], [0.5, 0.6, None], "only 1 sample has both X and Y; a correlation needs at least 2"),
        (
            [0.4, 0.4, 0.9],
            [0.1, 0.2, None],
            "X is 0.4 on all 2 samples with both values: a constant has no correlation",
        ),
        ([0.1, 0.2, 0.3], [1, 1, 1], "Y is 1 on all 3 samples with both values: a constant has no correlation"),
        ([0.1, 0.2, 0.3], [1, 2, NAN], None),
    ],
)
def test_each_way_a_correlation_can_be_undefined(x, y, reason) -> None:
    assert correlation_undefined(x, y, x_name="X", y_name="Y") == reason
    # The reason is there exactly when correlate gives no number.
    assert (reason is not None) == math.isnan(correlate(x, y, n_resamples=0).kendall_tau)


def test_the_unit_names_what_was_counted() -> None:
    reason = correlation_undefined([0.5], [0.5], x_name="a", y_name="b", unit="held-out sample")
    assert reason == "only 1 held-out sample has both a and b; a correlation needs at least 2"
    assert correlation_undefined([], [], x_name="a", y_name="b", unit="pair") == "no pair has both a and b"
    assert correlation_undefined([0.1], [0.1], x_name="bleu", y_name="bleu") == (
        "only 1 sample has a bleu value; a correlation needs at least 2"
    )


def test_interval_reasons() -> None:
    assert interval_undefined(10, 0) == "no bootstrap resamples were drawn (resamples = 0)"
    assert interval_undefined(1, 100) == "a bootstrap needs at least 2 pairs, got 1"
    assert interval_undefined(2, 3) == "every one of the 3 bootstrap resamples of the 2 pairs is constant"


def test_not_numbers_finds_each_nan_and_infinity():
    assert not_numbers({"a": [1.0, math.inf, {"b": math.nan}], "c": "nan", "d": None, "e": 2}, "agreement") == [
        "agreement.a[1]",
        "agreement.a[2].b",
    ]
    assert not_numbers(-math.inf, "figure") == ["figure"]
    assert not_numbers([], "empty") == []
