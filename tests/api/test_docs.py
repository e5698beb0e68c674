"""The documentation of `score()` and the reward functions names every metric they accept, so a new family's task
cannot be left out of it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from radiology_tasks.api import scorable_tasks, score
from radiology_tasks.rewards import reward_function

REPO = Path(__file__).resolve().parents[2]

WHERE = {
    # Where each text says which `metric` is accepted: the list is read from that sentence or argument alone.
    "docs/python.md": (
        lambda: (REPO / "docs" / "python.md").read_text(encoding="utf-8"),
        r"`metric` is (.*?)\. `judge`",
    ),
    "score's docstring": (lambda: score.__doc__ or "", r"\n\s+metric: (.*?)\n\s+judge:"),
    "reward_function's docstring": (lambda: reward_function.__doc__ or "", r"\n\s+metric: (.*?)\n\s+judge:"),
}


def test_the_accepted_metrics_are_the_tasks_that_score_given_candidates():
    # crimson joined through its family like the others; judge_sensitivity and report_generation make their own.
    assert {"green", "vert", "crimson", "ct_finebench", "ran_score", "baselines", "metric_suite"} <= set(
        scorable_tasks()
    )
    assert not {"judge_sensitivity", "report_generation"} & set(scorable_tasks())


@pytest.mark.parametrize("where", sorted(WHERE))
def test_the_documentation_names_each_metric_score_accepts(where):
    read, pattern = WHERE[where]
    found = re.search(pattern, read(), re.DOTALL)
    assert found is not None, f"{where} no longer says which metrics are accepted where this test looks"
    named = set(re.findall(r"``?(\w+)``?", found.group(1)))
    missing = sorted(set(scorable_tasks()) - named)
    assert missing == [], f"{where} does not name {missing} among the metrics score() accepts"
