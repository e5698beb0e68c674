"""Every metric of a finished run, recomputed from its log alone: what `radiology-tasks report LOG` prints.

A run logs only its headline metrics (the summary ``inspect eval`` shows). The rest are declared beside them by
the task's family (`radiology_tasks.core.family.Family.report_metrics`) and computed here by the same Inspect
`@metric` functions over the log's per-sample scores, with the task's arguments as the log recorded them. The
headline metrics are recomputed too and compared with the logged values. A value that is undefined on these
samples gets the reason why instead of a NaN.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import family_of
from radiology_tasks.core.metrics import undefined_reason

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.scorer import Metric, SampleScore

    from radiology_tasks.core.family import ReportMetrics

_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Figure:
    """One value a metric gives on the run's samples.

    Attributes:
        metric: The registered name of the `@metric` that computed it.
        name: Its key (``vert_mean``, ``vert_kendall_tau``, ...).
        value: The number, or None when it is undefined on these samples.
        reason: Why it is undefined (None when it has a value).
        logged: The value the log's results hold under the same name, or None when the log has none.
    """

    metric: str
    name: str
    value: float | None
    reason: str | None = None
    logged: float | None = None

    @property
    def matches_log(self) -> bool | None:
        """Whether the recomputed value equals the logged one (both undefined counts as equal); None: not logged."""
        if self.logged is None:
            return None
        if self.value is None:
            return math.isnan(self.logged)
        return abs(self.value - self.logged) <= _TOLERANCE * max(1.0, abs(self.logged))


@dataclass(frozen=True)
class RunReport:
    """What `radiology-tasks report` computed from one log.

    Attributes:
        log: The log's location.
        task: The task's short name.
        task_version: The version the log records.
        current_version: The family's version now, whose rules recomputed the figures.
        family: The task's family.
        task_args: The task's `-T` arguments as logged.
        scorer: The name of the scorer whose scores were read.
        samples: The run's per-sample scores (one per sample: epochs reduced by their mean).
        headline: The summary's figures, recomputed and compared with the log.
        secondary: Every other figure.
        not_recomputed: Names the log's results hold that no declared metric gives (older logs kept more).
    """

    log: str
    task: str
    task_version: str
    current_version: str
    family: str
    task_args: dict[str, Any]
    scorer: str
    samples: list[SampleScore]
    headline: list[Figure]
    secondary: list[Figure]
    not_recomputed: dict[str, float] = field(default_factory=dict)

    @property
    def headline_matches(self) -> bool:
        """True when every headline figure the log holds equals its recomputed value."""
        return all(figure.matches_log is not False for figure in self.headline)

    @property
    def written_by_older_rules(self) -> bool:
        """True when another version of the task wrote the log: a figure whose rule changed since may differ."""
        return self.task_version != self.current_version


def logged_metrics(log: EvalLog) -> dict[str, float]:
    """Every metric value in the log's results, by name (the first scorer's wins a clash)."""
    values: dict[str, float] = {}
    for group in log.results.scores if log.results else []:
        for name, metric in group.metrics.items():
            values.setdefault(name, float(metric.value))
    return values


def sample_scores(log: EvalLog, scorer: str) -> list[SampleScore]:
    """The per-sample scores of `scorer`, one per sample; several epochs are reduced by their mean as Inspect's
    default reducer does (a run logged with another reducer is refused rather than reported differently).

    Raises:
        InputError: a sample without that scorer's score, or epochs under a reducer other than the mean.
    """
    from inspect_ai.scorer import SampleScore, mean_score

    by_id: dict[str, list[Any]] = defaultdict(list)
    for sample in log.samples or []:
        score = (sample.scores or {}).get(scorer)
        if score is None:
            raise InputError(f"{log.location}: sample {sample.id} (epoch {sample.epoch}) has no '{scorer}' score")
        by_id[str(sample.id)].append((sample, score))
    reducers = log.eval.config.epochs_reducer or ["mean"]
    if any(len(found) > 1 for found in by_id.values()) and reducers != ["mean"]:
        raise InputError(
            f"{log.location}: the run reduced its epochs with {', '.join(reducers)}; "
            "the report reduces them by the mean only"
        )
    reduce = mean_score()
    scores = []
    for found in by_id.values():
        sample, score = found[0]
        reduced = score if len(found) == 1 else reduce([s for _, s in found])
        scores.append(SampleScore(score=reduced, sample_id=sample.id, sample_metadata=sample.metadata))
    return scores


def compute_figures(
    metrics: Sequence[Metric],
    samples: Sequence[SampleScore],
    logged: Mapping[str, float],
    declared: ReportMetrics | None = None,
) -> list[Figure]:
    """Each metric's values on `samples`, with the logged value beside each and a reason for each undefined one
    (the family's own, from `declared`, where it has one)."""
    from inspect_ai.util import registry_info

    figures: list[Figure] = []
    seen: set[str] = set()
    for metric in metrics:
        name = registry_info(metric).name
        value = cast(Any, metric)(list(samples))
        values = value if isinstance(value, Mapping) else {name.split("/")[-1]: value}
        for key, number in values.items():
            if key in seen:
                continue
            seen.add(key)
            number = float(number)
            reason = None
            if math.isnan(number):
                reason = _reason(name, key, samples, declared)
            figures.append(
                Figure(
                    metric=name,
                    name=key,
                    value=None if math.isnan(number) else number,
                    reason=reason,
                    logged=logged.get(key),
                )
            )
    return figures


def _reason(metric: str, key: str, samples: Sequence[SampleScore], declared: ReportMetrics | None) -> str:
    said = declared.explain(metric, key, samples) if declared and declared.explain else None
    return said or undefined_reason(metric, key, samples)


def build_report(path: str | os.PathLike[str]) -> RunReport:
    """Read the log at `path` and compute every metric its task declares.

    Raises:
        InputError: the file is not a readable log, its task belongs to no family, its family declares no report
            metrics, or it has no samples.
    """
    from inspect_ai.log import read_eval_log

    location = str(path)
    try:
        log = read_eval_log(location)
    except Exception as error:  # noqa: BLE001 - any failure to read means "not a log we can use"
        raise InputError(f"{location}: not a readable Inspect log ({type(error).__name__}: {error})") from error
    return report_of(log, location)


def report_of(log: EvalLog, location: str | None = None) -> RunReport:
    """The report of a log already read (`location`: where it is, its own location by default).

    Raises:
        InputError: its task belongs to no family, its family declares no report metrics, or it has no samples.
    """
    location = location or log.location
    task = log.eval.task.split("/")[-1]
    family = family_of(task)
    if family is None:
        raise InputError(f"{location}: task {log.eval.task} belongs to no radiology-tasks family")
    if not log.samples:
        raise InputError(f"{location}: the log holds no samples (was it written with --no-log-samples?)")
    scorer = (
        log.results.scores[0].name if log.results and log.results.scores else next(iter(log.samples[0].scores or {}))
    )
    samples = sample_scores(log, scorer)
    task_args = dict(log.eval.task_args or {})
    try:
        declared = family.report_metrics(task, task_args, samples)
    except (NotImplementedError, ValueError) as error:
        raise InputError(f"{location}: {error}") from error
    logged = logged_metrics(log)
    headline = compute_figures(declared.headline, samples, logged, declared)
    shown = {figure.name for figure in headline}
    secondary = [
        figure for figure in compute_figures(declared.secondary, samples, logged, declared) if figure.name not in shown
    ]
    computed = shown | {figure.name for figure in secondary}
    return RunReport(
        log=location,
        task=task,
        task_version=str(log.eval.task_version),
        current_version=family.version,
        family=family.name,
        task_args=task_args,
        scorer=scorer,
        samples=samples,
        headline=headline,
        secondary=secondary,
        not_recomputed={name: value for name, value in logged.items() if name not in computed},
    )
