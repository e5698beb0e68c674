"""The data parameters every task shares (`-T data/candidates/reports/revision/layout/track/...`), checked.

`DataOptions` sits below the modules that read data (`loading`, `layouts`), which take it as their input; building
a dataset from it is `radiology_tasks.core.loading.load_options`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.params import bool_param, choice_param, int_param, text_param
from radiology_tasks.core.solvers import DEFAULT_REPORT_MAX_TOKENS
from radiology_tasks.core.task_options import option

OnBadRows = Literal["error", "skip"]
"""What a bad row does: `error` stops, `skip` leaves it out and records why."""

TRACKS = ("findings", "findings_impression")
"""The report sections a reference can be built from (ReXrank's tracks)."""

ImageChoice = Literal["all", "key"]
"""Which images of a study the model under test is sent: all of them, or the one a single-image model takes."""

MissingImages = Literal["error", "omit"]
"""What an image file that does not exist does when the model under test writes the reports."""


def parse_expert_scale(value: object) -> tuple[float, float] | None:
    """`-T expert_scale=MIN,MAX` (YAML may have made it a list of numbers) as two numbers, or None.

    Raises:
        InputError: unless it is two numbers with MIN below MAX.
    """
    if value is None:
        return None
    parts = value if isinstance(value, list | tuple) else str(value).split(",")
    try:
        low, high = (float(p) for p in parts)
    except (TypeError, ValueError):
        raise InputError(f"-T expert_scale must be MIN,MAX (two numbers), got {value!r}") from None
    if not low < high:
        raise InputError(f"-T expert_scale must be MIN,MAX with MIN below MAX, got {value!r}")
    return low, high


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
        "generator and settings are recorded); where the data has candidates of its own, their expert annotations go "
        "unused (they describe other reports). Not set: the data's own candidates.",
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
        "`radeval-expert`, `rexval`, `ct-finebench`, `radpref` or `rexrank`.",
    )
    track: str | None = option(
        None,
        "For ReXrank prediction files, the reference: `findings` (the findings section, also when not set) or "
        "`findings_impression` (both sections, joined as ReXrank joins them). A generator is asked for the same "
        "section(s).",
    )
    image_root: str | None = option(
        None,
        "Folder the data's relative image paths are resolved against (ReXrank's `--img_root_dir`; the leading `/` "
        "of its MIMIC-CXR paths is dropped). Not set: the data file's folder.",
    )
    expert_scale: Any = option(
        None,
        "`MIN,MAX`: the scale expert scores are read on, replacing the layout's or the file's (recorded as "
        "`data.expert_scale`). Not set: the layout's or the file's scale.",
    )
    generate: bool = option(
        False,
        "`true`: the model under test (`--model`) writes one report per study (pairs sharing a reference and its "
        "inputs; the sample id is the first pair's) from what the data gives it (the section asked for, the patient, "
        "indication, comparison, findings text, images with their views, the prior study); stored "
        "candidates and expert scores go unused, so nothing is compared with experts; `false`: the data's "
        "candidates are replayed, so `--model none` suffices.",
    )
    report_max_tokens: int = option(
        DEFAULT_REPORT_MAX_TOKENS,
        "With `generate=true`, the token budget of each generated report; a `--max-tokens` you give takes precedence.",
    )
    images: ImageChoice = option(
        "all",
        "When the model under test writes the reports, the images of each study it is sent: `all`, in the data's "
        "order; `key`, one image for models that take a single image: the study's key image (ReXrank's "
        "`key_image_path`, the flat `key_image` column), else its first frontal view, else its only image (prior "
        "images are then not sent). Recorded as `data.images.choice`.",
    )
    missing_images: MissingImages = option(
        "error",
        "When the model under test writes the reports, an image file that does not exist: `error` stops before any "
        "request, naming the study and the file; `omit` sends the study without it, each image left out named in "
        "the log (`data.images.omitted`).",
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
        choice_param("images", self.images, get_args(ImageChoice))
        choice_param("missing_images", self.missing_images, get_args(MissingImages))
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
