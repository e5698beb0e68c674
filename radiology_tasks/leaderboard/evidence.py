"""What a leaderboard needs from one Inspect log: the run's settings, the judge's calls, and every sample's score."""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.family import family_of
from radiology_tasks.core.tables import file_sha256

JUDGE_ROLE = "grader"
PACKAGE_PREFIX = "radiology_tasks/"


@dataclass(frozen=True)
class JudgeCall:
    """One call to the judge as the log's model event records it."""

    model: str
    temperature: float | None
    seed: int | None
    completion: str


@dataclass(frozen=True)
class SampleEvidence:
    """One sample of the log: its scorer's value dict, metadata, the candidate (the score's answer), the target
    (the reference) and the judge calls it made."""

    id: str
    epoch: int
    error: str | None
    values: dict[str, float | None]
    metadata: dict[str, Any]
    candidate: str | None
    judge_calls: list[JudgeCall]
    has_events: bool
    target: str | None = None


@dataclass(frozen=True)
class RunEvidence:
    """One Inspect log, read for submission checks and ranking."""

    path: Path
    sha256: str
    task: str
    task_version: str
    task_args: dict[str, Any]
    status: str
    model: str
    judge: str | None
    metadata: dict[str, Any]
    scorer: str | None
    results: dict[str, float]
    samples: list[SampleEvidence] = field(default_factory=list)

    @property
    def short_task(self) -> str:
        """The task name without the package prefix, the same from a wheel or an editable install."""
        return self.task.removeprefix(PACKAGE_PREFIX)

    @property
    def fingerprint(self) -> dict[str, Any]:
        """The data fingerprint the task recorded (empty for logs made before it was recorded)."""
        return dict((self.metadata.get("data") or {}).get("fingerprint") or {})

    @property
    def redacted(self) -> bool:
        """Whether the log is a redacted copy (its texts replaced by hashes, see `radiology_tasks.leaderboard.redact`):
        its judge answers can then be checked by hash only, and re-scored from the parsed answers it keeps."""
        return bool(self.metadata.get("redaction"))

    @property
    def dataset_name(self) -> str:
        """The dataset a board is keyed on: the layout of a known dataset, however the run reached its files (hub
        name, downloaded folder or file), else `-T data` as given (`demo` when it was not)."""
        layout = self.fingerprint.get("layout")
        if layout and layout != "flat":
            return str(layout)
        return self.data_name

    @property
    def data_name(self) -> str:
        """`-T data` as the run gave it, else the dataset the task reads by default (its family's, or `demo`)."""
        given = self.task_args.get("data")
        if given:
            return str(given)
        family = family_of(self.short_task)
        return (family.default_data if family else None) or "demo"

    @property
    def data_track(self) -> str | None:
        """The report sections the run's references were built from, for data that has several (ReXrank)."""
        track = (self.metadata.get("data") or {}).get("track")
        return None if track is None else str(track)

    @property
    def templates(self) -> dict[str, str] | None:
        """Template file hashes the task recorded, or None for logs made before they were recorded."""
        return self.metadata.get("templates")

    def sample_ids_sha256(self) -> str:
        """SHA-256 of the sorted, newline-joined sample ids: equal for runs over the same sample set."""
        return ids_sha256(s.id for s in self.samples)


def ids_sha256(ids: Any) -> str:
    """SHA-256 of a set of sample ids (sorted and newline-joined)."""
    return hashlib.sha256("\n".join(sorted(str(i) for i in ids)).encode()).hexdigest()


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if math.isnan(value) else float(value)


def _values(value: Any) -> dict[str, float | None]:
    if isinstance(value, dict):
        return {str(k): _number(v) for k, v in value.items()}
    return {"value": _number(value)}


def _target(target: str | list[str]) -> str | None:
    if isinstance(target, list):
        return "\n".join(target) if target else None
    return target


def _judge_calls(events: list[Any]) -> list[JudgeCall]:
    calls = []
    for event in events:
        if getattr(event, "event", None) != "model" or getattr(event, "role", None) != JUDGE_ROLE:
            continue
        output = event.output
        completion = output.completion if output is not None else ""
        calls.append(JudgeCall(str(event.model), event.config.temperature, event.config.seed, completion))
    return calls


def read_run(path: str | Path) -> RunEvidence:
    """Read an Inspect log (`.eval` or `.json`) with its samples and events.

    Raises:
        ValueError: when the file is not a readable Inspect log, naming the file.
    """
    from inspect_ai.log import read_eval_log

    location = Path(path)
    try:
        log = read_eval_log(str(location))
    except Exception as error:  # noqa: BLE001 - any failure to read means "not a log we can use"
        raise ValueError(f"{location}: not a readable Inspect log ({type(error).__name__}: {error})") from error
    roles = log.eval.model_roles or {}
    judge = roles[JUDGE_ROLE].model if JUDGE_ROLE in roles else None
    samples = []
    scorer_name = log.results.scores[0].name if log.results and log.results.scores else None
    for sample in log.samples or []:
        score = (sample.scores or {}).get(scorer_name) if scorer_name else None
        samples.append(
            SampleEvidence(
                id=str(sample.id),
                epoch=sample.epoch,
                error=sample.error.message if sample.error else None,
                values=_values(score.value) if score else {},
                metadata=dict(score.metadata or {}) if score else {},
                candidate=score.answer if score else None,
                judge_calls=_judge_calls(sample.events or []),
                has_events=bool(sample.events),
                target=_target(sample.target),
            )
        )
    results = {}
    for eval_score in log.results.scores if log.results else []:
        for name, metric in eval_score.metrics.items():
            results[name] = metric.value
    return RunEvidence(
        path=location,
        sha256=file_sha256(location),
        task=log.eval.task,
        task_version=str(log.eval.task_version),
        task_args=dict(log.eval.task_args or {}),
        status=log.status,
        model=str(log.eval.model),
        judge=judge,
        metadata=dict(log.eval.metadata or {}),
        scorer=scorer_name,
        results=results,
        samples=samples,
    )
