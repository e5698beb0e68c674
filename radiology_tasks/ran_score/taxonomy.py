"""Loading the finding taxonomy: the bundled `taxonomy.yaml`, or the user's file given with `-T taxonomy=PATH`."""

from __future__ import annotations

import hashlib
from pathlib import Path

import yaml

from radiology_tasks.core.errors import InputError
from radiology_tasks.scorers.bundled_taxonomy import bundled_taxonomy_path
from radiology_tasks.scorers.taxonomy import Taxonomy, TaxonomyError, parse_taxonomy


def load_taxonomy(path: str | None = None) -> Taxonomy:
    """Read and validate a taxonomy file (YAML or JSON); None reads the bundled one.

    Raises:
        InputError: one line naming the file, the label entry and the field at fault.
    """
    source = Path(path).expanduser() if path else bundled_taxonomy_path()
    if not source.is_file():
        raise InputError(f"-T taxonomy: no such file {source}")
    try:
        data = yaml.safe_load(source.read_text(encoding="utf-8"))
    except yaml.YAMLError as error:
        raise InputError(f"{source}: not valid YAML or JSON ({' '.join(str(error).split())})") from None
    try:
        return parse_taxonomy(data, str(source))
    except TaxonomyError as error:
        raise InputError(str(error)) from None


def taxonomy_digest(taxonomy: Taxonomy) -> str:
    """A short hash of everything the taxonomy says, recorded in logs and part of the label cache key."""
    return hashlib.sha256(taxonomy.model_dump_json().encode()).hexdigest()[:16]
