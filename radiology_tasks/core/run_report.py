"""Every figure of a finished run, recomputed from its log alone: what `radiology-tasks report LOG` prints and
`radiology_tasks.run_figures` returns.

A run logs only its headline metrics (the summary ``inspect eval`` shows). The rest are declared beside them by
the task's family (`radiology_tasks.core.family.Family.report_metrics`) and computed here by the same Inspect
`@metric` functions over the log's per-sample scores, with the task's arguments as the log recorded them. The
headline metrics are recomputed too and compared with the logged values. A value that is undefined on these
samples gets the reason why instead of a NaN.

`RunFigures` is that result as data (its JSON is what ``report --json`` prints); `RunReport` adds the per-sample
scores the HTML page plots. Both come from one computation, so the Markdown, the page, the JSON and the Python
result always hold the same figures.
"""

from __future__ import annotations

import math
import os
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, cast

from inspect_ai.scorer import SampleScore
from pydantic import BaseModel, ConfigDict, Field, computed_field

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import family_of
from radiology_tasks.core.metrics import undefined_reason
from radiology_tasks.core.undefined import not_finite

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.scorer import Metric

    from radiology_tasks.core.family import ReportMetrics

_TOLERANCE = 1e-9

FigureKind = Literal["headline", "secondary"]
"""``headline``: in the run's summary (logged, shown by ``inspect eval``); ``secondary``: computed by the report."""

SummaryCheck = Literal["equal", "not_logged", "differs", "older_version"]
"""How the headline values the log holds compare with their recomputation from its samples: ``equal`` (every one
the log holds), ``not_logged`` (the log holds none: a run cut short before its results), ``differs`` (some differ
and the family's current version wrote the log: the log does not match its samples), ``older_version`` (some
differ and another version of the task wrote the log, whose rules may have changed since)."""

_MODEL = ConfigDict(frozen=True, ser_json_inf_nan="null")


class Figure(BaseModel):
    """One value a metric gives on the run's samples.

    Attributes:
        name: Its key (``vert_mean``, ``vert_kendall_tau``, ...).
        kind: ``headline`` (the run's summary) or ``secondary`` (computed by the report only).
        value: The number, or None when it is undefined on these samples.
        reason: Why it is undefined (None when it has a value).
        metric: The registered name of the `@metric` that computed it.
        scorer: The scorer whose per-sample scores it was computed from.
        logged: The value the log's results hold under the same name (NaN if the log holds NaN), or None when the
            log has none (JSON writes a NaN as null too: `matches_log` then says whether the log holds it).
    """

    model_config = _MODEL

    name: str
    kind: FigureKind
    value: float | None
    reason: str | None = None
    metric: str
    scorer: str
    logged: float | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def matches_log(self) -> bool | None:
        """Whether the recomputed value equals the logged one (both undefined counts as equal); None: not logged."""
        if self.logged is None:
            return None
        if self.value is None:
            return math.isnan(self.logged)
        return abs(self.value - self.logged) <= _TOLERANCE * max(1.0, abs(self.logged))


class RunFigures(BaseModel):
    """Every figure of one run, recomputed from its log: what `radiology-tasks report` prints, as data.

    Attributes:
        log: The log's location.
        task: The task's short name.
        task_version: The version the log records.
        current_version: The family's version now, whose rules recomputed the figures.
        family: The task's family.
        scorer: The name of the scorer whose scores were read.
        sample_count: Samples the figures were computed on (several epochs of a sample count once).
        task_args: The task's `-T` arguments as logged.
        summary_check: How the headline values the log holds compare with their recomputation (`SummaryCheck`).
        figures: The headline figures in the summary's order, then the secondary ones, each once.
        not_recomputed: Names the log's results hold that no declared metric gives (older logs kept more), with
            the logged value.
    """

    model_config = _MODEL

    log: str
    task: str
    task_version: str
    current_version: str
    family: str
    scorer: str
    sample_count: int
    task_args: dict[str, Any]
    summary_check: SummaryCheck
    figures: list[Figure]
    not_recomputed: dict[str, float] = Field(default_factory=dict)

    @property
    def headline(self) -> list[Figure]:
        """The summary's figures, recomputed and compared with the log."""
        return [figure for figure in self.figures if figure.kind == "headline"]

    @property
    def secondary(self) -> list[Figure]:
        """Every other figure."""
        return [figure for figure in self.figures if figure.kind == "secondary"]

    @property
    def headline_matches(self) -> bool:
        """True when every headline figure the log holds equals its recomputed value."""
        return self.summary_check in ("equal", "not_logged")

    @property
    def written_by_older_rules(self) -> bool:
        """True when another version of the task wrote the log: a figure whose rule changed since may differ."""
        return self.task_version != self.current_version

    def values(self) -> dict[str, float | None]:
        """Each figure's value by name (None where it is undefined; `figures` holds the reason)."""
        return {figure.name: figure.value for figure in self.figures}


class RunReport(RunFigures):
    """`RunFigures` with the per-sample scores they were computed from (the HTML page plots them).

    Attributes:
        samples: The run's per-sample scores (one per sample: epochs reduced by their mean); not serialised.
    """

    samples: list[SampleScore] = Field(exclude=True, repr=False)


def summary_check(headline: Sequence[Figure], task_version: str, current_version: str) -> SummaryCheck:
    """How the logged headline values compare with their recomputation, given who wrote the log."""
    compared = [figure.matches_log for figure in headline if figure.matches_log is not None]
    if not compared:
        return "not_logged"
    if all(compared):
        return "equal"
    return "differs" if task_version == current_version else "older_version"


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
    from inspect_ai.scorer import mean_score

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
    *,
    kind: FigureKind,
    scorer: str,
) -> list[Figure]:
    """Each metric's values on `samples`, with the logged value beside each and a reason for each undefined one
    (the family's own, from `declared`, where it has one); `kind` and `scorer` are recorded on each figure."""
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
            elif math.isinf(number):
                reason = not_finite(number)
            figures.append(
                Figure(
                    name=key,
                    kind=kind,
                    value=number if reason is None else None,
                    reason=reason,
                    metric=name,
                    scorer=scorer,
                    logged=logged.get(key),
                )
            )
    return figures


def _reason(metric: str, key: str, samples: Sequence[SampleScore], declared: ReportMetrics | None) -> str:
    said = declared.explain(metric, key, samples) if declared and declared.explain else None
    return said or undefined_reason(metric, key, samples)


def _read_log(path: str | os.PathLike[str]) -> EvalLog:
    from inspect_ai.log import read_eval_log

    try:
        return read_eval_log(str(path))
    except Exception as error:  # noqa: BLE001 - any failure to read means "not a log we can use"
        raise InputError(f"{path}: not a readable Inspect log ({type(error).__name__}: {error})") from error


def run_figures(log: str | os.PathLike[str] | EvalLog) -> RunFigures:
    """Every headline and secondary figure of a run, recomputed from its log: what `radiology-tasks report`
    prints, as data (``report --json`` prints its JSON, ``model_dump_json()``).

    Args:
        log: The log's path, or the log already read (with its samples).

    Returns:
        The run's identity, the check of its logged summary, and each figure: its exact value or the reason it is
        undefined, whether it is in the summary, and which metric and scorer computed it.

    Raises:
        InputError: the file is not a readable log, its task belongs to no family, its family declares no report
            metrics, or it has no samples.
    """
    if isinstance(log, str | os.PathLike):
        return _figures(_read_log(log), str(log))[0]
    return _figures(log, log.location)[0]


def build_report(path: str | os.PathLike[str]) -> RunReport:
    """Read the log at `path` and compute every figure its task declares, with the samples to plot.

    Raises:
        InputError: as `run_figures`.
    """
    return report_of(_read_log(path), str(path))


def report_of(log: EvalLog, location: str | None = None) -> RunReport:
    """The report of a log already read (`location`: where it is, its own location by default).

    Raises:
        InputError: its task belongs to no family, its family declares no report metrics, or it has no samples.
    """
    figures, samples = _figures(log, location or log.location)
    return RunReport(**dict(figures), samples=samples)


def _figures(log: EvalLog, location: str) -> tuple[RunFigures, list[SampleScore]]:
    """The run's figures and the per-sample scores they were computed from."""
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
    headline = compute_figures(declared.headline, samples, logged, declared, kind="headline", scorer=scorer)
    shown = {figure.name for figure in headline}
    secondary = [
        figure
        for figure in compute_figures(declared.secondary, samples, logged, declared, kind="secondary", scorer=scorer)
        if figure.name not in shown
    ]
    computed = shown | {figure.name for figure in secondary}
    task_version = str(log.eval.task_version)
    figures = RunFigures(
        log=location,
        task=task,
        task_version=task_version,
        current_version=family.version,
        family=family.name,
        scorer=scorer,
        sample_count=len(samples),
        task_args=task_args,
        summary_check=summary_check(headline, task_version, family.version),
        figures=[*headline, *secondary],
        not_recomputed={name: value for name, value in logged.items() if name not in computed},
    )
    return figures, samples
