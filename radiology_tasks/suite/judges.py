"""The LLM-judge metrics the families add to `metric_suite`, and the names they ask it to refuse."""

from __future__ import annotations

from radiology_tasks.core.family import SuiteMetric, families


def judge_metrics() -> dict[str, SuiteMetric]:
    """The LLM-judge metrics the families add to the suite, by name (all need ``--model-role grader``).

    Raises:
        ValueError: when two families add a metric of the same name.
    """
    found: dict[str, SuiteMetric] = {}
    owner: dict[str, str] = {}
    for family in families():
        for name, metric in family.suite_metrics().items():
            if name in found:
                raise ValueError(f"suite metric {name} is added by both family {owner[name]} and family {family.name}")
            found[name], owner[name] = metric, family.name
    return found


def refused_metrics() -> dict[str, str]:
    """Names the suite refuses, each with the families' line saying where to run that metric instead."""
    return {name: line for family in families() for name, line in family.suite_notes.items()}
