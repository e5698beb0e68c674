"""Few-shot examples for judge prompts: drawn from a pool, or the team's curated sets."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ReportPair

if TYPE_CHECKING:
    from radiology_tasks.green_vert.options import ExampleOptions


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
    options: ExampleOptions, *, with_score: bool, evaluated: Sequence[ReportPair]
) -> list[dict[str, str]]:
    """The examples to place in a judge prompt: the curated set first, then `options.shots` pool draws.

    Args:
        options: The task's example options (checked when built).
        with_score: The prompt asks for an overall score (vert, formula, rubric); pool examples only carry
            an expert score, so they need such a prompt.
        evaluated: The pairs being evaluated, never used as examples.
    """
    examples: list[dict[str, str]] = []
    if options.curated == "error-types":
        from radiology_tasks.scorers.green_vert.curated_shots import error_type_examples

        examples.extend(error_type_examples(with_score=with_score))
    if options.shots:
        examples.extend(_pool_examples(options, with_score=with_score, evaluated=evaluated))
    return examples


def _pool_examples(
    options: ExampleOptions, *, with_score: bool, evaluated: Sequence[ReportPair]
) -> list[dict[str, str]]:
    """`options.shots` examples drawn from the pool, each with the experts' rating."""
    if not with_score:
        raise InputError(
            "pool examples carry an overall expert score, which the GREEN prompt does not ask for; "
            "use the vert task, or -T curated=error-types"
        )
    if options.shot_pool is None:
        raise InputError("-T shots needs -T shot_pool=NAME_OR_FILE (pairs with candidate and expert_score)")
    pool = load_pairs(options.shot_pool).pairs
    drawn = draw_shots(pool, options.shots, seed=options.shot_seed, evaluated=evaluated)
    return [_pool_example(pair) for pair in drawn]


def _pool_example(pair: ReportPair) -> dict[str, str]:
    assert pair.candidate is not None  # draw_shots draws only pairs with a candidate
    return {"reference": pair.reference, "candidate": pair.candidate, "expert_rating": expert_rating(pair)}
