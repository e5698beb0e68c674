"""What one log contributes to the agreement table: its data, its metrics and their figures, recomputed from it.

The figures come from the run report (`radiology_tasks.core.run_report`), which recomputes every figure a run's
family declares from the log's samples, so the table shows exactly what `radiology-tasks report LOG` shows.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from radiology_tasks.agreement.model import PROTOCOLS, Dataset, RowId, Value
from radiology_tasks.core.errors import InputError

if TYPE_CHECKING:
    from inspect_ai.log import EvalLog
    from inspect_ai.scorer import SampleScore

    from radiology_tasks.core.run_report import RunReport


@dataclass(frozen=True)
class AgreementRun:
    """One log, read for the table.

    Attributes:
        log: Where the log is.
        task: The task's short name.
        created: When the run started (ISO 8601, as the log records it): the newer of two runs is shown.
        dataset: The data it scored.
        rows: Its metrics as table rows, in the order its scores give them.
        figures: Every figure its run report gives (value or reason), by name.
        samples: Its per-sample scores (the paired tests read them).
    """

    log: str
    task: str
    created: str
    dataset: Dataset
    rows: tuple[RowId, ...]
    figures: Mapping[str, Value]
    samples: Sequence[SampleScore] = ()

    def has_agreement(self) -> bool:
        """Whether any of its metrics has a figure of any protocol (defined or not)."""
        names = (protocol.main_figure(row.key) for row in self.rows for protocol in PROTOCOLS)
        return any(name in self.figures for name in names)


@cache
def key_prompts() -> dict[str, str]:
    """The suite metric whose prompt gives each score key of the LLM-judge metrics the families add to the suite
    (its own prompt): their rows are split by judge, and by prompt where another prompt gave them."""
    from radiology_tasks.core.family import families

    return {
        key: name for family in families() for name, metric in family.suite_metrics().items() for key in metric.keys
    }


def judged_keys() -> frozenset[str]:
    """The score keys of the LLM-judge metrics the families add to the suite."""
    return frozenset(key_prompts())


def row_of(key: str, task: str, judge: str | None) -> RowId:
    """The row of `key` in a run of `task`: a judged key's prompt is the task's where the task is itself one of the
    suite's judge metrics (such a run answers that metric's prompt), else the key's own (a suite of several judges)."""
    own = key_prompts().get(key)
    if own is None:
        return RowId(key)
    prompt = task if task in key_prompts().values() else own
    return RowId(key, judge, None if prompt == own else prompt)


def score_keys(samples: Sequence[SampleScore]) -> list[str]:
    """The numeric keys of the samples' dict values, in the order they first appear."""
    keys: list[str] = []
    for sample in samples:
        value = sample.score.value
        if not isinstance(value, Mapping):
            continue
        for key, number in value.items():
            numeric = number is None or (isinstance(number, int | float) and not isinstance(number, bool))
            if numeric and str(key) not in keys:
                keys.append(str(key))
    return keys


def dataset_of(summary: Mapping[str, Any], sample_ids: Sequence[str]) -> Dataset:
    """The dataset a run's data summary (its log's ``metadata["data"]``) and sample ids describe."""
    fingerprint = summary.get("fingerprint") or {}
    data = fingerprint.get("data_sha256")
    if data is None and fingerprint.get("revision") is not None:
        data = f"revision {fingerprint['revision']}"
    ids = "\n".join(sorted(sample_ids))
    source = str(summary.get("source") or "unnamed data")
    return Dataset(
        name=PurePosixPath(source).name or source,
        layout=summary.get("layout") or fingerprint.get("layout"),
        data=data,
        candidates=fingerprint.get("candidates_sha256"),
        reports=fingerprint.get("reports_sha256"),
        samples=hashlib.sha256(ids.encode()).hexdigest(),
        n_samples=len(sample_ids),
    )


def judge_of(roles: Mapping[str, Any], role: str) -> str | None:
    """The model (or models, comma-separated) a run gave `role`; None when it gave none."""
    config = roles.get(role)
    if config is None:
        return None
    return ", ".join(c.model for c in config) if isinstance(config, list) else str(config.model)


def run_of(log: EvalLog, report: RunReport) -> AgreementRun:
    """The table's view of a log and its run report.

    Raises:
        InputError: the log records no data summary, or its run gives no agreement with experts.
    """
    from radiology_tasks.core.judge import GRADER_ROLE

    summary = (log.eval.metadata or {}).get("data")
    if not isinstance(summary, Mapping):
        raise InputError(f"{report.log}: the log records no data summary (metadata 'data'), so its dataset is unknown")
    judge = judge_of(log.eval.model_roles or {}, GRADER_ROLE)
    rows = tuple(row_of(key, report.task, judge) for key in score_keys(report.samples))
    run = AgreementRun(
        log=report.log,
        task=report.task,
        created=str(log.eval.created),
        dataset=dataset_of(summary, [str(sample.sample_id) for sample in report.samples]),
        rows=rows,
        figures={figure.name: Value(figure.value, figure.reason) for figure in report.figures},
        samples=report.samples,
    )
    if not run.has_agreement():
        raise InputError(
            f"{report.log}: the {report.task} run gives no agreement with experts: its data "
            f"({run.dataset.name}) has no expert scores, error counts or preferences for its metrics"
        )
    return run


def read_run(path: str | Path) -> AgreementRun:
    """Read the log at `path` and recompute its figures.

    Raises:
        InputError: the file is not a readable Inspect log, its task belongs to no family, it has no samples or no
            data summary, or its run gives no agreement with experts (each naming the file).
    """
    from inspect_ai.log import read_eval_log

    from radiology_tasks.core.run_report import report_of

    location = str(path)
    try:
        log = read_eval_log(location)
    except Exception as error:  # noqa: BLE001 - any failure to read means "not a log we can use"
        raise InputError(f"{location}: not a readable Inspect log ({type(error).__name__}: {error})") from error
    return run_of(log, report_of(log, location))


def read_runs(paths: Sequence[str | Path]) -> list[AgreementRun]:
    """Read every log, refusing one given twice.

    Raises:
        InputError: a log named twice, or one `read_run` refuses.
    """
    seen: set[Path] = set()
    runs = []
    for path in paths:
        resolved = Path(path).resolve()
        if resolved in seen:
            raise InputError(f"{path}: the same log is given twice")
        seen.add(resolved)
        runs.append(read_run(path))
    return runs
