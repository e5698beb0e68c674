"""The data half of every task: `-T data/candidates/reports/revision/layout/track/...` into a dataset."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, get_args

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.generation_log import generator_of
from radiology_tasks.core.layouts import TRACKS, ResolvedData
from radiology_tasks.core.loading import LoadedPairs, OnBadRows, load_pairs, parse_expert_scale, resolve_data
from radiology_tasks.core.params import choice_param, int_param, text_param
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.tables import file_sha256
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
    layout: str | None = None
    track: str | None = None
    image_root: str | None = None
    expert_scale: Any = None

    def __post_init__(self) -> None:
        # Frozen: checked values replace the raw ones the way dataclasses themselves set fields.
        for name in ("data", "candidates", "reports", "revision", "layout", "track", "image_root"):
            object.__setattr__(self, name, text_param(name, getattr(self, name)))
        object.__setattr__(self, "limit", int_param("limit", self.limit, minimum=1))
        object.__setattr__(self, "seed", int_param("seed", self.seed))
        object.__setattr__(self, "expert_scale", parse_expert_scale(self.expert_scale))
        choice_param("on_bad_rows", self.on_bad_rows, get_args(OnBadRows))
        if self.track is not None:
            choice_param("track", self.track, TRACKS)

    def load(self, *, require_candidate: bool = False, per_study: bool = False) -> LoadedPairs:
        """The report pairs these options name (before shuffling and the limit); `per_study`: one per study."""
        return load_pairs(
            self.data,
            candidates=self.candidates,
            reports=self.reports,
            revision=self.revision,
            layout=self.layout,
            track=self.track,
            image_root=self.image_root,
            expert_scale=self.expert_scale,
            on_bad_rows=self.on_bad_rows,
            require_candidate=require_candidate,
            per_study=per_study,
        )


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


def check_report_source(generate: bool, candidates: str | None) -> None:
    """Refuse `-T generate=true` with `-T candidates`: both say where the reports come from.

    Raises:
        InputError: one line naming both settings.
    """
    if generate and candidates:
        raise InputError(
            f"-T generate=true has the model under test write the reports, and -T candidates={candidates} gives "
            "them: use one (a report_generation log as -T candidates judges reports generated once)"
        )


def report_dataset(
    options: DataOptions, *, require_candidate: bool, generate: bool = False
) -> tuple[MemoryDataset, dict[str, Any]]:
    """Load, validate, shuffle (when seeded) and limit the task's samples.

    Args:
        options: The data options.
        require_candidate: Every pair must have a candidate report to replay (not checked with `generate`).
        generate: The model under test writes the candidates: one sample per study (the pairs sharing a
            reference and the generator's inputs, see `radiology_tasks.core.studies`), with no candidate and no
            expert annotation, since both are about reports the model did not write. Seed and limit then
            apply to studies.

    Returns:
        The dataset and a summary (source, layout, rows read, used and skipped, with reasons, unreadable expert
        annotations, fingerprint, and how pairs were folded into studies when they were) for the task metadata.
    """
    loaded = options.load(require_candidate=require_candidate and not generate, per_study=generate)
    dataset = MemoryDataset([pair_to_sample(p) for p in loaded.pairs], name=loaded.source)
    if options.seed is not None:
        dataset.shuffle(seed=options.seed)
    if options.limit is not None:
        dataset = MemoryDataset(list(dataset)[: options.limit], name=loaded.source)
    summary = loaded.summary()
    summary["samples"] = len(dataset)
    summary["fingerprint"] = data_fingerprint(options, loaded.data)
    return dataset, summary
