"""Few-shot draws: seeded, never leaking an evaluated pair, and placed in the judge prompt."""

from __future__ import annotations

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ReportPair
from radiology_tasks.green_vert.fewshot import draw_shots, few_shot_examples


def _pair(i: int, reference: str | None = None, candidate: str | None = None, score: float | None = 0.5) -> ReportPair:
    return ReportPair(
        id=f"p{i}",
        reference=reference or f"Reference {i}.",
        candidate=candidate or f"Candidate {i}.",
        expert={"score": score} if score is not None else None,
    )


def test_draw_is_seeded_and_excludes_evaluated_by_id_and_text():
    pool = [_pair(i) for i in range(10)]
    evaluated = [
        _pair(0),
        ReportPair(id="other-1", reference="  REFERENCE 1. ", candidate="x"),
        ReportPair(id="other-2", reference="y", candidate="candidate   2."),
    ]
    first = draw_shots(pool, 7, seed=3, evaluated=evaluated)
    assert [p.id for p in first] == [p.id for p in draw_shots(pool, 7, seed=3, evaluated=evaluated)]
    assert {p.id for p in first} == {f"p{i}" for i in range(3, 10)}
    other_seed = [p.id for p in draw_shots(pool, 7, seed=4, evaluated=evaluated)]
    assert other_seed != [p.id for p in first]


def test_pool_needs_candidates_and_scores():
    pool = [_pair(1), _pair(2, score=None)]
    with pytest.raises(ValueError, match="the shot pool has 1 usable pairs .*; 2 requested"):
        draw_shots(pool, 2, seed=0, evaluated=[])


def test_pool_examples_are_expert_ratings_not_answers(pairs_file):
    rows = [
        {"id": f"s{i}", "reference": f"Ref {i}.", "candidate": f"Cand {i}.", "expert_score": i, "expert_score_max": 5}
        for i in range(5)
    ]
    pool = str(pairs_file(rows))
    examples = few_shot_examples(5, with_score=True, shot_pool=pool, shot_seed=0, curated="none", evaluated=[])
    ratings = {e["reference"]: e["expert_rating"] for e in examples}
    assert ratings["Ref 4."] == "0.80"
    assert ratings["Ref 0."] == "0.00"
    # A pool pair has no error counts, so nothing may present its score as an answer in the contract's form.
    assert not any("answer" in e for e in examples)


def test_curated_error_types_come_first_and_cover_every_category():
    demo = load_pairs(None).pairs
    examples = few_shot_examples(0, with_score=True, shot_pool=None, shot_seed=0, curated="error-types", evaluated=demo)
    assert len(examples) == 6
    for letter, example in zip("abcdef", examples):
        assert {"reference", "candidate", "answer"} <= set(example)
        assert f"({letter})" in example["answer"]


def test_bad_requests():
    with pytest.raises(ValueError, match="-T shots needs -T shot_pool"):
        few_shot_examples(2, with_score=True, shot_pool=None, shot_seed=0, curated="none", evaluated=[])
    with pytest.raises(ValueError, match="-T shots must be >= 0"):
        few_shot_examples(-1, with_score=True, shot_pool=None, shot_seed=0, curated="none", evaluated=[])
    with pytest.raises(ValueError, match="-T curated must be"):
        few_shot_examples(0, with_score=True, shot_pool=None, shot_seed=0, curated="all", evaluated=[])  # type: ignore[arg-type]


def test_green_prompt_takes_curated_counts_but_not_pool_scores():
    examples = few_shot_examples(0, with_score=False, shot_pool=None, shot_seed=0, curated="error-types", evaluated=[])
    assert all("[Overall Accuracy Score]" not in e["answer"] for e in examples)
    with pytest.raises(ValueError, match="pool examples carry an overall expert score"):
        few_shot_examples(1, with_score=False, shot_pool="demo", shot_seed=0, curated="none", evaluated=[])
