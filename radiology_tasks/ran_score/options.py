"""Where the Ran Score's labels come from: its own `-T` parameters, checked once when the task is built."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from radiology_tasks.core.params import choice_param
from radiology_tasks.ran_score.cache import cache_root
from radiology_tasks.ran_score.extraction import EXTRACTIONS, Extraction
from radiology_tasks.ran_score.label_files import LabelTable, read_label_file
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from radiology_tasks.scorers.taxonomy import Taxonomy

FILE_SIDES = ("reference", "candidate", "gold")
"""The label sets of a sample: the reference's, the candidate's and the radiologists' reading of the reference."""


@dataclass(frozen=True)
class LabelOptions:
    """The `ran_score` parameters that say how each side's labels are had (each documented in the task's `Args:`).

    Checked when built: a bad `extraction` or `label_cache` raises `InputError` naming the parameter.
    """

    taxonomy: str | None = None
    extraction: Extraction = "batch"
    reference_labels: str | None = None
    candidate_labels: str | None = None
    gold_labels: str | None = None
    label_cache: str | None = None

    def __post_init__(self) -> None:
        checked = choice_param("extraction", self.extraction, EXTRACTIONS)
        object.__setattr__(self, "extraction", cast(Extraction, checked))
        cache_root(self.label_cache)

    def _repr_params_(self) -> dict[str, object]:
        """The fields, as Inspect records a solver's arguments in the log."""
        return dataclasses.asdict(self)

    @property
    def label_files(self) -> dict[str, str | None]:
        """The label table given for each side (`FILE_SIDES`), None where the side is not read from a file."""
        return dict(zip(FILE_SIDES, (self.reference_labels, self.candidate_labels, self.gold_labels), strict=True))

    @property
    def labels_only(self) -> bool:
        """Both sides come from label tables: no judge and no report text needed."""
        return bool(self.reference_labels and self.candidate_labels)

    @property
    def cache_directory(self) -> Path | None:
        """Where reference labels are cached (None: no cache)."""
        return cache_root(self.label_cache)

    def load_taxonomy(self) -> Taxonomy:
        """The taxonomy the labels are read with."""
        return load_taxonomy(self.taxonomy)

    def tables(self, taxonomy: Taxonomy) -> dict[str, LabelTable]:
        """Each side's label table, read and checked, for the sides given one."""
        return {side: read_label_file(path, taxonomy) for side, path in self.label_files.items() if path}
