"""A generation log as the candidates of a judged run (`-T candidates=LOG.eval`).

A generation log is the log of a task that only writes reports; the family that has such a task declares it
(`radiology_tasks.core.family.Family.generation_tasks`).

The generator writes each study's report once; every metric then judges those very reports, joined by sample
id: the judged data's pairs are folded into studies as the generation run folded them (`studies`), so both runs
have the same study-level samples. The log is read with Inspect's `read_eval_log` and refused, in one line naming
the file, when it cannot stand for the judged data: a log of another task, an unfinished run, errored samples,
several epochs, other data (both datasets named, with their SHA-256), or sample ids other than those the
generation run selected from it.

What the judged run records about the log (`GenerationLog.record`, under ``metadata["data"]["generation"]``):
its SHA-256, the data it was generated from, the generator model, the generate config of the run and of the
requests its model events show, and the hash of the generation prompt template.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, EvalSample, read_eval_log

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.studies import recorded_studies
from radiology_tasks.core.tables import file_sha256

PAIR_KEY = "generation_log"
"""Key of `ReportPair.metadata` under which a joined pair keeps its generator and its generation outcome."""

_PACKAGE_PREFIX = "radiology_tasks/"
_SHOWN_IDS = 10


@dataclass(frozen=True)
class GeneratedReport:
    """One sample's report as the generator wrote it (empty when it wrote none) and the solver's outcome record."""

    text: str
    generation: dict[str, Any] | None


@dataclass(frozen=True)
class GenerationLog:
    """A checked generation log: who generated, with which settings, and each sample's report."""

    path: Path
    sha256: str
    model: str
    task_version: str
    generate_config: dict[str, Any]
    request_configs: list[dict[str, Any]]
    templates: dict[str, str]
    data_name: str | None
    data_sha256: str | None
    per_study: bool
    limit: int | None
    seed: int | None
    reports: dict[str, GeneratedReport]

    def record(self) -> dict[str, Any]:
        """What a judged run stores about the log it took its candidates from (JSON-able)."""
        return {
            "log": str(self.path),
            "log_sha256": self.sha256,
            "data": self.data_name,
            "task_version": self.task_version,
            "model": self.model,
            "generate_config": self.generate_config,
            "request_configs": self.request_configs,
            "templates": self.templates,
            "limit": self.limit,
            "seed": self.seed,
        }

    def selected_ids(self, ids: list[str]) -> list[str]:
        """The ids the generation run took from data holding `ids` (in data order), by its own seed and limit."""
        dataset = MemoryDataset([Sample(id=i, input="") for i in ids])
        if self.seed is not None:
            dataset.shuffle(seed=self.seed)
        chosen = [str(sample.id) for sample in dataset][: self.limit]
        return chosen


def is_inspect_log(path: Path) -> bool:
    """Whether `-T candidates` names an Inspect log: an `.eval` file, or a `.json` file in Inspect's log form."""
    suffix = path.suffix.lower()
    if suffix == ".eval":
        return True
    if suffix != ".json" or not path.is_file():
        return False
    try:
        read_eval_log(str(path), header_only=True)
    except Exception:  # noqa: BLE001 - a JSON file Inspect cannot read is another kind of candidates file
        return False
    return True


def _shown(ids: Iterable[str]) -> str:
    ordered = sorted(ids)
    more = f" and {len(ordered) - _SHOWN_IDS} more" if len(ordered) > _SHOWN_IDS else ""
    return ", ".join(ordered[:_SHOWN_IDS]) + more


def _config(value: Any) -> dict[str, Any]:
    dumped: dict[str, Any] = value.model_dump(mode="json", exclude_none=True) if value is not None else {}
    return dumped


def _request_configs(samples: list[EvalSample]) -> list[dict[str, Any]]:
    """The distinct generate configs the generator's model events were sent with (judge roles left out)."""
    seen: dict[str, dict[str, Any]] = {}
    for sample in samples:
        for event in sample.events or []:
            if not isinstance(event, ModelEvent) or event.role is not None:
                continue
            config = _config(event.config)
            seen.setdefault(json.dumps(config, sort_keys=True), config)
    return [seen[key] for key in sorted(seen)]


def generation_tasks() -> list[str]:
    """The tasks whose logs hold generated reports, as the families declare them."""
    from radiology_tasks.core.family import families

    return [task for family in families() for task in family.generation_tasks]


def _check(log: EvalLog, where: str) -> None:
    task = log.eval.task.removeprefix(_PACKAGE_PREFIX)
    generating = generation_tasks()
    if task not in generating:
        wanted = " or ".join(generating) or "a task that writes reports"
        raise InputError(f"{where}: a log of task {task}, not of {wanted}; generate the reports with it")
    if log.status != "success":
        raise InputError(f"{where}: the generation run's status is {log.status}, not success; finish it first")
    samples = log.samples or []
    errored = [str(s.id) for s in samples if s.error is not None]
    if errored:
        raise InputError(f"{where}: samples {_shown(errored)} errored in the generation run; retry them first")
    epochs = {s.epoch for s in samples}
    if len(epochs) > 1:
        raise InputError(f"{where}: the generation run has {len(epochs)} epochs; give a log of one epoch")


def read_generation_log(path: Path) -> GenerationLog:
    """Read and check a generation log.

    Raises:
        InputError: one line naming the file: not a readable log, a log of another task, a run that did not
            end in success, errored samples (named), or several epochs.
    """
    where = f"-T candidates={path}"
    try:
        log = read_eval_log(str(path))
    except Exception as error:  # noqa: BLE001 - any failure to read means the file cannot be used
        raise InputError(f"{where}: not a readable Inspect log ({type(error).__name__}: {error})") from error
    _check(log, where)
    samples = log.samples or []
    metadata = log.eval.metadata or {}
    data = metadata.get("data") or {}
    args = log.eval.task_args or {}
    return GenerationLog(
        path=path,
        sha256=file_sha256(path),
        model=str(log.eval.model),
        task_version=str(log.eval.task_version),
        generate_config=_config(log.eval.model_generate_config),
        request_configs=_request_configs(samples),
        templates=dict(metadata.get("templates") or {}),
        data_name=data.get("source"),
        data_sha256=(data.get("fingerprint") or {}).get("data_sha256"),
        per_study=recorded_studies(data),
        limit=args.get("limit"),
        seed=args.get("seed"),
        reports={
            str(s.id): GeneratedReport(s.output.completion, (s.metadata or {}).get("generation")) for s in samples
        },
    )


def check_against(log: GenerationLog, data_name: str, data_sha256: str | None, ids: list[str]) -> list[str]:
    """Check the log against the judged data; returns the ids the generation run selected, in data order.

    Args:
        log: The generation log.
        data_name: The judged data as the run names it (a registered name, or the file or folder as given).
        data_sha256: The judged data's `data_sha256` (see `ResolvedData.fingerprint`).
        ids: The judged data's sample ids (its studies'), in data order, before any seed or limit.

    Raises:
        InputError: one line naming the file: other data (both datasets named, with their SHA-256), or sample
            ids that are not the ones the generation run selected from this data (missing and extra ids named).
    """
    where = f"-T candidates={log.path}"
    if log.data_sha256 != data_sha256:
        raise InputError(
            f"{where}: the reports were generated from data {log.data_name} (SHA-256 {log.data_sha256}), "
            f"not from the judged data {data_name} (SHA-256 {data_sha256}); judge the data they were generated from"
        )
    selected = log.selected_ids(ids)
    missing = set(selected) - set(log.reports)
    extra = set(log.reports) - set(selected)
    if missing or extra:
        parts = [f"missing {_shown(missing)}" if missing else "", f"extra {_shown(extra)}" if extra else ""]
        # Logs made before generation was per study hold one report per pair.
        hint = (
            "; it holds one report per pair (report_generation "
            f"{log.task_version}): generate again, one report per study"
            if not log.per_study
            else ""
        )
        raise InputError(
            f"{where}: its sample ids are not those the generation run selected from the judged data "
            f"({'; '.join(p for p in parts if p)}){hint}"
        )
    return selected


def join_generated(
    studies: list[ReportPair], log: GenerationLog, data_name: str, data_sha256: str | None
) -> list[ReportPair]:
    """The studies the generation run selected, each with its generated report as the candidate.

    Expert annotations are dropped: experts rated the data's own candidates, not these reports. A report the
    generator did not write is left as no candidate, with the generation outcome kept beside it, so the
    judged run counts it against the generator instead of leaving the study out.

    Args:
        studies: The judged data folded into studies (`studies.fold_studies`), in data order.
        log: The generation log.
        data_name: The judged data as the run names it.
        data_sha256: The judged data's `data_sha256`.

    Raises:
        InputError: when the log does not fit the data (see `check_against`).
    """
    selected = set(check_against(log, data_name, data_sha256, [p.id for p in studies]))
    joined = []
    for pair in studies:
        if pair.id not in selected:
            continue
        report = log.reports[pair.id]
        record = {"model": log.model, "log_sha256": log.sha256, "generation": report.generation}
        joined.append(
            pair.model_copy(
                update={
                    "candidate": report.text if report.text.strip() else None,
                    "expert": None,
                    "metadata": {**pair.metadata, PAIR_KEY: record},
                }
            )
        )
    return joined


def generator_of(pair_metadata: dict[str, Any]) -> str | None:
    """The generator model a pair's candidate came from, when it was joined from a generation log."""
    joined = pair_metadata.get(PAIR_KEY)
    return str(joined["model"]) if isinstance(joined, dict) and joined.get("model") else None
