"""The data half of every task: `-T data/candidates/reports/revision/limit/seed/on_bad_rows` into a dataset."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.catalog import dataset_entry
from radiology_tasks.core.loading import LoadedPairs, OnBadRows, load_pairs
from radiology_tasks.core.params import choice_param, int_param, text_param
from radiology_tasks.core.records import ReportPair
from solvers.report_input import generation_prompt


@dataclass(frozen=True)
class DataOptions:
    """The data parameters every task takes (see README, "Parameters common to every task").

    The values are checked when the options are built, since they come from `-T` as YAML may have read them:
    a bad one raises `InputError` naming the parameter, which `inspect eval` prints as one line.
    """

    data: str | None = None
    candidates: str | None = None
    reports: str | None = None
    revision: str | None = None
    limit: int | None = None
    seed: int | None = None
    on_bad_rows: OnBadRows = "error"

    def __post_init__(self) -> None:
        # Frozen: checked values replace the raw ones the way dataclasses themselves set fields.
        for name in ("data", "candidates", "reports", "revision"):
            object.__setattr__(self, name, text_param(name, getattr(self, name)))
        object.__setattr__(self, "limit", int_param("limit", self.limit, minimum=1))
        object.__setattr__(self, "seed", int_param("seed", self.seed))
        choice_param("on_bad_rows", self.on_bad_rows, get_args(OnBadRows))


def pair_to_sample(pair: ReportPair) -> Sample:
    """One Inspect sample per report pair: the reference is the target, the pair is the metadata."""
    return Sample(
        id=pair.id,
        input=generation_prompt(pair),
        target=pair.reference,
        metadata=pair.model_dump(mode="json"),
    )


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes, read in blocks."""
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def data_fingerprint(options: DataOptions) -> dict[str, str | None]:
    """What pins the data a run used: the data file's SHA-256 (bundled or local) or the hub revision, and the
    SHA-256 of the candidates and reports files. A leaderboard compares these between runs."""
    entry = dataset_entry(options.data or "demo")
    # A hub dataset has no file here: its revision pins it.
    data_file = Path(str(options.data)) if entry is None else entry.file

    def sha(path: str | Path | None) -> str | None:
        return file_sha256(Path(path).expanduser()) if path is not None else None

    return {
        "data_sha256": sha(data_file),
        "revision": options.revision,
        "candidates_sha256": sha(options.candidates),
        "reports_sha256": sha(options.reports),
    }


def report_dataset(options: DataOptions, *, require_candidate: bool) -> tuple[MemoryDataset, dict[str, Any]]:
    """Load, validate, shuffle (when seeded) and limit the task's report pairs.

    Returns:
        The dataset and a summary (source, rows read, used and skipped, with reasons) for the task metadata.
    """
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
    summary["fingerprint"] = data_fingerprint(options)
    return dataset, summary
