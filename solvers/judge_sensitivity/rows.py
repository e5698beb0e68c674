"""The JSONL rows `radiology-tasks perturb` and `sensitivity-set` write, and the variant fields a task reads back.

A variants file (``perturb``) has the fields of `PERTURB_FIELDS`; users write such files by hand too, where
``changes`` may be left out (only ``export-sft --variants --passes 2`` reads it, and the tasks ignore it).
A sensitivity set (``sensitivity-set``) has the standard pair columns (``id``, ``reference``, ``candidate``,
and the study's ``modality``, ``anatomy``, ``indication``, ``language`` and CT-FineBench ``qa`` pairs when the
source row has them) plus ``kind`` (``pos`` or ``neg``), ``source_id`` and, for ``neg``, ``n_edits`` and
``edits``: every task loads it with ``-T data=`` and keeps the extra fields as sample metadata.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from radiology_tasks.core.records import ErrorCategory, ReportPair
from radiology_tasks.solvers.judge_sensitivity.outcome import VariantOutcome
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec

PERTURB_FIELDS = ("id", "source_id", "reference", "candidate", "kind", "category", "n_errors", "changes")
"""The fields of a variants file, in the order they are written. ``changes`` is the injector's accepted change
of each changed sentence of an error variant (``sentence_index``, ``original``, ``modified``, ``explanation``),
and empty for a paraphrase."""

SensitivityKind = Literal["pos", "neg"]


class VariantFields(BaseModel):
    """The variant fields of a row of a variants file (the rest is a standard report pair)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    source_id: str = Field(min_length=1)
    kind: Literal["error", "paraphrase"]
    category: ErrorCategory | None = None
    n_errors: int = Field(ge=0)

    @model_validator(mode="after")
    def _consistent(self) -> VariantFields:
        if self.kind == "error" and (self.category is None or self.n_errors < 1):
            raise ValueError("an error variant needs a category a-f and n_errors of at least 1")
        if self.kind == "paraphrase" and (self.category is not None or self.n_errors != 0):
            raise ValueError("a paraphrase has category null and n_errors 0")
        return self

    def spec(self) -> VariantSpec:
        """The variant this row holds."""
        return VariantSpec(self.kind, self.category, self.n_errors)


def variant_fields(metadata: dict[str, Any]) -> VariantFields:
    """Read the variant fields from a loaded pair's metadata.

    Raises:
        ValueError: naming the first field that is missing or wrong.
    """
    try:
        return VariantFields.model_validate(metadata)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        # A rule of `_consistent` carries its own message; pydantic would prefix it with "Value error, ".
        message = str(first["ctx"]["error"]) if first["type"] == "value_error" else first["msg"]
        raise ValueError(f"{where + ': ' if where else ''}{message}") from None


def perturb_row(outcome: VariantOutcome, reference: str) -> dict[str, Any]:
    """A variants-file row for a made variant."""
    if outcome.text is None:
        raise ValueError(f"variant of {outcome.source_id} was not made ({outcome.detail}); it has no row")
    spec = outcome.spec
    values = (
        spec.variant_id(outcome.source_id),
        outcome.source_id,
        reference,
        outcome.text,
        spec.kind,
        spec.category,
        spec.n_changes,
        outcome.changes if spec.kind == "error" else [],
    )
    return dict(zip(PERTURB_FIELDS, values, strict=True))


def sensitivity_row(outcome: VariantOutcome, source: ReportPair, kind: SensitivityKind) -> dict[str, Any]:
    """A sensitivity-set row: the source's study fields, the variant as candidate, and what was changed."""
    if outcome.text is None:
        raise ValueError(f"variant of {outcome.source_id} was not made ({outcome.detail}); it has no row")
    row: dict[str, Any] = {
        "id": f"{outcome.source_id}-{kind}",
        "reference": source.reference,
        "candidate": outcome.text,
    }
    study = {"modality": source.modality, "anatomy": source.anatomy, "indication": source.indication}
    row |= {name: value for name, value in study.items() if value is not None}
    row["language"] = source.language
    if source.qa:
        row["qa"] = [qa.model_dump(exclude_none=True) for qa in source.qa]
    row |= {"kind": kind, "source_id": outcome.source_id}
    if kind == "neg":
        row |= {"n_edits": outcome.spec.n_changes, "edits": outcome.changes}
    return row
