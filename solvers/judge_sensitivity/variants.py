"""Which variants to make of each reference, their ids, and their seeds.

A variant is an error variant (``error``: N errors of one type (a)-(f)), a paraphrase (``paraphrase``: every
fact kept) or a fine-grained attribute edit (``attribute``: CT-FineBench's "neg" reports, section 5.2).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES, ErrorCategory

RewriteKind = Literal["error", "paraphrase", "attribute"]

DELETION_CATEGORIES: frozenset[str] = frozenset({"b", "f"})
"""Error types that remove content, so an injector may delete a whole sentence for them."""

DEFAULT_CATEGORIES: tuple[ErrorCategory, ...] = ("a", "b")
"""The error types of the VERT paper's injection study (section 4.2): false and missed findings."""

MAX_ERRORS_LIMIT = 9
"""The most errors one variant may carry (one per sentence; references rarely have more sentences)."""


@dataclass(frozen=True)
class VariantSpec:
    """What to make of a reference.

    Attributes:
        kind: ``error``, ``paraphrase`` or ``attribute``.
        category: The error type for ``error`` variants, else None.
        n_changes: Errors (or attribute edits) to make, one per sentence; 0 for a paraphrase.
        number: Which paraphrase of the reference this is (1, 2, ...); 1 otherwise.
    """

    kind: RewriteKind
    category: ErrorCategory | None = None
    n_changes: int = 0
    number: int = 1

    def variant_id(self, source_id: str) -> str:
        """The sample id of this variant of reference `source_id` (stable across runs)."""
        if self.kind == "error":
            return f"{source_id}:error-{self.category}-{self.n_changes}"
        if self.kind == "paraphrase":
            return f"{source_id}:paraphrase-{self.number}"
        return f"{source_id}:attribute-{self.n_changes}"

    def describe(self, source_id: str) -> str:
        """One line saying what the variant is (the sample's input in the log viewer)."""
        if self.kind == "paraphrase":
            return f"Paraphrase {self.number} of reference {source_id}: every sentence reworded, every fact kept."
        plural = "s" if self.n_changes > 1 else ""
        if self.kind == "attribute":
            return f"Reference {source_id} with {self.n_changes} fine-grained attribute edit{plural}, one per sentence."
        if self.category is None:
            raise ValueError(f"error variant of reference {source_id} names no error category")
        name = CATEGORY_NAMES[self.category].lower()
        return (
            f"Reference {source_id} with {self.n_changes} clinically significant error{plural} of type "
            f"({self.category}), {name}, one per sentence."
        )

    def metadata(self, source_id: str) -> dict[str, Any]:
        """The variant fields a generated sample carries in its pair metadata (read back by `from_metadata`)."""
        return {"source_id": source_id, "kind": self.kind, "category": self.category, "n_errors": self.n_changes}

    @classmethod
    def from_metadata(cls, metadata: Mapping[str, Any]) -> VariantSpec:
        """The variant a sample stands for, from its pair metadata."""
        return cls(metadata["kind"], metadata.get("category"), int(metadata.get("n_errors") or 0))

    @property
    def deletions(self) -> bool:
        """Whether a change may delete its sentence."""
        return self.kind == "error" and self.category in DELETION_CATEGORIES


def plan_variants(categories: tuple[ErrorCategory, ...], max_errors: int, paraphrases: int) -> list[VariantSpec]:
    """The variants of one reference: each error type with 1..`max_errors` errors, then the paraphrases.

    Raises:
        ValueError: `max_errors` outside 1..`MAX_ERRORS_LIMIT`, or a negative number of paraphrases.
    """
    if not 1 <= max_errors <= MAX_ERRORS_LIMIT:
        raise ValueError(f"max_errors must be between 1 and {MAX_ERRORS_LIMIT}, got {max_errors}")
    if paraphrases < 0:
        raise ValueError(f"paraphrases must be >= 0, got {paraphrases}")
    errors = [VariantSpec("error", c, n) for c in categories for n in range(1, max_errors + 1)]
    return errors + [VariantSpec("paraphrase", number=k) for k in range(1, paraphrases + 1)]


def variant_seed(seed: int, variant_id: str) -> int:
    """The injector's seed for a variant: fixed by the run's seed and the variant id, the same on every run."""
    digest = hashlib.sha256(f"{seed}:{variant_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


def parse_categories(value: str | list[str] | tuple[str, ...]) -> tuple[ErrorCategory, ...]:
    """Read ``-T categories``: letters a-f, comma-separated or as a list, or ``all``.

    Raises:
        ValueError: for an empty value, an unknown letter or a repeated one.
    """
    if isinstance(value, str):
        items = [part.strip().lower() for part in value.split(",")]
    else:
        items = [str(part).strip().lower() for part in value]
    if items == ["all"]:
        return ERROR_CATEGORIES
    if not items or any(not item for item in items):
        raise ValueError(f"categories must be letters a-f separated by commas, or all; got {value!r}")
    unknown = [item for item in items if item not in ERROR_CATEGORIES]
    if unknown:
        raise ValueError(f"unknown error categories {unknown}; use letters a-f or all")
    if len(set(items)) != len(items):
        raise ValueError(f"categories lists a letter twice: {value!r}")
    return tuple(c for c in ERROR_CATEGORIES if c in items)
