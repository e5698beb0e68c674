"""The metrics every judge task's run reports, whatever its family: each family's ``run_metrics`` adds its own.

A run of a judge that scores report pairs one at a time (GREEN/VERT, CRIMSON, CT-FineBench) logs the same summary
around its main score and its report adds the same judge figures; this module builds those lists once, with room
for what a family adds at the places where it adds it.
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.scorer import Metric

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import (
    ExpertPresence,
    agreement_metrics,
    judge_calls,
    mean_interval,
    mean_of,
    parse_failure_rate,
    unscored_share,
)


def judged_score_metrics(
    keys: Sequence[str],
    experts: ExpertPresence,
    *,
    headline_extra: Sequence[Metric] = (),
    secondary_extra: Sequence[Metric] = (),
) -> ReportMetrics:
    """The metrics of a run of a judge that gives the scores `keys`, the first its main one.

    The summary: the main score's mean and interval, its agreement with the experts the data has,
    `headline_extra`, the unscored share and the judge's cost. The report's: every score's agreement with every
    expert truth the data carries, `secondary_extra`, the main score's parse failures and the judge's calls and
    retries. A family puts what comes before or after these lists around them.
    """
    main = keys[0]
    headline: list[Metric] = [mean_of(main), mean_interval(main), *agreement_metrics(main, experts, brief=True)]
    headline += [*headline_extra, unscored_share(main), judge_calls(brief=True)]
    secondary: list[Metric] = [metric for key in keys for metric in agreement_metrics(key, experts)]
    secondary += [*secondary_extra, parse_failure_rate(main), judge_calls()]
    return ReportMetrics(headline=headline, secondary=secondary)
