"""Which variants a training export keeps, and how it splits them (or expert-rated pairs) without leaking a reference.

- **Evaluation sets.** A reference that an evaluation set holds is left out with all its variants: by id (the
  variant's ``source_id`` is an id of the set) or by text (its text, whitespace and case folded, is a report of
  the set, reference or candidate). Both are counted, so a coincidence of plain ids ("1", "2") shows.
- **References.** Variants belong to the same reference when they share a ``source_id`` in one file or a
  reference text (folded as above) in any file; those groups are what the size controls count and what the
  split keeps whole, so no reference is in both training and validation files. Expert-rated pairs
  (``export-sft --data``) are grouped by reference text alone (`group_by_reference`) and split the same way.
- **Size and balance.** ``max_per_reference`` keeps at most so many variants of a reference, taken in turn from
  its strata (paraphrases and each error category) so that a cap keeps the mix; ``balance_categories`` keeps
  as many variants of each error stratum as the rarest one has; ``paraphrase_share`` drops paraphrases or error
  variants (again in turn over the strata) until paraphrases are that share of what is left.

Every choice is seeded and made in the order the rows were read, so an export is repeatable.
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.judge_sensitivity.variant_sft import Variant

T = TypeVar("T")


def report_key(text: str) -> str:
    """A report's text as compared across data sets: whitespace runs folded to one space, case folded."""
    return " ".join(text.split()).casefold()


def file_sha256(path: str | Path) -> str:
    """SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with Path(path).open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class EvaluationSets:
    """The ids and report texts of the evaluation sets a training export must not overlap.

    Attributes:
        ids: Every pair id of the sets.
        texts: Every reference and candidate text of the sets, as `report_key` folds them.
        sources: One entry per set: what was named, pairs read, and the SHA-256 of a local file.
    """

    ids: frozenset[str] = frozenset()
    texts: frozenset[str] = frozenset()
    sources: tuple[dict[str, Any], ...] = ()


def evaluation_sets(data: Sequence[str]) -> EvaluationSets:
    """Load each evaluation set (dataset name, file or folder, as ``-T data=`` takes it)."""
    ids: set[str] = set()
    texts: set[str] = set()
    sources = []
    for name in data:
        pairs = load_pairs(name).pairs
        ids |= {pair.id for pair in pairs}
        texts |= {report_key(text) for pair in pairs for text in (pair.reference, pair.candidate) if text}
        local = Path(name).expanduser()
        sha = file_sha256(local) if local.is_file() else None
        sources.append({"data": name, "pairs": len(pairs), "sha256": sha})
    return EvaluationSets(frozenset(ids), frozenset(texts), tuple(sources))


@dataclass
class Overlap:
    """The references left out because an evaluation set holds them.

    Attributes:
        references: References left out.
        variants: Their variants.
        by_id: References whose ``source_id`` is an id of a set.
        by_text: References whose text is a report of a set (a reference may count under both).
        source_ids: The ``source_id`` of each reference left out.
    """

    references: int = 0
    variants: int = 0
    by_id: int = 0
    by_text: int = 0
    source_ids: list[str] = field(default_factory=list)


def leave_out_evaluation(variants: Sequence[Variant], sets: EvaluationSets) -> tuple[list[Variant], Overlap]:
    """The variants whose reference no evaluation set holds, and what was left out."""
    overlap = Overlap()
    seen: dict[tuple[str, str], bool] = {}
    kept: list[Variant] = []
    for variant in variants:
        reference = (variant.file, variant.source_id)
        if reference not in seen:
            by_id = variant.source_id in sets.ids
            by_text = report_key(variant.reference) in sets.texts
            seen[reference] = by_id or by_text
            if by_id or by_text:
                overlap.references += 1
                overlap.by_id += by_id
                overlap.by_text += by_text
                overlap.source_ids.append(variant.source_id)
        if seen[reference]:
            overlap.variants += 1
        else:
            kept.append(variant)
    return kept, overlap


def group_by_reference(
    items: Sequence[T], reference: Callable[[T], str], name: Callable[[T], Hashable] | None = None
) -> list[list[T]]:
    """Items grouped by reference: the same reference text (folded by `report_key`), or the same `name`.

    Groups come in the order of their first item, and keep their items' order.
    """
    parent: dict[tuple[Hashable, ...], tuple[Hashable, ...]] = {}

    def root(key: tuple[Hashable, ...]) -> tuple[Hashable, ...]:
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def first_key(item: T) -> tuple[Hashable, ...]:
        return ("name", name(item)) if name is not None else ("text", report_key(reference(item)))

    for item in items:
        by_name, by_text = root(first_key(item)), root(("text", report_key(reference(item))))
        if by_name != by_text:
            parent[by_text] = by_name
    groups: dict[tuple[Hashable, ...], list[T]] = {}
    for item in items:
        groups.setdefault(root(first_key(item)), []).append(item)
    return list(groups.values())


def reference_groups(variants: Sequence[Variant]) -> list[list[Variant]]:
    """The variants grouped by reference: a shared ``source_id`` within a file, or a shared reference text.

    Groups come in the order of their first variant, and keep their variants' order.
    """
    return group_by_reference(variants, lambda v: v.reference, lambda v: (v.file, v.source_id))


def _in_turn(variants: Sequence[Variant], rng: random.Random) -> list[Variant]:
    """The variants reordered to take one of each stratum in turn (strata and their members shuffled)."""
    strata: dict[str, list[Variant]] = {}
    for variant in variants:
        strata.setdefault(variant.stratum, []).append(variant)
    queues = list(strata.values())
    rng.shuffle(queues)
    for queue in queues:
        rng.shuffle(queue)
    ordered: list[Variant] = []
    for turn in range(max((len(queue) for queue in queues), default=0)):
        ordered += [queue[turn] for queue in queues if turn < len(queue)]
    return ordered


def _keeping(items: Sequence[T], chosen: Iterable[T]) -> list[T]:
    """`items` filtered to `chosen`, in their original order."""
    keep = {id(item) for item in chosen}
    return [item for item in items if id(item) in keep]


def cap_per_reference(variants: Sequence[Variant], limit: int, seed: int) -> list[Variant]:
    """At most `limit` variants of each reference, taken in turn from its strata."""
    if limit < 1:
        raise ValueError(f"--max-per-reference must be at least 1, got {limit}")
    rng = random.Random(f"{seed}:max-per-reference")
    chosen = [variant for group in reference_groups(variants) for variant in _in_turn(group, rng)[:limit]]
    return _keeping(variants, chosen)


def balance_categories(variants: Sequence[Variant], seed: int) -> list[Variant]:
    """As many variants of each error stratum as the rarest one has; paraphrases are kept."""
    rng = random.Random(f"{seed}:balance-categories")
    strata: dict[str, list[Variant]] = {}
    for variant in variants:
        if variant.kind == "error":
            strata.setdefault(variant.stratum, []).append(variant)
    if not strata:
        return list(variants)
    size = min(len(members) for members in strata.values())
    chosen = [variant for variant in variants if variant.kind == "paraphrase"]
    for name in sorted(strata):
        chosen += rng.sample(strata[name], size)
    return _keeping(variants, chosen)


def apply_paraphrase_share(variants: Sequence[Variant], share: float, seed: int) -> list[Variant]:
    """Drop paraphrases or error variants until paraphrases are `share` of the variants (rounded)."""
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"--paraphrase-share must lie in [0, 1], got {share}")
    rng = random.Random(f"{seed}:paraphrase-share")
    paraphrases = [variant for variant in variants if variant.kind == "paraphrase"]
    errors = [variant for variant in variants if variant.kind == "error"]
    n_para, n_err = len(paraphrases), len(errors)
    if share == 1.0:
        keep_para, keep_err = n_para, 0
    elif share == 0.0:
        keep_para, keep_err = 0, n_err
    elif n_para * (1 - share) > share * n_err:  # more paraphrases than the share: keep every error variant
        keep_para, keep_err = min(n_para, round(share * n_err / (1 - share))), n_err
    else:  # more error variants than the share leaves room for: keep every paraphrase
        keep_para, keep_err = n_para, min(n_err, round(n_para * (1 - share) / share))
    chosen = _in_turn(paraphrases, rng)[:keep_para] + _in_turn(errors, rng)[:keep_err]
    return _keeping(variants, chosen)


@dataclass(frozen=True)
class Split(Generic[T]):
    """Items of whole references in two parts.

    Attributes:
        train: Training items.
        validation: Validation items.
        train_references: References in the training part.
        validation_references: References in the validation part.
    """

    train: list[T]
    validation: list[T]
    train_references: int
    validation_references: int


def split_by_reference(
    items: Sequence[T],
    val_fraction: float,
    seed: int,
    # The default groups variants by reference; a caller splitting other items (report pairs) passes its own.
    groups: Callable[[Sequence[T]], list[list[T]]] = reference_groups,  # type: ignore[assignment]
    *,
    shuffled_order: bool = False,
) -> Split[T]:
    """Shuffle the references with ``random.Random(seed)`` and put the first ``round(n * val_fraction)`` in validation.

    Args:
        items: Variants, or anything `groups` groups by reference.
        val_fraction: Share of the references (not of the items) that go to validation.
        seed: Seed of the shuffle.
        groups: How the items are grouped by reference (`reference_groups` for variants; report pairs are grouped
            by their reference text with `group_by_reference`).
        shuffled_order: Give each part in the shuffled order of its references instead of the order read.

    Raises:
        ValueError: `val_fraction` outside [0, 1), or a fraction that leaves no reference for training.
    """
    if not 0.0 <= val_fraction < 1.0:
        raise ValueError(f"--val-fraction must lie in [0, 1), got {val_fraction}")
    grouped = groups(items)
    random.Random(seed).shuffle(grouped)
    n_validation = round(len(grouped) * val_fraction)
    if grouped and n_validation >= len(grouped):
        raise ValueError(f"--val-fraction {val_fraction} leaves no training reference out of {len(grouped)}")
    validation = [item for group in grouped[:n_validation] for item in group]
    train = [item for group in grouped[n_validation:] for item in group]
    if not shuffled_order:
        train, validation = _keeping(items, train), _keeping(items, validation)
    return Split(train, validation, len(grouped) - n_validation, n_validation)


def composition(variants: Sequence[Variant]) -> dict[str, Any]:
    """Counts of a set of variants: references, variants, and variants by kind, stratum and number of errors."""
    return {
        "references": len(reference_groups(variants)),
        "variants": len(variants),
        "by_kind": dict(sorted(Counter(variant.kind for variant in variants).items())),
        "by_category": dict(sorted(Counter(variant.stratum for variant in variants).items())),
        "by_n_errors": {str(n): count for n, count in sorted(Counter(v.n_errors for v in variants).items())},
    }
