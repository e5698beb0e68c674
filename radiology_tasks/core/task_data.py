"""The data half of every task: `-T data/candidates/reports/revision/layout/track/...` into a dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.data_options import DataOptions as DataOptions
from radiology_tasks.core.generation_log import generator_of
from radiology_tasks.core.layouts import ResolvedData
from radiology_tasks.core.loading import LoadedPairs, load_options, resolve_data
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.report_input import generation_prompt
from radiology_tasks.core.tables import file_sha256

REPLAYED_INPUT = "Candidate report (replayed, judged against the target):"
"""How the log viewer's input column labels a replayed candidate (kept short: the list shows the first lines)."""


def generated_input(generator: str) -> str:
    """How the viewer labels a candidate replayed from a `report_generation` log: by the model that wrote it."""
    return f"Candidate report by {generator} (replayed from its generation log, judged against the target):"


def sample_input(pair: ReportPair) -> str:
    """What a sample shows as its input: what is judged.

    A replayed candidate (`--model none`, candidates from the data) is shown as itself, labelled, since no
    model was asked to write it; one from a generation log is labelled with the model that wrote it. A pair
    without a candidate is shown with the prompt the model under test is given to write its report
    (`-T generate=true`), unless it comes from a generation log whose generator wrote no report.
    """
    generator = generator_of(pair.metadata)
    if generator is not None:
        return f"{generated_input(generator)}\n{pair.candidate or '(the generator wrote no report)'}"
    if pair.candidate is None:
        return generation_prompt(pair)
    return f"{REPLAYED_INPUT}\n{pair.candidate}"


def pair_to_sample(pair: ReportPair) -> Sample:
    """One Inspect sample per report pair: the reference is the target, the pair is the metadata."""
    return Sample(
        id=pair.id,
        input=sample_input(pair),
        target=pair.reference,
        metadata=pair.model_dump(mode="json"),
    )


def data_fingerprint(options: DataOptions, data: ResolvedData | None = None) -> dict[str, Any]:
    """What pins the data a run used: its layout and files' SHA-256 (see `ResolvedData.fingerprint`), the hub
    revision for hub data, and the SHA-256 of the candidates and reports files. A leaderboard compares these
    between runs. `data` saves locating the data again when the caller has it."""
    data = data or resolve_data(options.data, layout=options.layout, revision=options.revision)

    def sha(path: str | None) -> str | None:
        return file_sha256(Path(path).expanduser()) if path is not None else None

    return {
        **data.fingerprint(),
        "candidates_sha256": sha(options.candidates),
        "reports_sha256": sha(options.reports),
    }


class TaskData(NamedTuple):
    """A task's samples, the report pairs behind them (in sample order), and the summary its log records."""

    dataset: MemoryDataset
    summary: dict[str, Any]
    pairs: list[ReportPair]


def report_dataset(options: DataOptions, *, require_candidate: bool) -> TaskData:
    """Load, validate, shuffle (when seeded) and limit the task's samples.

    With `options.generate` the model under test writes the candidates: one sample per study (the pairs sharing a
    reference and the generator's inputs, see `radiology_tasks.core.studies`), with no candidate and no expert
    annotation, since both are about reports the model did not write. Seed and limit then apply to studies.

    Args:
        options: The data options.
        require_candidate: Every pair must have a candidate report to replay (not checked with `generate`).

    Returns:
        The dataset, a summary (source, layout, rows read, used and skipped, with reasons, unreadable expert
        annotations, fingerprint, and how pairs were folded into studies when they were) for the task metadata,
        and the pairs the samples were made from, so a task reads them without turning samples back into pairs.
    """
    loaded = load_options(
        options, require_candidate=require_candidate and not options.generate, per_study=options.generate
    )
    return sampled(options, loaded, loaded.pairs)


def sampled(options: DataOptions, loaded: LoadedPairs, pairs: list[ReportPair]) -> TaskData:
    """`pairs` (the loaded pairs, or those a task keeps of them) as samples, shuffled when `options` are seeded and
    cut to their limit, with the loaded data's summary and fingerprint (see `report_dataset`)."""
    dataset = MemoryDataset([pair_to_sample(p) for p in pairs], name=loaded.source)
    if options.seed is not None:
        dataset.shuffle(seed=options.seed)
    if options.limit is not None:
        dataset = MemoryDataset(list(dataset)[: options.limit], name=loaded.source)
    summary = loaded.summary()
    summary["samples"] = len(dataset)
    summary["fingerprint"] = data_fingerprint(options, loaded.data)
    by_id = {pair.id: pair for pair in pairs}
    return TaskData(dataset, summary, [by_id[str(sample.id)] for sample in dataset])
