"""The Ran Score finding taxonomy as validated data: which labels exist, how each is decided, which is derived.

A taxonomy file (YAML or JSON) holds rules that apply to every label and one entry per label:

    name: ran-score-21
    rules:
      - A finding that the report negates counts as 0.
    labels:
      - column: Atelectasis          # the label table's column name (authors' layout)
        key: atelectasis             # the JSON key the judge answers with; metric names use it
        definition: Collapse or incomplete expansion of lung tissue.
        include: [...]               # what counts as 1
        exclude: [...]               # what counts as 0
      - column: No Finding
        key: no_finding
        derive: none_of_the_others   # not asked: 1 exactly when every asked label is 0

`parse_taxonomy` turns any mistake into one `TaxonomyError` line naming the label entry and the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

Derivation = Literal["none_of_the_others"]
"""How a label that is not asked is set: ``none_of_the_others`` is 1 exactly when every asked label is 0."""

_KEY = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class TaxonomyError(ValueError):
    """A taxonomy file that cannot be used; the message names the source, the label entry and the field."""


class LabelEntry(BaseModel):
    """One finding label.

    Attributes:
        column: The label's column name in label tables (the authors' CSV layout).
        key: Lower-case ASCII identifier: the judge's JSON key and the suffix of per-label metric names.
        definition: What the finding is, in a sentence or two (required for asked labels).
        include: Wordings or situations that count as 1.
        exclude: Wordings or situations that count as 0.
        derive: Set for a label that is not asked but computed from the others.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    column: str = Field(min_length=1)
    key: str
    definition: str = ""
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    derive: Derivation | None = None

    @field_validator("column", "definition")
    @classmethod
    def _stripped(cls, value: str) -> str:
        return value.strip()

    @field_validator("key")
    @classmethod
    def _identifier(cls, value: str) -> str:
        if not _KEY.fullmatch(value):
            raise ValueError("must be 1-40 lower-case ASCII letters, digits or underscores, starting with a letter")
        return value

    @model_validator(mode="after")
    def _asked_labels_are_defined(self) -> LabelEntry:
        if self.derive is None and not self.definition:
            raise ValueError("an asked label needs a definition")
        return self

    @property
    def asked(self) -> bool:
        """Whether the judge is asked about this label (derived labels are computed)."""
        return self.derive is None


class Taxonomy(BaseModel):
    """The label set, its decision rules and the order of label-table columns.

    Attributes:
        name: Short name recorded in logs.
        rules: Decision rules that apply to every label (negation, uncertainty, change over time, devices).
        labels: The labels in label-table column order.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1)
    rules: list[str] = Field(default_factory=list)
    labels: list[LabelEntry] = Field(min_length=1)

    @model_validator(mode="after")
    def _consistent(self) -> Taxonomy:
        for field in ("column", "key"):
            seen: dict[str, int] = {}
            for index, label in enumerate(self.labels):
                value = getattr(label, field)
                if value in seen:
                    raise ValueError(
                        f"label {index + 1} ({label.column!r}), field '{field}': "
                        f"{value!r} is already used by label {seen[value] + 1}"
                    )
                seen[value] = index
        if not any(label.asked for label in self.labels):
            raise ValueError("field 'labels': at least one label must be asked (have no 'derive')")
        derived = [label for label in self.labels if not label.asked]
        if len(derived) > 1:
            raise ValueError(
                f"label {self.labels.index(derived[1]) + 1} ({derived[1].column!r}), field 'derive': "
                "only one label may be derived from the others"
            )
        return self

    @property
    def asked(self) -> list[LabelEntry]:
        """The labels the judge is asked about, in column order."""
        return [label for label in self.labels if label.asked]

    @property
    def columns(self) -> list[str]:
        """Label-table column names, in order."""
        return [label.column for label in self.labels]

    @property
    def keys(self) -> list[str]:
        """Label keys, in column order."""
        return [label.key for label in self.labels]

    def complete(self, asked: Mapping[str, int | None]) -> dict[str, int | None]:
        """Every label's value from the asked labels' values (by key), derived labels computed.

        A ``none_of_the_others`` label is 0 as soon as one asked label is 1, 1 when every asked label is
        known to be 0, and unknown (None) otherwise.
        """
        values = [asked.get(label.key) for label in self.asked]
        if any(value == 1 for value in values):
            none_of_the_others: int | None = 0
        elif all(value == 0 for value in values):
            none_of_the_others = 1
        else:
            none_of_the_others = None
        return {label.key: asked.get(label.key) if label.asked else none_of_the_others for label in self.labels}


def _location(data: Any, loc: tuple[int | str, ...]) -> str:
    """``label 4 ('Edema'), field 'key'`` for a pydantic error location inside `data`."""
    if len(loc) >= 2 and loc[0] == "labels" and isinstance(loc[1], int):
        entries = data.get("labels") if isinstance(data, dict) else None
        entry = entries[loc[1]] if isinstance(entries, list) and loc[1] < len(entries) else None
        column = entry.get("column") if isinstance(entry, dict) else None
        where = f"label {loc[1] + 1}" + (f" ({column!r})" if column else "")
        field = ".".join(str(p) for p in loc[2:])
        return f"{where}, field '{field}'" if field else where
    return f"field '{'.'.join(str(p) for p in loc)}'" if loc else "top level"


def parse_taxonomy(data: Any, source: str) -> Taxonomy:
    """Validate parsed taxonomy data.

    Args:
        data: The file's content as parsed YAML/JSON.
        source: File name, for messages.

    Raises:
        TaxonomyError: one line naming `source`, the label entry and the field at fault.
    """
    if not isinstance(data, dict):
        raise TaxonomyError(f"{source}: a taxonomy must be a mapping with 'name', 'rules' and 'labels'")
    try:
        return Taxonomy.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        message = first["msg"].removeprefix("Value error, ")
        if first["type"] == "value_error" and not first["loc"]:
            # Whole-taxonomy checks name their entry and field themselves.
            raise TaxonomyError(f"{source}, {message}") from None
        raise TaxonomyError(f"{source}, {_location(data, tuple(first['loc']))}: {message}") from None
