"""CRIMSON's judge in `metric_suite`: built from the suite's judge settings, given whole."""

from __future__ import annotations

from typing import Any

import radiology_tasks.crimson.suite as crimson_suite
from radiology_tasks.core.family import SuiteJudge, family_of
from radiology_tasks.core.judge_options import JudgeOptions


def test_the_family_adds_crimson_with_its_key():
    family = family_of("crimson")
    assert family is not None and family.suite_metrics() is crimson_suite.SUITE
    metric = crimson_suite.SUITE["crimson"]
    assert metric.keys == ("crimson",) and metric.solver is None and metric.check is None


def test_the_judge_is_built_from_the_suite_settings(monkeypatch):
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr(crimson_suite, "crimson_judge", lambda **kwargs: calls.append(kwargs))
    judge = JudgeOptions(constrain="off", judge_max_tokens=900, judge_retries=2, unscored="exclude")
    crimson_suite.SUITE["crimson"].scorer(SuiteJudge(judge, "per_question"))
    assert calls == [{"judge": judge}] and calls[0]["judge"] is judge
