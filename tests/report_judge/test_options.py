"""The judge's reading options read an answer whole, the same for the scorer and the leaderboard's re-reading."""

from __future__ import annotations

from pathlib import Path

import pytest

from radiology_tasks.green_vert.rescoring import expected_values
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.report_judge.rescoring import logged_prompt
from tests.judge_answers import assessment
from tests.leaderboard.memory_runs import memory_run, sample, write_pairs

NOTHING_MATCHED = assessment({}, 0, 0.9)
"""No error and no matched finding: GREEN is 1.0 under `perfect_if_no_errors`, 0 under `original`."""

TERSE = NOTHING_MATCHED.replace("(c) Misidentification of a finding's anatomic location/position: 0.\n", "", 1)
"""One significant-error category left out: 0 under `missing_categories=zero`, unreadable under `strict`."""


def test_each_reading_option_is_applied() -> None:
    assert ReadingOptions().read(NOTHING_MATCHED, prompt="vert", candidate="c").values["green"] == 1.0
    original = ReadingOptions(zero_matched="original").read(NOTHING_MATCHED, prompt="vert", candidate="c")
    assert original.values["green"] == 0.0
    assert ReadingOptions().read(TERSE, prompt="green", candidate="c").values["green_ec"] == 0.0
    strict = ReadingOptions(missing_categories="strict").read(TERSE, prompt="green", candidate="c")
    assert strict.values["green_ec"] is None and strict.problems["green_ec"].startswith("missing_category")


@pytest.mark.parametrize(
    ("logged", "green"),
    [({"zero_matched": "original"}, 0.0), ({"zero_matched": "perfect_if_no_errors"}, 1.0), ({}, 1.0)],
)
def test_the_leaderboard_reads_with_the_runs_logged_options(tmp_path: Path, logged: dict, green: float) -> None:
    run = memory_run(write_pairs(tmp_path))
    args = {key: value for key, value in run.task_args.items() if key != "zero_matched"} | logged
    # A log written before a reading option existed lacks it: the option's default applies.
    assert (
        expected_values(memory_run(write_pairs(tmp_path), task_args=args), sample("s0", answer=NOTHING_MATCHED))[
            "green"
        ]
        == green
    )


def test_a_logged_prompt_the_judge_lacks_is_refused() -> None:
    assert logged_prompt({"prompt": "rubric"}) == "rubric"
    assert logged_prompt({}) == "vert"
    with pytest.raises(ValueError, match="-T prompt='verdict' is not a judge prompt"):
        logged_prompt({"prompt": "verdict"})
