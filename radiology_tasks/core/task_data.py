"""The data half of every task: `-T data/candidates/reports/revision/limit/seed/on_bad_rows` into a dataset."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import LoadedPairs, OnBadRows, load_pairs
from radiology_tasks.core.records import ReportPair
from solvers.report_input import generation_prompt


@dataclass(frozen=True)
class DataOptions:
    """The data parameters every task takes (see README, "Parameters common to every task")."""

    data: str | None = None
    candidates: str | None = None
    reports: str | None = None
    revision: str | None = None
    limit: int | None = None
    seed: int | None = None
    on_bad_rows: OnBadRows = "error"


def pair_to_sample(pair: ReportPair) -> Sample:
    """One Inspect sample per report pair: the reference is the target, the pair is the metadata."""
    return Sample(
        id=pair.id,
        input=generation_prompt(pair),
        target=pair.reference,
        metadata=pair.model_dump(mode="json"),
    )


def report_dataset(options: DataOptions, *, require_candidate: bool) -> tuple[MemoryDataset, dict[str, Any]]:
    """Load, validate, shuffle (when seeded) and limit the task's report pairs.

    Returns:
        The dataset and a summary (source, rows read, used and skipped, with reasons) for the task metadata.
    """
    if options.limit is not None and options.limit < 1:
        raise InputError(f"-T limit must be at least 1, got {options.limit}")
    loaded: LoadedPairs = load_pairs(
        options.data,
        candidates=options.candidates,
        reports=options.reports,
        revision=options.revision,
        on_bad_rows=options.on_bad_rows,
        require_candidate=require_candidate,
    )
    dataset = MemoryDataset([pair_to_sample(p) for p in loaded.pairs], name=loaded.source)
    if options.seed is not None:
        dataset.shuffle(seed=options.seed)
    if options.limit is not None:
        dataset = MemoryDataset(list(dataset)[: options.limit], name=loaded.source)
    summary = loaded.summary()
    summary["samples"] = len(dataset)
    return dataset, summary
