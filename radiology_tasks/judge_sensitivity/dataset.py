"""The samples of the judge-sensitivity task: one per variant, planned from references or read from a file.

With ordinary report pairs as data, each distinct reference (the first row carrying its text gives the
source id) gets the planned variants, which the injector makes at run time. With a variants file (rows with a
``kind`` field, as `radiology-tasks perturb` writes them) every row is one ready-made variant and no injector
is called. ``limit`` and ``seed`` pick and order references, so a reference keeps all its variants.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.loading import LoadedPairs, OnBadRows
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.rows import DataError
from radiology_tasks.solvers.judge_sensitivity.rows import VariantFields, variant_fields
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec

T = TypeVar("T")


@dataclass(frozen=True)
class VariantSamples:
    """The task's samples and what they hold.

    Attributes:
        dataset: One sample per variant.
        summary: References and variants used, variant rows skipped (task metadata).
        from_data: Whether the variants were read from the data (no injector calls).
        categories: The error types among the variants.
        max_n: The largest number of injected errors among the variants.
    """

    dataset: MemoryDataset
    summary: dict[str, Any]
    from_data: bool
    categories: tuple[str, ...]
    max_n: int


def is_variants_file(loaded: LoadedPairs) -> bool:
    """Whether the data holds ready-made variants (a ``kind`` field) rather than references to vary."""
    return any("kind" in pair.metadata for pair in loaded.pairs)


def distinct_references(pairs: Sequence[ReportPair]) -> list[ReportPair]:
    """Each reference text once, as the first pair that carries it (its id becomes the source id)."""
    seen: dict[str, ReportPair] = {}
    for pair in pairs:
        seen.setdefault(pair.reference, pair)
    return list(seen.values())


def pick(items: Sequence[T], *, seed: int | None, limit: int | None) -> list[T]:
    """Shuffle with `seed` (when given), then keep the first `limit`."""
    chosen = list(items)
    if seed is not None:
        random.Random(seed).shuffle(chosen)
    return chosen if limit is None else chosen[:limit]


def variant_pair(
    source: ReportPair, spec: VariantSpec, *, source_id: str, pair_id: str, candidate: str | None = None
) -> ReportPair:
    """The pair of one variant: the source's reference and study, the variant fields, no expert annotation."""
    return ReportPair(
        id=pair_id,
        reference=source.reference,
        candidate=candidate,
        modality=source.modality,
        anatomy=source.anatomy,
        language=source.language,
        indication=source.indication,
        metadata=spec.metadata(source_id),
    )


def variant_sample(pair: ReportPair, spec: VariantSpec) -> Sample:
    """The sample of a variant pair: its input says what the variant is, its metadata is the pair."""
    source_id = pair.metadata["source_id"]
    return Sample(
        id=pair.id, input=spec.describe(source_id), target=pair.reference, metadata=pair.model_dump(mode="json")
    )


def planned_samples(references: Sequence[ReportPair], plan: Sequence[VariantSpec]) -> MemoryDataset:
    """One sample per planned variant of each reference, without candidate (the injector makes it)."""
    return MemoryDataset(
        [
            variant_sample(variant_pair(ref, spec, source_id=ref.id, pair_id=spec.variant_id(ref.id)), spec)
            for ref in references
            for spec in plan
        ]
    )


def _file_rows(loaded: LoadedPairs, on_bad_rows: OnBadRows) -> tuple[list[tuple[ReportPair, VariantFields]], list]:
    """The rows of a variants file with their variant fields; a bad row raises or is skipped with its reason."""
    rows: list[tuple[ReportPair, VariantFields]] = []
    skipped: list[dict[str, str]] = []
    references: dict[str, str] = {}
    error_variants: set[tuple[str, str | None, int]] = set()
    for pair in loaded.pairs:
        try:
            fields = variant_fields(pair.metadata)
            key = (fields.source_id, fields.category, fields.n_errors)
            if pair.candidate is None:
                raise ValueError("candidate: missing (a variants file holds each variant as its candidate)")
            if references.setdefault(fields.source_id, pair.reference) != pair.reference:
                raise ValueError(f"source_id: '{fields.source_id}' appears with two different references")
            if fields.kind == "error" and key in error_variants:
                raise ValueError(f"a second error variant of '{fields.source_id}' with category and n_errors {key[1:]}")
        except ValueError as error:
            if on_bad_rows == "error":
                raise DataError(loaded.source, None, None, f"row id '{pair.id}': {error}") from None
            skipped.append({"id": pair.id, "reason": str(error)})
            continue
        if fields.kind == "error":
            error_variants.add(key)
        rows.append((pair, fields))
    return rows, skipped


def file_samples(loaded: LoadedPairs, *, on_bad_rows: OnBadRows, seed: int | None, limit: int | None) -> VariantSamples:
    """The ready-made variants of a variants file, picked by reference."""
    rows, skipped = _file_rows(loaded, on_bad_rows)
    if not rows:
        raise DataError(loaded.source, None, None, "no usable variant rows")
    by_source: dict[str, list[tuple[ReportPair, VariantFields]]] = {}
    for pair, fields in rows:
        by_source.setdefault(fields.source_id, []).append((pair, fields))
    sources = pick(list(by_source), seed=seed, limit=limit)
    chosen = [row for source in sources for row in by_source[source]]
    samples = [
        variant_sample(
            variant_pair(pair, fields.spec(), source_id=fields.source_id, pair_id=pair.id, candidate=pair.candidate),
            fields.spec(),
        )
        for pair, fields in chosen
    ]
    return VariantSamples(
        dataset=MemoryDataset(samples),
        summary={"references": len(sources), "variants": len(samples), "variant_rows_skipped": skipped},
        from_data=True,
        categories=tuple(sorted({f.category for _, f in chosen if f.category is not None})),
        max_n=max(f.n_errors for _, f in chosen),
    )
