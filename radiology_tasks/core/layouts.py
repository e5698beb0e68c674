"""Data layouts: how each known dataset's files look, how they are recognised, and how their rows are read.

Data flows one way: a file or folder (a local copy, or the files fetched from the Hugging Face hub) -> its
layout (recognised here once, or forced with `-T layout=NAME`) -> flat rows (`rows.pair_from_row`'s columns)
-> report pairs -> samples. A layout lives in the package that owns it (declared in its family's descriptor) and
serves the hub path and the local path alike, so a dataset's mapping exists once.

Recognition, for `-T data=PATH`:

* a folder: the layouts whose files are all there (by their path in the dataset's repository, or by file
  name anywhere below the folder); exactly one must match;
* a file: a layout whose file name it has, else one whose columns it has; a file that shares a known
  layout's name or most of its columns but lacks some gets one line naming the layout and what is missing;
  any other `.jsonl` / `.csv` file is read in the project's own `flat` layout.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

from radiology_tasks.core.data_options import DataOptions
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.tables import TABLE_SUFFIXES, DataError, column_names, file_sha256

Row = tuple[int, dict[str, Any]]
Origin = Literal["bundled", "hub", "local"]

# The modules that define a `LAYOUT`; imported when layouts are first needed, never by the plugin registry.
_SHARED_LAYOUT_MODULES = ("radiology_tasks.core.rexrank",)
"""Layouts no single family owns (generators' outputs in another leaderboard's format); each family declares its
own datasets' layouts in its descriptor (`radiology_tasks.core.family.Family.layouts`)."""


@dataclass(frozen=True)
class DataFile:
    """One file of a layout.

    Attributes:
        role: What the file holds, as the layout's reader asks for it (e.g. `table`, `errors`).
        pattern: Its path in the dataset's repository or archive (a glob), e.g. `Task2_paragraph_rate/rate_test.csv`.
        columns: The columns (or JSON keys) the file must have.
        many: Whether the pattern may match several files, all of which are read.
        named: Whether the file name identifies the layout; a generic name (`*.json`) is recognised by the
            file's columns alone, and never in a folder.
    """

    role: str
    pattern: str
    columns: tuple[str, ...] = ()
    many: bool = False
    named: bool = True

    @property
    def file_name(self) -> str:
        """The pattern's last part, which a copy outside the repository's folders still has."""
        return self.pattern.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class LayoutInput:
    """What a layout's reader gets: its files by role, a name for messages, and the options.

    A reader that leaves out a record that is not a report pair of this data (a study without the section the
    track needs) appends `{"row": ..., "id": ..., "reason": ...}` to `left_out`; one that cannot use a field of a
    record it keeps (views that cannot be matched to the images) appends `{"row", "id", "field", "reason"}` to
    `unused`. The task counts both.
    """

    label: str
    files: Mapping[str, Sequence[Path]]
    options: DataOptions
    left_out: list[dict[str, Any]] = field(default_factory=list)
    unused: list[dict[str, Any]] = field(default_factory=list)

    def one(self, role: str) -> Path:
        """The single file of `role`."""
        return self.files[role][0]


@dataclass(frozen=True)
class Layout:
    """A known data layout.

    Attributes:
        name: What `-T layout=` takes, and what logs and leaderboards record.
        description: One line for `radiology-tasks list`.
        files: The files a copy of the dataset holds.
        read: Builds the flat rows from the files.
        hub_repo: The Hugging Face dataset repository, when `-T data=<name>` fetches it from the hub.
        hub_revision: The commit read when no `-T revision` is given.
        expert_scale: The scale the dataset's expert scores are read with, when it has one.
        obtain: Where users get the files, for messages about a dataset that cannot be fetched here.
        takes_reports: Whether the layout joins a `-T reports=FILE` (question-only datasets).
        uses_track: Whether `-T track` chooses the reference's sections.
        candidates: Reads a file of this layout as candidates (rows with `id` and `candidate`), for layouts that
            hold generators' reports (`-T candidates=FILE`).
        credentialed: The dataset's licence forbids passing its reports on (PhysioNet's credentialed access,
            MIMIC-CXR and the sets built from it, gated sets such as CT-RATE): `radiology-tasks submit` then
            replaces the texts of its runs' logs by their hashes unless told otherwise.
    """

    name: str
    description: str
    files: tuple[DataFile, ...]
    read: Callable[[LayoutInput], Iterator[Row]]
    hub_repo: str | None = None
    hub_revision: str | None = None
    expert_scale: tuple[float, float] | None = None
    obtain: str | None = None
    takes_reports: bool = False
    uses_track: bool = False
    candidates: Callable[[LayoutInput], Iterator[Row]] | None = None
    credentialed: bool = False


def _flat_rows(source: LayoutInput) -> Iterator[Row]:
    from radiology_tasks.core.rows import read_rows

    return read_rows(source.one("table"))


FLAT = Layout(
    name="flat",
    description="The project's own layout: one report pair per JSONL/CSV row (id, reference, candidate, ...)",
    files=(DataFile("table", "*.jsonl"),),
    read=_flat_rows,
    candidates=_flat_rows,
)


@cache
def all_layouts() -> dict[str, Layout]:
    """Every known layout by name, `flat` first."""
    from radiology_tasks.core.family import families

    modules = [module for family in families() for module in family.layouts]
    layouts = [FLAT]
    for module in (*modules, *_SHARED_LAYOUT_MODULES):
        layouts.append(importlib.import_module(module).LAYOUT)
    return {layout.name: layout for layout in layouts}


def layout_named(name: str) -> Layout:
    """The layout called `name`.

    Raises:
        InputError: naming the known layouts.
    """
    layouts = all_layouts()
    if name not in layouts:
        raise InputError(f"-T layout must be one of {', '.join(layouts)}; got {name!r}")
    return layouts[name]


@dataclass(frozen=True)
class ResolvedData:
    """Data located and recognised: its layout, its files by role, and where it came from."""

    layout: Layout
    files: dict[str, list[Path]]
    label: str
    origin: Origin
    revision: str | None = None
    base_dir: Path | None = None
    recognised_by: str = "name"

    def input(self, options: DataOptions) -> LayoutInput:
        """The layout reader's input."""
        return LayoutInput(self.label, self.files, options)

    def rows(self, options: DataOptions) -> Iterator[Row]:
        """The flat rows of the data (records the layout leaves out are not counted here: see `input`)."""
        return self.layout.read(self.input(options))

    def fingerprint(self) -> dict[str, Any]:
        """What pins this data: the layout, each file's SHA-256, and one `data_sha256` for them all.

        `data_sha256` is the file's own SHA-256 when the layout has one file, else the SHA-256 of the sorted
        `name<TAB>sha256` lines of its files (names without folders). A copy of a hub dataset therefore hashes
        as the hub revision it was downloaded from, whichever way it reached this machine.
        """
        hashes = {path.name: file_sha256(path) for paths in self.files.values() for path in paths}
        if len(hashes) == 1:
            combined = next(iter(hashes.values()))
        else:
            lines = "".join(f"{name}\t{digest}\n" for name, digest in sorted(hashes.items()))
            combined = hashlib.sha256(lines.encode()).hexdigest()
        return {
            "layout": self.layout.name,
            "origin": self.origin,
            "recognised_by": self.recognised_by,
            "data_sha256": combined,
            "files": hashes,
            "revision": self.revision,
        }


def _is_table(path: Path) -> bool:
    return path.suffix.lower() in TABLE_SUFFIXES


def _find(folder: Path, data_file: DataFile) -> list[Path]:
    """The files of `data_file` in a copy of its dataset: by repository path, else by name anywhere below."""
    found = sorted(p for p in folder.glob(data_file.pattern) if p.is_file())
    if not found:
        found = sorted(p for p in folder.rglob(data_file.file_name) if p.is_file() and ".git" not in p.parts)
    return found


def _files_in(folder: Path, layout: Layout, label: str) -> dict[str, list[Path]] | None:
    """The layout's files in `folder` by role, or None when one is missing.

    Raises:
        InputError: when a single-file role matches several files.
    """
    files: dict[str, list[Path]] = {}
    for data_file in layout.files:
        found = _find(folder, data_file)
        if not found:
            return None
        if len(found) > 1 and not data_file.many:
            names = ", ".join(str(p.relative_to(folder)) for p in found)
            raise InputError(f"{label}: several files could be the {layout.name} {data_file.role} file ({names})")
        files[data_file.role] = found
    return files


def _check_columns(layout: Layout, files: Mapping[str, Sequence[Path]]) -> None:
    """Every file has its layout's columns, or one line names the layout, the file and the columns missing."""
    for data_file in layout.files:
        for path in files.get(data_file.role, ()):
            missing = [c for c in data_file.columns if c not in column_names(path)]
            if missing:
                raise InputError(
                    f"{path} looks like the {layout.name} layout's {data_file.role} file but lacks the column"
                    f"{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
                )


def _known(layouts: Mapping[str, Layout]) -> list[Layout]:
    return [layout for name, layout in layouts.items() if name != "flat"]


def _siblings(path: Path, layout: Layout, role: str, label: str) -> dict[str, list[Path]]:
    """The layout's files when the user named one of them: that file for `role`, the others beside it."""
    files = {role: [path]}
    for data_file in layout.files:
        if data_file.role == role:
            continue
        found = sorted(p for p in path.parent.glob(data_file.file_name) if p.is_file())
        if len(found) != 1:
            raise InputError(
                f"{label}: the {layout.name} layout also needs its {data_file.role} file "
                f"'{data_file.file_name}' in the same folder"
                + (f" (found {len(found)})" if found else "")
                + "; pass the folder with -T data=FOLDER"
            )
        files[data_file.role] = found
    return files


def _recognise_file(path: Path, label: str) -> tuple[Layout, dict[str, list[Path]], str]:
    if not _is_table(path):
        raise DataError(label, None, None, f"unsupported file type; use one of {', '.join(TABLE_SUFFIXES)}")
    layouts = all_layouts()
    for layout in _known(layouts):
        for data_file in layout.files:
            if data_file.named and fnmatch.fnmatch(path.name, data_file.file_name):
                files = _siblings(path, layout, data_file.role, label)
                _check_columns(layout, files)
                return layout, files, "file name"
    columns = column_names(path)
    full = [
        (layout, data_file)
        for layout in _known(layouts)
        for data_file in layout.files
        if data_file.columns and set(data_file.columns) <= columns
    ]
    if len(full) == 1:
        layout, data_file = full[0]
        files = _siblings(path, layout, data_file.role, label)
        _check_columns(layout, files)
        return layout, files, "columns"
    if len(full) > 1:
        names = ", ".join(sorted({layout.name for layout, _ in full}))
        raise InputError(f"{label} has the columns of several layouts ({names}); choose one with -T layout=NAME")
    if "reference" not in columns:
        for layout in _known(layouts):
            for data_file in layout.files:
                present = [c for c in data_file.columns if c in columns]
                if len(data_file.columns) >= 2 and 2 * len(present) >= len(data_file.columns):
                    missing = [c for c in data_file.columns if c not in columns]
                    raise InputError(
                        f"{label} looks like the {layout.name} layout's {data_file.role} file but lacks the "
                        f"column{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
                    )
    if path.suffix.lower() in {".jsonl", ".ndjson", ".csv"}:
        return FLAT, {"table": [path]}, "default"
    shown = ", ".join(sorted(columns)[:12]) or "none readable"
    raise InputError(
        f"{label}: not a layout this project knows (columns or keys found: {shown}); use a JSONL or CSV file "
        f"in the flat layout (id, reference, candidate, ...) or one of the layouts of `radiology-tasks list`"
    )


def _recognise_folder(folder: Path, label: str) -> tuple[Layout, dict[str, list[Path]], str]:
    matches = []
    for layout in _known(all_layouts()):
        if not all(data_file.named for data_file in layout.files):
            continue
        files = _files_in(folder, layout, label)
        if files is not None:
            matches.append((layout, files))
    if len(matches) == 1:
        layout, files = matches[0]
        _check_columns(layout, files)
        return layout, files, "file names"
    if len(matches) > 1:
        names = ", ".join(layout.name for layout, _ in matches)
        raise InputError(f"{label} holds the files of several layouts ({names}); choose one with -T layout=NAME")
    tables = sorted(p for p in folder.iterdir() if p.is_file() and _is_table(p))
    if len(tables) == 1:
        return _recognise_file(tables[0], label)
    expected = "; ".join(
        f"{layout.name}: {', '.join(f.pattern for f in layout.files)}" for layout in _known(all_layouts())
    )
    raise InputError(
        f"{label} is a folder without the files of any known layout ({expected}); pass a file, or a folder "
        "holding one data file in the flat layout"
    )


def _forced(path: Path, layout: Layout, label: str) -> dict[str, list[Path]]:
    if layout is FLAT:
        if path.is_dir():
            raise InputError(f"{label}: the flat layout reads one file; pass -T data=FILE")
        return {"table": [path]}
    if path.is_dir():
        files = _files_in(path, layout, label)
        if files is None:
            wanted = ", ".join(f.pattern for f in layout.files)
            raise InputError(f"{label} lacks the {layout.name} layout's files ({wanted})")
    else:
        role = next((f.role for f in layout.files if fnmatch.fnmatch(path.name, f.file_name)), layout.files[0].role)
        files = _siblings(path, layout, role, label)
    _check_columns(layout, files)
    return files


def resolve_local(path: Path, *, layout: str | None = None, origin: Origin = "local", **extra: Any) -> ResolvedData:
    """Recognise the layout of a local file or folder (or use the forced one) and find its files.

    Args:
        path: A data file, or a folder holding a copy of a dataset.
        layout: A layout name from `-T layout`, or None to recognise it.
        origin: Where the copy came from, recorded in the fingerprint.
        extra: `revision`, for files fetched from the hub.

    Raises:
        InputError: one line, when no layout fits, several do, or a file lacks its layout's columns.
    """
    label = str(path)
    if layout is not None:
        chosen = layout_named(layout)
        files, how = _forced(path, chosen, label), "-T layout"
    elif path.is_dir():
        chosen, files, how = _recognise_folder(path, label)
    else:
        chosen, files, how = _recognise_file(path, label)
    base = path if path.is_dir() else path.parent
    return ResolvedData(chosen, files, label, origin, base_dir=base, recognised_by=how, **extra)


def registered_layouts() -> list[Layout]:
    """The layouts users can name as `-T data=<name>` (hub datasets and datasets users download themselves)."""
    return [layout for layout in _known(all_layouts()) if layout.hub_repo or layout.obtain]
