"""The bundled 21-label finding taxonomy (`radiology_tasks/data/taxonomy.yaml`), shared data.

Ran Score judges its labels when `-T taxonomy` is not given, and judge sensitivity's fact checks read its finding
words; neither family owns the file, so both read it from here.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from radiology_tasks.core.catalog import bundled_path
from radiology_tasks.scorers.taxonomy import Taxonomy, parse_taxonomy

BUNDLED_TAXONOMY = "taxonomy.yaml"
"""The file name of the bundled taxonomy in `radiology_tasks/data`."""


def bundled_taxonomy_path() -> Path:
    """Path of the bundled 21-label taxonomy."""
    return bundled_path(BUNDLED_TAXONOMY)


def bundled_taxonomy() -> Taxonomy:
    """The bundled taxonomy, validated (a broken bundled file is a packaging fault: `TaxonomyError`)."""
    path = bundled_taxonomy_path()
    return parse_taxonomy(yaml.safe_load(path.read_text(encoding="utf-8")), str(path))
