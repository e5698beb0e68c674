"""The judge parameters every family shares, read as `-T` gives them (YAML)."""

from __future__ import annotations

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge_options import JudgeOptions, constrain_param


def test_a_bare_off_is_yaml_false_and_means_off() -> None:
    assert constrain_param(False) == "off"
    assert constrain_param("grammar") == "grammar"
    with pytest.raises(InputError, match="-T constrain must be one of auto, off, grammar"):
        constrain_param(True)


def test_options_are_checked_and_converted() -> None:
    options = JudgeOptions(constrain="auto", judge_max_tokens="512", judge_retries=2, unscored="exclude")
    assert (options.constrain, options.judge_max_tokens, options.judge_retries, options.unscored) == (
        "auto",
        512,
        2,
        "exclude",
    )
    assert (
        JudgeOptions(constrain=False, judge_max_tokens=None, judge_retries=0, unscored="worst").judge_max_tokens is None
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"judge_max_tokens": 0}, "-T judge_max_tokens must be at least 1, got 0"),
        ({"judge_max_tokens": 1.5}, "-T judge_max_tokens must be a whole number, got 1.5"),
        ({"judge_retries": None}, "-T judge_retries must be a whole number, got None"),
        ({"unscored": "drop"}, "-T unscored must be one of worst, exclude; got 'drop'"),
    ],
)
def test_bad_values_are_one_line_errors(kwargs: dict, message: str) -> None:
    arguments = {"constrain": "auto", "judge_max_tokens": None, "judge_retries": 1, "unscored": "worst", **kwargs}
    with pytest.raises(InputError) as caught:
        JudgeOptions(**arguments)
    assert str(caught.value) == message


def test_the_defaults_are_the_tasks_defaults() -> None:
    assert JudgeOptions() == JudgeOptions(constrain="auto", judge_max_tokens=None, judge_retries=1, unscored="worst")


def test_a_bare_off_builds_options_that_say_off() -> None:
    assert JudgeOptions(constrain=False).constrain == "off"
    with pytest.raises(InputError, match="^-T constrain must be one of"):
        JudgeOptions(constrain="json")
