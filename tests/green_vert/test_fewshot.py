"""Few-shot draws: seeded, never leaking an evaluated pair, and placed in the judge prompt."""

from __future__ import annotations

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ReportPair
from radiology_tasks.green_vert.fewshot import draw_shots, few_shot_examples
from radiology_tasks.green_vert.options import ExampleOptions


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
    examples = few_shot_examples(ExampleOptions(shots=5, shot_pool=pool), with_score=True, evaluated=[])
    ratings = {e["reference"]: e["expert_rating"] for e in examples}
    assert ratings["Ref 4."] == "0.80"
    assert ratings["Ref 0."] == "0.00"
    # A pool pair has no error counts, so nothing may present its score as an answer in the contract's form.
    assert not any("answer" in e for e in examples)


def test_curated_error_types_come_first_and_cover_every_category():
    demo = load_pairs(None).pairs
    examples = few_shot_examples(ExampleOptions(curated="error-types"), with_score=True, evaluated=demo)
    assert len(examples) == 6
    for letter, example in zip("abcdef", examples):
        assert {"reference", "candidate", "answer"} <= set(example)
        assert f"({letter})" in example["answer"]


def test_bad_requests():
    with pytest.raises(ValueError, match="-T shots needs -T shot_pool"):
        few_shot_examples(ExampleOptions(shots=2), with_score=True, evaluated=[])


def test_green_prompt_takes_curated_counts_but_not_pool_scores():
    examples = few_shot_examples(ExampleOptions(curated="error-types"), with_score=False, evaluated=[])
    assert all("[Overall Accuracy Score]" not in e["answer"] for e in examples)
    with pytest.raises(ValueError, match="pool examples carry an overall expert score"):
        few_shot_examples(ExampleOptions(shots=1, shot_pool="demo"), with_score=False, evaluated=[])


def _scored(pair_id: str, reference: str, candidate: str) -> ReportPair:
    return ReportPair(id=pair_id, reference=reference, candidate=candidate, expert={"score": 0.5})


EVALUATED = ReportPair(id="e1", reference="Small left pleural effusion.", candidate="Tiny left pleural effusion.")
CLEAN = [_scored("c1", "Clear lungs.", "Lungs are clear."), _scored("c2", "No fracture.", "Bones intact.")]
# Each pool pair shares exactly one thing with the evaluated pair, so exactly one exclusion rule catches it.
LEAKS = {
    "same id": _scored("e1", "Normal heart size.", "Heart size normal."),
    "reference is the evaluated reference": _scored("l2", "  small LEFT pleural   effusion. ", "Something else."),
    "reference is the evaluated candidate": _scored("l3", "Tiny left pleural effusion.", "Something else."),
    "candidate is the evaluated reference": _scored("l4", "Something else.", "SMALL left pleural effusion."),
    "candidate is the evaluated candidate": _scored("l5", "Something else.", "tiny left\tpleural effusion."),
}


@pytest.mark.parametrize("leak", LEAKS.values(), ids=LEAKS.keys())
def test_each_exclusion_rule_alone_keeps_a_leaked_pair_out(leak: ReportPair) -> None:
    pool = [leak, *CLEAN]
    # Were the leak usable, 2 draws from 3 would pick it for about two seeds in three.
    for seed in range(40):
        assert {p.id for p in draw_shots(pool, 2, seed=seed, evaluated=[EVALUATED])} == {"c1", "c2"}
    with pytest.raises(ValueError, match="the shot pool has 2 usable pairs"):
        draw_shots(pool, 3, seed=0, evaluated=[EVALUATED])
    # Nothing else about the pair is wrong: with nothing evaluated it is drawn like any other.
    assert len(draw_shots(pool, 3, seed=0, evaluated=[])) == 3


def test_a_pool_of_only_leaked_pairs_gives_no_shots() -> None:
    with pytest.raises(ValueError, match="the shot pool has 0 usable pairs"):
        draw_shots(list(LEAKS.values()), 1, seed=0, evaluated=[EVALUATED])


def test_an_evaluated_pair_without_candidate_excludes_by_its_reference() -> None:
    # With -T generate=true the evaluated pairs have no candidate yet.
    reference_only = ReportPair(id="e9", reference="Clear lungs.")
    assert draw_shots(CLEAN, 1, seed=0, evaluated=[reference_only]) == [CLEAN[1]]


def test_pool_examples_never_include_an_evaluated_pair(pairs_file) -> None:
    rows = [
        {"id": "e1", "reference": "Other reference.", "candidate": "Other candidate.", "expert_score": 0.2},
        {"id": "x2", "reference": EVALUATED.reference, "candidate": "Another candidate.", "expert_score": 0.4},
        {"id": "c1", "reference": "Clear lungs.", "candidate": "Lungs are clear.", "expert_score": 0.9},
    ]
    pool = str(pairs_file(rows))
    for seed in range(20):
        examples = few_shot_examples(
            ExampleOptions(shots=1, shot_pool=pool, shot_seed=seed), with_score=True, evaluated=[EVALUATED]
        )
        assert [e["reference"] for e in examples] == ["Clear lungs."]
    with pytest.raises(ValueError, match="the shot pool has 1 usable pairs"):
        few_shot_examples(ExampleOptions(shots=2, shot_pool=pool), with_score=True, evaluated=[EVALUATED])


def test_draws_follow_the_seed_exactly() -> None:
    import random

    pool = [_scored(f"p{i}", f"Reference {i}.", f"Candidate {i}.") for i in range(12)]
    for seed in (0, 1, 7):
        expected = random.Random(seed).sample(pool, 4)
        assert draw_shots(pool, 4, seed=seed, evaluated=[]) == expected


def test_curated_answers_carry_a_score_only_for_scoring_prompts() -> None:
    scored = few_shot_examples(ExampleOptions(curated="error-types"), with_score=True, evaluated=[])
    assert all("[Overall Accuracy Score]" in e["answer"] for e in scored)


def test_pool_examples_are_the_seeded_draw_with_their_texts(pairs_file) -> None:
    import random

    rows = [
        {"id": f"s{i}", "reference": f"Ref {i}.", "candidate": f"Cand {i}.", "expert_score": i, "expert_score_max": 9}
        for i in range(10)
    ]
    pool = str(pairs_file(rows))
    for seed in (0, 5):
        examples = few_shot_examples(
            ExampleOptions(shots=3, shot_pool=pool, shot_seed=seed), with_score=True, evaluated=[]
        )
        drawn = random.Random(seed).sample(rows, 3)
        assert [(e["reference"], e["candidate"]) for e in examples] == [(r["reference"], r["candidate"]) for r in drawn]


def test_request_errors_in_full() -> None:
    with pytest.raises(ValueError) as error:
        few_shot_examples(ExampleOptions(shots=1, shot_pool="demo"), with_score=False, evaluated=[])
    assert str(error.value) == (
        "pool examples carry an overall expert score, which the GREEN prompt does not ask for; "
        "use the vert task, or -T curated=error-types"
    )
    with pytest.raises(ValueError) as error:
        few_shot_examples(ExampleOptions(shots=1), with_score=True, evaluated=[])
    assert str(error.value) == "-T shots needs -T shot_pool=NAME_OR_FILE (pairs with candidate and expert_score)"
    with pytest.raises(ValueError) as error:
        draw_shots([_pair(1)], 2, seed=0, evaluated=[])
    assert str(error.value) == (
        "the shot pool has 1 usable pairs (with candidate and expert score, not being evaluated); 2 requested"
    )
