"""A submission bundle's `manifest.json`, read as untrusted input.

One typed model checks every field of the manifest (types, hashes, the track, no field it does not know), and
every path the manifest names must lie inside the bundle once symlinks and ``..`` are resolved: `read_bundle` is
the only way the leaderboard, `verify` and `submit --replace` read a bundle. `submit` validates the manifest it
writes with the same model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator

from radiology_tasks.core.records import not_blank
from radiology_tasks.leaderboard import TRACKS

MANIFEST = "manifest.json"
MANIFEST_VERSION = "1"
SYSTEM_NAME_CHARS = 200
"""The longest system name a bundle may give (the boards show it in a table cell)."""

Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
Name = Annotated[str, StringConstraints(max_length=SYSTEM_NAME_CHARS)]


class _Record(BaseModel):
    """A part of the manifest: every field typed, none other allowed, nothing converted."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class SystemInfo(_Record):
    """What the submitter says about the system; a name not given is the run's own (the model or candidates)."""

    name: Annotated[Name | None, not_blank("a system name needs a character other than white space")] = None
    institution: str | None = None
    paper: str | None = None
    code: str | None = None
    description: str | None = None


class RedactionNote(_Record):
    """Why the bundle's logs hold hashes where texts were, and what was kept."""

    reason: str
    what: str


class RedactionRecord(_Record):
    """What a redacted log records about itself (`radiology_tasks.leaderboard.redact.Redaction.record`)."""

    text: str
    reason: str
    source_sha256: Sha256
    hashed: int = Field(ge=0)


class RunEntry(_Record):
    """One bundled run. `log` and `sha256` are what the readers use; the rest describes the run as it was checked
    when it was submitted (each reader checks the log again)."""

    log: str = Field(min_length=1)
    sha256: Sha256
    task: str | None = None
    task_version: str | None = None
    score: str | None = None
    mean: float | None = None
    n: int | None = Field(default=None, ge=0)
    n_unscored: int | None = Field(default=None, ge=0)
    dataset: dict[str, Any] | None = None
    judge: dict[str, Any] | None = None
    task_config: dict[str, Any] | None = None
    templates: dict[str, Any] | None = None
    redaction: RedactionRecord | None = None


class Manifest(_Record):
    """The whole manifest. Only `runs` is required (with each run's log and SHA-256)."""

    manifest_version: Literal["1"] | None = None
    created: str | None = None
    radiology_tasks_version: str | None = None
    system: SystemInfo = SystemInfo()
    track: str | None = None
    max_unscored: float | None = Field(default=None, ge=0, le=1)
    redacted: RedactionNote | None = None
    runs: list[RunEntry]

    @field_validator("track")
    @classmethod
    def _known_track(cls, track: str | None) -> str | None:
        if track is not None and track not in TRACKS:
            raise ValueError(f"{track!r} is not a track; one of: {', '.join(TRACKS)}")
        return track


@dataclass(frozen=True)
class Bundle:
    """A bundle as read: its folder, its checked manifest, and each run's log (checked to lie inside the folder)."""

    folder: Path
    manifest: Manifest
    logs: tuple[Path, ...]


def problems(error: ValidationError) -> str:
    """Each field a validation error names, as ``runs[0].sha256: <what is wrong>``, joined by ``; ``."""
    lines = []
    for found in error.errors(include_url=False):
        where = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in found["loc"]).lstrip(".")
        lines.append(f"{where}: {found['msg']}")
    return "; ".join(lines)


def parse_manifest(text: str, path: Path) -> Manifest:
    """The manifest at `path` from its text.

    Raises:
        ValueError: one line naming the file and each field at fault.
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ValueError(f"{path}: not valid JSON ({error})") from error
    if not isinstance(data, dict) or not isinstance(data.get("runs"), list):
        keys = ", ".join(sorted(data)) if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"{path}: needs a list under 'runs' (found: {keys})")
    try:
        return Manifest.model_validate_json(text)
    except ValidationError as error:
        raise ValueError(f"{path}: {problems(error)}") from None


def inside(folder: Path, named: str, field: str) -> Path:
    """The file `named` (relative to `folder`) when it lies inside `folder` after resolving symlinks and ``..``.

    Raises:
        ValueError: naming the bundle, the field and where the path leads.
    """
    where = f"{folder}: {field} {named!r}"
    if Path(named).is_absolute():
        raise ValueError(f"{where} is an absolute path; a bundle names its files relative to its own folder")
    target = (folder / named).resolve()
    if not target.is_relative_to(folder.resolve()):
        raise ValueError(f"{where} leads outside the bundle (to {target}); a bundle names only files inside it")
    return folder / named


def read_bundle(folder: Path) -> Bundle:
    """The bundle in `folder`: its manifest checked field by field, and every log it names checked to lie inside.

    Raises:
        ValueError: one line naming the folder (or its manifest) and the field at fault.
    """
    path = folder / MANIFEST
    if not path.is_file():
        raise ValueError(f"{folder}: a directory but not a submission bundle (no {MANIFEST})")
    manifest = parse_manifest(path.read_text(encoding="utf-8"), path)
    logs = tuple(inside(folder, entry.log, f"runs[{number}].log") for number, entry in enumerate(manifest.runs))
    return Bundle(folder, manifest, logs)
