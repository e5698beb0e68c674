"""Few-shot examples for judge prompts: drawn from a pool, or the team's curated sets."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Literal

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ReportPair

Curated = Literal["none", "error-types"]


def _normalise_text(text: str) -> str:
    return " ".join(text.lower().split())


def expert_rating(pair: ReportPair) -> str:
    """A pool example's expert score on [0, 1] with two decimals.

    A pool pair has an expert score but no error counts, so it cannot be shown as an answer in the prompt's
    format; the prompt shows it as the radiologists' rating instead.
    """
    assert pair.expert is not None and pair.expert.normalized_score is not None
    return f"{pair.expert.normalized_score:.2f}"


def draw_shots(pool: Sequence[ReportPair], k: int, *, seed: int, evaluated: Sequence[ReportPair]) -> list[ReportPair]:
    """Draw `k` pool pairs at random (seeded), never one that is being evaluated.

    A pool pair is excluded when its id, its reference text or its candidate text equals one of an
    evaluated pair (texts compared case- and whitespace-insensitively), so a shot cannot leak the answer.

    Raises:
        ValueError: the pool holds fewer than `k` usable pairs.
    """
    ids = {p.id for p in evaluated}
    texts = {_normalise_text(t) for p in evaluated for t in (p.reference, p.candidate) if t}
    usable = [
        p
        for p in pool
        if p.id not in ids
        and _normalise_text(p.reference) not in texts
        and (p.candidate is None or _normalise_text(p.candidate) not in texts)
        and p.candidate is not None
        and p.expert is not None
        and p.expert.normalized_score is not None
    ]
    if len(usable) < k:
        raise InputError(
            f"the shot pool has {len(usable)} usable pairs (with candidate and expert score, not being evaluated); "
            f"{k} requested"
        )
    return random.Random(seed).sample(usable, k)


def few_shot_examples(
    shots: int,
    *,
    with_score: bool,
    shot_pool: str | None,
    shot_seed: int,
    curated: Curated,
    evaluated: Sequence[ReportPair],
) -> list[dict[str, str]]:
    """The examples to place in a judge prompt: the curated set first, then `shots` pool draws.

    Args:
        shots: Number of pool examples to draw.
        with_score: The prompt asks for an overall score (vert, formula, rubric); pool examples only carry
            an expert score, so they need such a prompt.
        shot_pool: Dataset name or file to draw from.
        shot_seed: Seed of the draw.
        curated: Curated set to put first.
        evaluated: The pairs being evaluated, never used as examples.
    """
    if shots < 0:
        raise InputError(f"-T shots must be >= 0, got {shots}")
    examples: list[dict[str, str]] = []
    if curated == "error-types":
        from radiology_tasks.scorers.green_vert.curated_shots import error_type_examples

        examples.extend(error_type_examples(with_score=with_score))
    elif curated != "none":
        raise InputError(f"-T curated must be 'none' or 'error-types', got {curated!r}")
    if shots:
        if not with_score:
            raise InputError(
                "pool examples carry an overall expert score, which the GREEN prompt does not ask for; "
                "use the vert task, or -T curated=error-types"
            )
        if shot_pool is None:
            raise InputError("-T shots needs -T shot_pool=NAME_OR_FILE (pairs with candidate and expert_score)")
        pool = load_pairs(shot_pool).pairs
        for pair in draw_shots(pool, shots, seed=shot_seed, evaluated=evaluated):
            assert pair.candidate is not None
            examples.append(
                {"reference": pair.reference, "candidate": pair.candidate, "expert_rating": expert_rating(pair)}
            )
    return examples
