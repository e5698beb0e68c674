"""The data half of every task: `-T data/candidates/reports/revision/layout/track/...` into a dataset."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, get_args

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.generation_log import generator_of
from radiology_tasks.core.layouts import TRACKS, ResolvedData
from radiology_tasks.core.loading import LoadedPairs, OnBadRows, load_options, parse_expert_scale, resolve_data
from radiology_tasks.core.params import bool_param, choice_param, int_param, text_param
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.report_input import generation_prompt
from radiology_tasks.core.solvers import DEFAULT_REPORT_MAX_TOKENS
from radiology_tasks.core.tables import file_sha256
from radiology_tasks.core.task_options import option


@dataclass(frozen=True)
class DataOptions:
    """The data parameters the tasks share: what is read, how, and which of its reports are judged.

    Each field is one `-T` parameter, documented once here (the `doc` of its metadata, which the README's
    parameter tables and a task's `Args:` fall back on; a task documents a field itself only where it means more
    there). A task takes all or some of them through `radiology_tasks.core.task_options.shared_parameters`.

    The values are checked when the options are built, since they come from `-T` as YAML may have read them:
    a bad one raises `InputError` naming the parameter, which `inspect eval` prints as one line.
    """

    data: str | None = option(
        None,
        "Registered dataset name (`radiology-tasks list`), a `.jsonl`/`.csv` file of report pairs or a public "
        "dataset's own file, or a folder holding a downloaded copy of a public dataset. Not set: the bundled `demo` "
        "set.",
    )
    candidates: str | None = option(
        None,
        "The candidates to judge, joined to the data by id: a `.jsonl`/`.csv` file with `id` and `candidate`, a "
        "ReXrank prediction file, or a generation log (the `.eval` log of the task that only writes reports; its "
        "generator and settings are recorded). Not set: the data's own candidates.",
    )
    reports: str | None = option(
        None, "Your report file, joined by id, for a dataset that holds questions only (`ct-finebench`)."
    )
    revision: str | None = option(
        None,
        "Hugging Face revision (commit, tag or `main`) of a registered hub dataset. Not set: the pinned commit.",
    )
    limit: int | None = option(None, "Number of samples, taken after shuffling when `seed` is set. Not set: all.")
    seed: int | None = option(
        None, "Shuffle the samples with this seed before `limit` applies. Not set: the data's order."
    )
    on_bad_rows: OnBadRows = option(
        "error",
        "`error` stops at the first bad row, naming file, row and field; `skip` leaves it out, counted with its "
        "reason in the log (`data.rows_skipped`).",
    )
    layout: str | None = option(
        None,
        "Read `data` with this layout instead of recognising it from file names and columns: `flat`, `rate-eval`, "
        "`radeval-expert`, `rexval`, `ct-finebench` or `rexrank`.",
    )
    track: str | None = option(
        None,
        "For ReXrank prediction files, the reference: `findings` (the findings section, also when not set) or "
        "`findings_impression` (both sections, joined as ReXrank joins them).",
    )
    image_root: str | None = option(
        None,
        "Folder the data's image paths are relative to (ReXrank's `--img_root_dir`). Not set: the data file's folder.",
    )
    expert_scale: Any = option(
        None,
        "`MIN,MAX`: the scale expert scores are read on, replacing the layout's or the file's (recorded as "
        "`data.expert_scale`). Not set: the layout's or the file's scale.",
    )
    generate: bool = option(
        False,
        "`true`: the model under test (`--model`) writes one report per study (pairs sharing a reference and its "
        "inputs; the sample id is the first pair's) from its indication, findings text and images; stored "
        "candidates and expert scores go unused, so nothing is compared with experts; `false`: the data's "
        "candidates are replayed, so `--model none` suffices.",
    )
    report_max_tokens: int = option(
        DEFAULT_REPORT_MAX_TOKENS,
        "With `generate=true`, the token budget of each generated report; a `--max-tokens` you give takes precedence.",
    )

    def __post_init__(self) -> None:
        # Frozen: checked values replace the raw ones the way dataclasses themselves set fields.
        for name in ("data", "candidates", "reports", "revision", "layout", "track", "image_root"):
            object.__setattr__(self, name, text_param(name, getattr(self, name)))
        object.__setattr__(self, "limit", int_param("limit", self.limit, minimum=1))
        object.__setattr__(self, "seed", int_param("seed", self.seed))
        object.__setattr__(self, "expert_scale", parse_expert_scale(self.expert_scale))
        object.__setattr__(self, "generate", bool_param("generate", self.generate))
        object.__setattr__(
            self, "report_max_tokens", int_param("report_max_tokens", self.report_max_tokens, minimum=1, required=True)
        )
        choice_param("on_bad_rows", self.on_bad_rows, get_args(OnBadRows))
        if self.track is not None:
            choice_param("track", self.track, TRACKS)
        if self.generate and self.candidates:
            raise InputError(
                f"-T generate=true has the model under test write the reports, and -T candidates={self.candidates} "
                "gives them: use one (a report_generation log as -T candidates judges reports generated once)"
            )

    @property
    def reference_track(self) -> str:
        """The report section(s) a reference is built from, for data that has several: `findings` when not set."""
        return self.track or TRACKS[0]

    @property
    def image_folder(self) -> Path | None:
        """`image_root` as a folder (the user's `~` expanded), or None."""
        return None if self.image_root is None else Path(self.image_root).expanduser()

    @property
    def reports_file(self) -> Path | None:
        """`reports` as a file (the user's `~` expanded), or None."""
        return None if self.reports is None else Path(self.reports).expanduser()

    def load(self, *, require_candidate: bool = False, per_study: bool = False) -> LoadedPairs:
        """The report pairs these options name (before shuffling and the limit); `per_study`: one per study."""
        return load_options(self, require_candidate=require_candidate, per_study=per_study)


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
    loaded = options.load(require_candidate=require_candidate and not options.generate, per_study=options.generate)
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
