"""Every metric of a run as `radiology-tasks report` computes it from the log, for tests that check a figure the
run's summary no longer logs."""

from __future__ import annotations

import math

from inspect_ai.log import EvalLog

from radiology_tasks.core.run_report import build_report


def report_values(log: EvalLog) -> dict[str, float]:
    """Each figure's value by name (NaN for one undefined on the run's samples, whose reason the report gives),
    headline figures included."""
    report = build_report(log.location)
    figures = [*report.headline, *report.secondary]
    assert all((f.value is None) == (f.reason is not None) for f in figures), "an undefined figure without a reason"
    return {f.name: math.nan if f.value is None else f.value for f in figures}


def assert_summary_only(log: EvalLog, secondary: set[str]) -> None:
    """The log holds exactly the report's headline figures, each equal to its recomputation from the samples, and
    the report recomputes `secondary` (figures the log no longer holds) from the log alone."""
    report = build_report(log.location)
    assert log.results is not None
    logged = [name for score in log.results.scores for name in score.metrics]
    assert logged == [f.name for f in report.headline if f.value is not None]
    assert report.headline_matches, [f for f in report.headline if f.matches_log is False]
    computed = {f.name for f in report.secondary}
    assert secondary <= computed, secondary - computed
    assert not secondary & set(logged)
