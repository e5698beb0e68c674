"""Resolving `-T data=...` into validated report pairs: bundled, hub and local data, and candidate joins.

The path is always the same: locate the files (bundled, fetched from the hub, or the user's copy), recognise
their layout (`layouts`), read flat rows, set the expert scale, validate each row into a `ReportPair`, then
join candidates from a separate file when one is given.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.core.catalog import bundled_dataset
from radiology_tasks.core.data_options import DataOptions, ImageChoice, MissingImages
from radiology_tasks.core.data_options import OnBadRows as OnBadRows
from radiology_tasks.core.data_options import parse_expert_scale as parse_expert_scale
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.generation_log import is_inspect_log, join_generated, read_generation_log
from radiology_tasks.core.layouts import FLAT, ResolvedData, Row, all_layouts, resolve_local
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.rows import pair_from_row
from radiology_tasks.core.studies import STUDIES, fold_studies, rows_behind
from radiology_tasks.core.study_images import study_images
from radiology_tasks.core.tables import DataError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class SkippedRow:
    """A row left out under `on_bad_rows="skip"`, with the reason."""

    source: str
    row: int | None
    field: str | None
    reason: str


@dataclass(frozen=True)
class ExpertScale:
    """The scale expert scores are read with, and where it was set: `-T expert_scale`, the layout, or the data."""

    low: float
    high: float
    set_by: str

    def summary(self) -> dict[str, Any]:
        """A JSON-able record for the task metadata."""
        return {"min": self.low, "max": self.high, "set_by": self.set_by}


@dataclass
class LoadedPairs:
    """The pairs a task runs on, where they came from, and what was skipped or read only in part."""

    source: str
    pairs: list[ReportPair]
    rows_read: int
    data: ResolvedData
    skipped: list[SkippedRow] = field(default_factory=list)
    expert_scale: ExpertScale | None = None
    track: str | None = None
    left_out: list[dict[str, Any]] = field(default_factory=list)
    generation: dict[str, Any] | None = None
    studies: dict[str, Any] | None = None
    unused: list[dict[str, Any]] = field(default_factory=list)
    images: dict[str, Any] | None = None

    def unreadable_annotations(self) -> list[dict[str, Any]]:
        """The pairs judged without an expert annotation because theirs could not be read, with the reason."""
        return [
            {"id": pair.id, **pair.metadata["expert_problem"]}
            for pair in self.pairs
            if "expert_problem" in pair.metadata
        ]

    def rows_used(self) -> int:
        """The data rows behind the pairs: a study counts each pair folded into it."""
        return sum(rows_behind(pair) for pair in self.pairs) if self.studies is not None else len(self.pairs)

    def summary(self) -> dict[str, Any]:
        """A JSON-able summary for the task's log metadata."""
        unreadable = self.unreadable_annotations()
        generation = {} if self.generation is None else {"generation": self.generation}
        studies = {} if self.studies is None else {STUDIES: self.studies}
        images = {} if self.images is None else {"images": self.images}
        unused = {"fields_unused": len(self.unused), "unused_fields": self.unused} if self.unused else {}
        return {
            "source": self.source,
            "layout": self.data.layout.name,
            "layout_recognised_by": self.data.recognised_by,
            "track": self.track,
            "expert_scale": None if self.expert_scale is None else self.expert_scale.summary(),
            "rows_read": self.rows_read,
            "rows_used": self.rows_used(),
            "rows_skipped": len(self.skipped),
            "skipped": [s.__dict__ for s in self.skipped],
            "rows_left_out": len(self.left_out),
            "left_out": self.left_out,
            "annotations_unreadable": len(unreadable),
            "unreadable_annotations": unreadable,
            **unused,
            **studies,
            **images,
            **generation,
        }


class _Collector:
    """Applies the bad-row policy: raise at once, or record the row as skipped."""

    def __init__(self, on_bad_rows: OnBadRows) -> None:
        self.on_bad_rows = on_bad_rows
        self.skipped: list[SkippedRow] = []

    def bad(self, error: DataError) -> None:
        if self.on_bad_rows == "error":
            raise error
        logger.warning("skipping bad row: %s", error)
        self.skipped.append(SkippedRow(error.source, error.row, error.field, error.problem))


def _pairs_from_rows(
    rows: Iterable[Row],
    source: str,
    collector: _Collector,
    base_dir: Path | None,
    require_candidate: bool,
) -> tuple[list[ReportPair], int, dict[str, int]]:
    """The valid pairs of `rows`, how many rows were read, and the row of each pair's id."""
    pairs: list[ReportPair] = []
    seen: dict[str, int] = {}
    count = 0
    for number, row in rows:
        count += 1
        try:
            if "expert_problem" in row:
                row = {**row, "expert_problem": {"row": number, **row["expert_problem"]}}
            pair = pair_from_row(row, source=source, row_number=number, base_dir=base_dir)
            if pair.id in seen:
                raise DataError(source, number, "id", f"duplicate id '{pair.id}' (first seen in row {seen[pair.id]})")
            if require_candidate and pair.candidate is None:
                raise DataError(
                    source,
                    number,
                    "candidate",
                    "no candidate report; add the column, pass -T candidates=FILE, or use -T generate=true",
                )
        except DataError as error:
            collector.bad(error)
            continue
        seen[pair.id] = number
        pairs.append(pair)
    return pairs, count, seen


def _candidate_rows(path: Path, options: DataOptions) -> Iterator[Row]:
    """The rows of a candidates file, in the flat layout (`id`, `candidate`) or a layout that holds candidates."""
    resolved = resolve_local(path)
    if resolved.layout.candidates is None:
        raise InputError(
            f"-T candidates={path}: a {resolved.layout.name} file holds no generated reports; give a JSONL/CSV file "
            "with id and candidate, or a ReXrank prediction file"
        )
    return resolved.layout.candidates(resolved.input(options))


def _join_candidates(
    pairs: list[ReportPair], path: Path, collector: _Collector, options: DataOptions
) -> list[ReportPair]:
    """Take each pair's candidate from a separate file, joined by id.

    Where the data has a candidate of its own, the file's replaces it and the experts' annotation, which is about the
    data's candidate, is dropped (no agreement statistic may compare the experts with a report they did not rate);
    where the data has none, the file holds the candidates the data's annotations are about, and they are kept.
    """
    source = str(path)
    ids = {p.id for p in pairs}
    candidates: dict[str, tuple[int, str]] = {}
    for number, row in _candidate_rows(path, options):
        try:
            report_id = row.get("id")
            if report_id is None or not str(report_id).strip():
                raise DataError(source, number, "id", "missing or empty")
            report_id = str(report_id).strip()
            text = row.get("candidate")
            if not isinstance(text, str) or not text.strip():
                raise DataError(source, number, "candidate", "missing or empty candidate report")
            if report_id in candidates:
                raise DataError(
                    source, number, "id", f"duplicate id '{report_id}' (first seen in row {candidates[report_id][0]})"
                )
            if report_id not in ids:
                raise DataError(source, number, "id", f"id '{report_id}' does not match any report in the data")
        except DataError as error:
            collector.bad(error)
            continue
        candidates[report_id] = (number, text)
    joined = []
    for pair in pairs:
        if pair.id not in candidates:
            collector.bad(DataError(source, None, "id", f"no candidate for report id '{pair.id}'"))
            continue
        update: dict[str, Any] = {"candidate": candidates[pair.id][1]}
        if pair.candidate is not None:
            # The experts rated the data's own candidate, not this one: their annotation does not describe it.
            update["expert"] = None
        joined.append(pair.model_copy(update=update))
    return joined


def resolve_data(data: str | None, *, layout: str | None = None, revision: str | None = None) -> ResolvedData:
    """Locate `-T data` and recognise its layout.

    Args:
        data: A bundled or hub dataset name (`radiology-tasks list`), a data file, or a folder holding a copy of
            a dataset; None means the bundled demo set.
        layout: `-T layout`: the layout to read the data with instead of recognising it.
        revision: The hub revision, for hub datasets.

    Raises:
        InputError: for an unknown name or path, data no layout fits, or a revision given for local data.
    """
    name = data or "demo"
    bundled = bundled_dataset(name)
    if bundled is not None:
        if revision is not None:
            raise InputError(f"-T revision applies to hub datasets, not to the bundled dataset {name}")
        if layout is not None:
            raise InputError(f"-T layout applies to your own files and folders, not to the bundled dataset {name}")
        return ResolvedData(FLAT, {"table": [bundled]}, name, "bundled", base_dir=bundled.parent)
    known = all_layouts()
    # A dataset only users can download is named by its folder; a folder of that very name is that copy.
    downloaded_here = name in known and known[name].hub_repo is None and Path(name).exists()
    if name in known and name != FLAT.name and not downloaded_here:
        registered = known[name]
        if layout is not None and layout != name:
            raise InputError(f"-T data={name} is read with its own layout; -T layout={layout} does not apply")
        if registered.hub_repo is None:
            raise InputError(
                f"{name} cannot be downloaded here: {registered.obtain}. Then pass the folder: -T data=FOLDER"
            )
        from radiology_tasks.core import hub

        folder, pinned = hub.fetch(registered, revision)
        local = resolve_local(folder, layout=name, origin="hub", revision=pinned)
        return ResolvedData(
            local.layout, local.files, name, "hub", revision=pinned, base_dir=folder, recognised_by="dataset name"
        )
    path = Path(name).expanduser()
    if not path.exists():
        raise InputError(
            f"'{name}' is neither a registered dataset nor an existing file or folder; "
            "run `radiology-tasks list` to see the registered datasets and layouts"
        )
    if revision is not None:
        raise InputError("-T revision applies to hub datasets; a local copy is pinned by its files' SHA-256")
    return resolve_local(path, layout=layout)


def _with_expert_scale(rows: Iterable[Row], scale: ExpertScale | None) -> Iterator[Row]:
    """The rows with the scale's ends as `expert_score_min` / `expert_score_max`.

    `-T expert_scale` replaces what the data says; a layout's scale fills only what the data leaves out.
    """
    for number, row in rows:
        if scale is not None:
            if scale.set_by == "-T expert_scale" or row.get("expert_score_min") is None:
                row = {**row, "expert_score_min": scale.low}
            if scale.set_by == "-T expert_scale" or row.get("expert_score_max") is None:
                row = {**row, "expert_score_max": scale.high}
        yield number, row


def _expert_scale(data: ResolvedData, override: tuple[float, float] | None) -> ExpertScale | None:
    if override is not None:
        return ExpertScale(*override, set_by="-T expert_scale")
    if data.layout.expert_scale is not None:
        return ExpertScale(*data.layout.expert_scale, set_by=f"layout {data.layout.name}")
    return None


def load_pairs(
    data: str | None = None,
    *,
    candidates: str | None = None,
    reports: str | None = None,
    revision: str | None = None,
    layout: str | None = None,
    track: str | None = None,
    image_root: str | None = None,
    expert_scale: object = None,
    on_bad_rows: OnBadRows = "error",
    images: ImageChoice = "all",
    missing_images: MissingImages = "error",
    require_candidate: bool = False,
    per_study: bool = False,
) -> LoadedPairs:
    """Load report pairs from a registered dataset, a data file or a folder holding a copy of a dataset.

    The keyword form of `load_options`, for commands and tools that have no `DataOptions` yet: the options are
    built (and checked) once here.

    Args:
        data: Registered dataset name (see `radiology-tasks list`), a file, or a folder; None: the demo set.
        candidates: Optional file with the candidates to judge (`id` and `candidate`, a ReXrank prediction
            file, or a `report_generation` log), joined onto the data by id.
        reports: Report file that question-only datasets (CT-FineBench) are joined with.
        revision: Dataset revision for Hugging Face datasets.
        layout: Read the data with this layout instead of recognising it.
        track: The report section(s) the reference is built from, for layouts that have several
            (`findings`, the default, or `findings_impression`).
        image_root: Folder that relative image paths are resolved against (ReXrank's image root); by default
            the data file's folder (the dataset's folder for a copy of a dataset).
        expert_scale: The expert-score scale to read the data with (`MIN,MAX`), replacing the layout's and the
            data's.
        on_bad_rows: `error` stops at the first bad row; `skip` leaves it out and records it.
        images: With `per_study`, the images of each study the model under test is sent (`all` or `key`).
        missing_images: With `per_study`, what an image file that does not exist does (`error` or `omit`).
        require_candidate: Every pair must end up with a candidate report (replayed runs).
        per_study: Fold the pairs into studies (see `load_options`).

    Raises:
        DataError: for a bad row under `on_bad_rows="error"`, or a file that cannot be read.
        InputError: for an unknown dataset name, or options that are malformed or do not apply to the data.
    """
    options = DataOptions(
        data,
        candidates=candidates,
        reports=reports,
        revision=revision,
        layout=layout,
        track=track,
        image_root=image_root,
        expert_scale=expert_scale,
        on_bad_rows=on_bad_rows,
        images=images,
        missing_images=missing_images,
    )
    return load_options(options, require_candidate=require_candidate, per_study=per_study)


def _check_layout_options(options: DataOptions, resolved: ResolvedData) -> None:
    """Refuse `-T reports` and `-T track` on data whose layout has no use for them."""
    if options.reports is not None and not resolved.layout.takes_reports:
        raise InputError(
            "-T reports=... applies only to question datasets such as ct-finebench, not to "
            f"{resolved.label} ({resolved.layout.name} layout)"
        )
    if options.track is not None and not resolved.layout.uses_track:
        raise InputError(f"-T track applies to data with several report sections (rexrank), not to {resolved.label}")


def _join_generation_log(
    studies: list[ReportPair], path: Path, resolved: ResolvedData
) -> tuple[list[ReportPair], dict[str, Any]]:
    """The studies a generation log wrote a report for, each with it as the candidate, and the log's record."""
    log = read_generation_log(path)
    joined = join_generated(studies, log, resolved.label, resolved.fingerprint()["data_sha256"])
    # Studies the generation run's own seed and limit left out: no report was written for them.
    return joined, {**log.record(), "studies_not_generated": len(studies) - len(joined)}


def load_options(options: DataOptions, *, require_candidate: bool = False, per_study: bool = False) -> LoadedPairs:
    """The report pairs `options` name: locate the data, read its rows with its layout, validate each row into a
    pair, fold pairs into studies when asked, and join candidates from a separate file or a generation log.

    Args:
        options: The data options, checked when they were built (`DataOptions`).
        require_candidate: Every pair must end up with a candidate report (replayed runs).
        per_study: Fold the pairs into studies, one pair each with no candidate (see `studies`), for the model
            under test to write one report per study, with the images it is sent chosen and checked (see
            `study_images`). A generation log as `candidates` folds them too.

    Raises:
        DataError: for a bad row under `on_bad_rows="error"`, or a file that cannot be read.
        InputError: for an unknown dataset name, or options that do not apply to the data.
    """
    collector = _Collector(options.on_bad_rows)
    resolved = resolve_data(options.data, layout=options.layout, revision=options.revision)
    _check_layout_options(options, resolved)
    scale = _expert_scale(resolved, options.expert_scale)
    layout_input = resolved.input(options)
    rows = _with_expert_scale(resolved.layout.read(layout_input), scale)
    base_dir = options.image_folder or resolved.base_dir
    # Question-only data: the rows are the user's reports file, and its problems are named by that file.
    reports = options.reports_file
    source = str(reports) if resolved.layout.takes_reports and reports else resolved.label
    candidates = options.candidates
    pairs, rows_read, row_of = _pairs_from_rows(rows, source, collector, base_dir, require_candidate and not candidates)
    generation = studies = images = None
    from_log = candidates is not None and is_inspect_log(Path(candidates).expanduser())
    if from_log or per_study:
        folded = fold_studies(pairs)
        pairs, studies = folded.pairs, folded.summary()
    if per_study:
        sent = study_images(pairs, options, source=source, row_of=row_of, bad=collector.bad)
        pairs, images = sent.pairs, sent.summary()
    elif (options.images, options.missing_images) != ("all", "error"):
        raise InputError(
            "-T images and -T missing_images apply when the model under test writes the reports "
            "(report_generation, or -T generate=true)"
        )
    if candidates is not None and from_log:
        pairs, generation = _join_generation_log(pairs, Path(candidates).expanduser(), resolved)
    elif candidates is not None:
        pairs = _join_candidates(pairs, Path(candidates).expanduser(), collector, options)
    if not pairs:
        raise DataError(resolved.label, None, None, "no usable rows")
    return LoadedPairs(
        source=resolved.label,
        pairs=pairs,
        rows_read=rows_read,
        data=resolved,
        skipped=collector.skipped,
        expert_scale=scale,
        track=options.reference_track if resolved.layout.uses_track else None,
        left_out=layout_input.left_out,
        generation=generation,
        studies=studies,
        unused=layout_input.unused,
        images=images,
    )
