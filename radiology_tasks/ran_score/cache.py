"""The on-disk cache of reference labels: each reference report is read by a given judge and prompt only once.

Layout: ``<root>/<judge>/<setup>/<report>.json``, where ``<judge>`` is the judge's name with a hash of its
model arguments and generate config, ``<setup>`` a hash of everything that shapes the judge's answer besides
the report (rendered prompt templates, taxonomy, extraction mode, output constraint, temperature) and
``<report>`` the SHA-256 of the reference text. A different judge, prompt or taxonomy therefore never reuses
another's labels. Only complete readings (every asked label read) are stored.

``<root>`` is ``-T label_cache=DIR``, by default ``$XDG_CACHE_HOME/radiology-tasks/ran_score/reference_labels``
(``~/.cache/...`` without XDG_CACHE_HOME); ``-T label_cache=off`` switches the cache off. Clear it by deleting
the directory, or one judge's subdirectory.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from radiology_tasks.core.errors import InputError

logger = logging.getLogger(__name__)

CACHE_OFF = "off"


def default_cache_root() -> Path:
    """Where reference labels are cached unless `-T label_cache` says otherwise."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "radiology-tasks" / "ran_score" / "reference_labels"


def cache_root(label_cache: str | bool | None) -> Path | None:
    """The cache directory for `-T label_cache` (None: the default; ``off``: no cache).

    Inspect reads `-T` values as YAML, where ``off`` (like ``no`` and ``false``) is the boolean False: that is
    ``off`` too, and True is the default cache.

    Raises:
        InputError: a value that is neither text nor a boolean.
    """
    if label_cache is False or label_cache == CACHE_OFF:
        return None
    if label_cache is None or label_cache is True or label_cache == "":
        return default_cache_root()
    if not isinstance(label_cache, str):
        raise InputError(f"-T label_cache must be a directory or off, got {label_cache!r}")
    return Path(label_cache).expanduser()


def digest(value: Any) -> str:
    """SHA-256 of a JSON-able value (keys sorted), as hex."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, ensure_ascii=False, default=str).encode()).hexdigest()


@dataclass(frozen=True)
class CachedLabels:
    """A complete reading of one reference report."""

    labels: dict[str, int]
    evidence: dict[str, str]


@dataclass(frozen=True)
class LabelCache:
    """The reference-label cache of one judge and one extraction setup.

    Attributes:
        directory: ``<root>/<judge>/<setup>``, or None when caching is off.
    """

    directory: Path | None

    @classmethod
    def for_setup(cls, root: Path | None, judge: str, judge_identity: Any, setup: Any) -> LabelCache:
        """The cache of `judge` (with its identity: model args, config) and an extraction `setup`."""
        if root is None:
            return cls(None)
        name = re.sub(r"[^A-Za-z0-9._-]+", "_", judge).strip("_")[:80]
        return cls(root / f"{name}-{digest(judge_identity)[:8]}" / digest(setup)[:16])

    def _file(self, report: str) -> Path | None:
        if self.directory is None:
            return None
        return self.directory / f"{hashlib.sha256(report.encode()).hexdigest()}.json"

    def load(self, report: str) -> CachedLabels | None:
        """The cached labels of `report`, or None (not cached, caching off, or an unreadable entry)."""
        path = self._file(report)
        if path is None or not path.is_file():
            return None
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            labels = {str(k): int(v) for k, v in entry["labels"].items() if v in (0, 1)}
            if len(labels) != len(entry["labels"]):
                raise ValueError("a label is not 0/1")
            return CachedLabels(labels, {str(k): str(v) for k, v in entry["evidence"].items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
            logger.warning("ignoring unreadable label cache entry %s: %s", path, error)
            return None

    def store(self, report: str, labels: dict[str, int], evidence: dict[str, str], judge: str) -> Path | None:
        """Store a complete reading of `report`; returns the file written (None when caching is off)."""
        path = self._file(report)
        if path is None:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        entry = {"judge": judge, "labels": labels, "evidence": evidence}
        # Written beside the target and renamed, so a reader never sees half an entry.
        partial = path.with_suffix(f".{os.getpid()}.tmp")
        partial.write_text(json.dumps(entry, ensure_ascii=False, indent=1), encoding="utf-8")
        os.replace(partial, path)
        return path
