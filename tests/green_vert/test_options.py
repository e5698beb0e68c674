"""GREEN/VERT's shared options are checked when built, as `-T` gives them (YAML: text, numbers, booleans)."""

from __future__ import annotations

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.green_vert.options import ExampleOptions
from radiology_tasks.report_judge.options import ReadingOptions


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"zero_matched": "zero"}, "-T zero_matched must be one of perfect_if_no_errors, original; got 'zero'"),
        ({"missing_categories": "lenient"}, "-T missing_categories must be one of zero, strict; got 'lenient'"),
        ({"detail": "short"}, "-T detail must be one of full, brief; got 'short'"),
    ],
)
def test_reading_options_refuse_unknown_values(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(InputError) as caught:
        ReadingOptions(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value) == message


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"shots": "two"}, "-T shots must be a whole number, got 'two'"),
        ({"shots": -1}, "-T shots must be at least 0, got -1"),
        ({"shot_seed": 1.5}, "-T shot_seed must be a whole number, got 1.5"),
        ({"shot_pool": ["a", "b"]}, "-T shot_pool must be one value, got the list ['a', 'b']"),
        ({"curated": "all"}, "-T curated must be one of none, error-types; got 'all'"),
        ({"error_descriptions": "maybe"}, "-T error_descriptions must be true or false, got 'maybe'"),
    ],
)
def test_example_options_refuse_bad_values(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InputError) as caught:
        ExampleOptions(**kwargs)  # type: ignore[arg-type]
    assert str(caught.value).startswith(message)


def test_example_options_convert_what_yaml_gives_and_say_whether_the_prompt_gets_anything() -> None:
    options = ExampleOptions(shots="3", shot_pool=1234, shot_seed="7", error_descriptions="yes")  # type: ignore[arg-type]
    assert (options.shots, options.shot_pool, options.shot_seed, options.error_descriptions) == (3, "1234", 7, True)
    assert options.any
    assert not ExampleOptions().any
    assert ExampleOptions(curated="error-types").any
