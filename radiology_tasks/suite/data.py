"""The suite's samples: the data's rows, the pos/neg sets of a sensitivity directory, and their pairing."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import OnBadRows
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.task_data import DataOptions, TaskData, report_dataset
from radiology_tasks.scorers.suite.suite_tables import sensitivity_pairs

logger = logging.getLogger(__name__)


def _sets(sensitivity: str, on_bad_rows: OnBadRows) -> tuple[list[Sample], list[ReportPair]]:
    """The rows of ``pos.jsonl`` and ``neg.jsonl`` in a `radiology-tasks sensitivity-set` directory, as samples
    and as the pairs they were made from."""
    folder = Path(sensitivity)
    files = [folder / "pos.jsonl", folder / "neg.jsonl"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise InputError(
            f"-T sensitivity={sensitivity}: no {', '.join(missing)} (give a directory written by "
            "`radiology-tasks sensitivity-set`, or `ids` to pair the data's -para/-err rows)"
        )
    samples: list[Sample] = []
    pairs: list[ReportPair] = []
    for file in files:
        loaded = report_dataset(DataOptions(str(file), on_bad_rows=on_bad_rows), require_candidate=True)
        samples += list(loaded.dataset)
        pairs += loaded.pairs
    return samples, pairs


def suite_dataset(options: DataOptions, sensitivity: str | None) -> TaskData:
    """The data's rows (the demo when no data is given), plus the pos/neg sets of a sensitivity directory."""
    from_sets = sensitivity is not None and sensitivity != "ids"
    samples: list[Sample] = []
    pairs: list[ReportPair] = []
    summary: dict[str, Any] = {}
    if options.data is not None or not from_sets:
        loaded = report_dataset(options, require_candidate=True)
        samples += list(loaded.dataset)
        pairs += loaded.pairs
        summary = loaded.summary
    if from_sets:
        set_samples, set_pairs = _sets(str(sensitivity), options.on_bad_rows)
        summary["sensitivity_rows"] = len(set_samples)
        samples += set_samples
        pairs += set_pairs
    seen: set[str] = set()
    for sample in samples:
        if str(sample.id) in seen:
            raise InputError(f"sample id '{sample.id}' appears twice in the data and the sensitivity sets")
        seen.add(str(sample.id))
    summary["samples"] = len(samples)
    return TaskData(MemoryDataset(samples, name=str(summary.get("source", sensitivity))), summary, pairs)


def sensitivity_metadata(pair: ReportPair) -> dict[str, str] | None:
    """A pos/neg row's kind and the id of the reference it was made from; None for any other row."""
    kind, source = pair.metadata.get("kind"), pair.metadata.get("source_id")
    return {"kind": str(kind), "source_id": str(source)} if kind in ("pos", "neg") and source is not None else None


def check_pairs(pairs: list[ReportPair], sensitivity: str) -> None:
    """Fail in one line when the rows hold no pos/neg pair to tabulate; warn about rows without a partner."""
    sensitivity_info = [sensitivity_metadata(p) or {} for p in pairs]
    matched = sensitivity_pairs(
        [p.id for p in pairs],
        [info.get("kind") for info in sensitivity_info],
        [info.get("source_id") for info in sensitivity_info],
        by_id_suffix=sensitivity == "ids",
    )
    if not matched.pairs:
        how = "ids ending in -para/-pos and -err/-neg" if sensitivity == "ids" else "'kind' and 'source_id' columns"
        raise InputError(f"-T sensitivity={sensitivity}: no pos/neg pair found among the rows (pairs need {how})")
    if matched.unmatched:
        logger.warning("metric_suite: pos/neg rows without a partner, left out of the table: %s", matched.unmatched)
