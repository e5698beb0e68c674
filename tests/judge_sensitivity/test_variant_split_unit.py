"""The training export's selection and split rules on variants built in memory, each rule with its exact counts:
evaluation sets left out by id and by text, references grouped across files, the size and balance controls,
and the split by reference (see `test_variant_sft` for the same rules on whole exports)."""

from __future__ import annotations

import hashlib
import json
import random

import pytest

from radiology_tasks.core.records import ErrorCounts
from radiology_tasks.judge_sensitivity.variant_sft import Variant
from radiology_tasks.judge_sensitivity.variant_split import (
    EvaluationSets,
    Split,
    apply_paraphrase_share,
    balance_categories,
    cap_per_reference,
    composition,
    evaluation_sets,
    file_sha256,
    group_by_reference,
    leave_out_evaluation,
    reference_groups,
    report_key,
    split_by_reference,
)


def _variant(
    vid: str, source: str, kind: str = "error", *, file: str = "f.jsonl", reference: str | None = None, **errors: int
) -> Variant:
    counts = ErrorCounts(**(errors or ({"a": 1} if kind == "error" else {})))
    text = reference if reference is not None else f"Reference {source}."
    return Variant(vid, source, text, f"candidate {vid}", kind, counts, None, file)  # type: ignore[arg-type]


def _ids(items: list[Variant]) -> list[str]:
    return [v.id for v in items]


def test_report_keys_fold_whitespace_and_case():
    assert report_key("  No  acute\tFINDING.\n") == "no acute finding."
    assert report_key("Straße") == report_key("STRASSE")


def test_file_sha256_reads_the_whole_file_in_blocks(tmp_path):
    path = tmp_path / "big.bin"
    data = bytes(range(256)) * 5000  # over one 1 MiB block
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()
    assert file_sha256(str(path)) == file_sha256(path)


def test_evaluation_sets_hold_ids_both_texts_and_their_sources(tmp_path):
    path = tmp_path / "eval.jsonl"
    rows = [
        {"id": "e1", "reference": "Left  EFFUSION.", "candidate": "No effusion."},
        {"id": "e2", "reference": "Clear lungs."},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    sets = evaluation_sets([str(path)])
    assert sets.ids == frozenset({"e1", "e2"})
    assert sets.texts == frozenset({"left effusion.", "no effusion.", "clear lungs."})
    assert sets.sources == ({"data": str(path), "pairs": 2, "sha256": file_sha256(path)},)
    both = evaluation_sets([str(path), "demo"])
    assert both.sources[1]["data"] == "demo" and both.sources[1]["sha256"] is None
    assert both.sources[1]["pairs"] > 2 and both.ids > sets.ids and both.texts > sets.texts
    assert evaluation_sets([]) == EvaluationSets()


def test_references_an_evaluation_set_holds_are_left_out_by_id_and_by_text():
    variants = [
        _variant("1a", "r1"),
        _variant("1b", "r1", "paraphrase"),
        _variant("2a", "r2", reference="Clear  LUNGS."),
        _variant("3a", "e1", reference="Clear lungs."),
        _variant("4a", "r4"),
        _variant("1c", "r1", file="other.jsonl"),
    ]
    sets = EvaluationSets(ids=frozenset({"r1", "e1"}), texts=frozenset({"clear lungs."}))
    kept, overlap = leave_out_evaluation(variants, sets)
    assert _ids(kept) == ["4a"]
    assert (overlap.references, overlap.variants, overlap.by_id, overlap.by_text) == (4, 5, 3, 2)
    assert overlap.source_ids == ["r1", "r2", "e1", "r1"], "a source id per file it appears in"
    none_held = leave_out_evaluation(variants, EvaluationSets())
    assert none_held[0] == variants and none_held[1].references == 0 and none_held[1].source_ids == []


def test_groups_join_a_shared_name_or_a_shared_text_in_first_seen_order():
    items = [
        ("x1", "n1", "Text A."),
        ("x2", "n2", "Text B."),
        ("x3", "n1", "Text C."),  # same name as x1
        ("x4", "n3", "text  b."),  # same text as x2
        ("x5", "n4", "Text C."),  # same text as x3, so x1's group
        ("x6", "n5", "Text D."),
    ]
    groups = group_by_reference(items, lambda item: item[2], lambda item: item[1])
    assert [[item[0] for item in group] for group in groups] == [["x1", "x3", "x5"], ["x2", "x4"], ["x6"]]
    by_text = group_by_reference(items, lambda item: item[2])
    assert [[item[0] for item in group] for group in by_text] == [["x1"], ["x2", "x4"], ["x3", "x5"], ["x6"]]
    assert group_by_reference([], str) == []


def test_a_chain_of_shared_names_and_texts_is_one_reference():
    items = [("a", "n1", "T1"), ("b", "n2", "T2"), ("c", "n3", "T3"), ("d", "n2", "T1"), ("e", "n3", "T2")]
    (group,) = group_by_reference(items, lambda item: item[2], lambda item: item[1])
    assert [item[0] for item in group] == ["a", "b", "c", "d", "e"]


def test_variants_are_one_reference_by_source_id_within_a_file_only():
    variants = [
        _variant("a", "r1", reference="One."),
        _variant("b", "r1", file="g.jsonl", reference="Two."),
        _variant("c", "r1", reference="Three."),
    ]
    assert [_ids(group) for group in reference_groups(variants)] == [["a", "c"], ["b"]]


def _mixed(source: str, paraphrases: int, a: int, b: int) -> list[Variant]:
    made = [_variant(f"{source}-p{i}", source, "paraphrase") for i in range(paraphrases)]
    made += [_variant(f"{source}-a{i}", source, a=1) for i in range(a)]
    made += [_variant(f"{source}-b{i}", source, b=1) for i in range(b)]
    return made


def test_the_cap_takes_each_stratum_in_turn_and_keeps_the_order_read():
    variants = _mixed("r1", 3, 3, 1) + _mixed("r2", 1, 0, 0)
    kept = cap_per_reference(variants, 3, seed=0)
    first = [v for v in kept if v.source_id == "r1"]
    assert sorted(v.stratum for v in first) == ["a", "b", "paraphrase"], "one of each stratum before any second"
    assert _ids(kept) == [v.id for v in variants if v in kept], "the order read"
    assert [v.id for v in kept if v.source_id == "r2"] == ["r2-p0"]
    assert len(cap_per_reference(variants, 5, seed=0)) == 6 and cap_per_reference(variants, 5, seed=0)[-1].id == "r2-p0"
    assert cap_per_reference(variants, 3, seed=1) == cap_per_reference(variants, 3, seed=1), "seeded"
    assert len({tuple(_ids(cap_per_reference(variants, 1, seed=s))) for s in range(8)}) > 1, "the seed is used"
    assert len(cap_per_reference(variants, 1, seed=0)) == 2
    with pytest.raises(ValueError, match="^--max-per-reference must be at least 1, got 0$"):
        cap_per_reference(variants, 0, seed=0)


def test_the_turn_order_is_the_seeded_shuffle_of_strata_and_members():
    from radiology_tasks.judge_sensitivity.variant_split import _in_turn

    variants = _mixed("r1", 2, 3, 1)
    rng = random.Random("x")
    queues = [variants[:2], variants[2:5], variants[5:]]
    rng.shuffle(queues)
    for queue in queues:
        rng.shuffle(queue)
    expected = [queue[turn] for turn in range(3) for queue in queues if turn < len(queue)]
    assert _in_turn(variants, random.Random("x")) == expected
    assert _in_turn([], random.Random(0)) == []


def test_balancing_keeps_as_many_of_each_error_stratum_as_the_rarest():
    variants = _mixed("r1", 2, 3, 1) + [_variant("r1-ac", "r1", a=1, c=1), _variant("r1-ac2", "r1", a=1, c=1)]
    kept = balance_categories(variants, seed=0)
    assert sorted(v.stratum for v in kept) == ["a", "a+c", "b", "paraphrase", "paraphrase"]
    assert _ids(kept) == [v.id for v in variants if v in kept]
    rng = random.Random("0:balance-categories")
    chosen = [v for name in ("a", "a+c", "b") for v in rng.sample([v for v in variants if v.stratum == name], 1)]
    assert set(_ids(kept)) == {"r1-p0", "r1-p1", *_ids(chosen)}, "the seeded draw of each stratum"
    paraphrases = _mixed("r1", 2, 0, 0)
    assert balance_categories(paraphrases, seed=0) == paraphrases


@pytest.mark.parametrize(
    ("share", "paraphrases", "errors"),
    [(0.5, 4, 4), (0.25, 1, 3), (0.2, 1, 4), (1.0, 4, 0), (0.0, 0, 8), (0.4, 4, 6), (0.9, 4, 0)],
)
def test_the_paraphrase_share_drops_the_kind_in_excess(share, paraphrases, errors):
    # Four paraphrases, eight error variants. Too many paraphrases for the share (0.25, 0.2): every error variant
    # stays and round(share * 8 / (1 - share)) paraphrases (3, 2); too many error variants (0.5, 0.4, 0.9): every
    # paraphrase stays and round(4 * (1 - share) / share) error variants (4, 6, 0); 1 and 0 keep one kind only.
    variants = _mixed("r1", 4, 4, 0) + _mixed("r2", 0, 2, 2)
    kept = apply_paraphrase_share(variants, share, seed=0)
    counted = (sum(v.kind == "paraphrase" for v in kept), sum(v.kind == "error" for v in kept))
    expected_para = {0.5: 4, 0.25: 3, 0.2: 2, 1.0: 4, 0.0: 0, 0.4: 4, 0.9: 4}[share]
    expected_err = {0.5: 4, 0.25: 8, 0.2: 8, 1.0: 0, 0.0: 8, 0.4: 6, 0.9: 0}[share]
    assert counted == (expected_para, expected_err)
    assert _ids(kept) == [v.id for v in variants if v in kept]


def test_the_paraphrases_kept_are_the_seeded_turn_order():
    from radiology_tasks.judge_sensitivity.variant_split import _in_turn

    variants = _mixed("r1", 8, 4, 0) + _mixed("r2", 0, 2, 2)
    kept = apply_paraphrase_share(variants, 0.25, seed=7)  # 3 of the 8 paraphrases
    rng = random.Random("7:paraphrase-share")
    expected = _in_turn([v for v in variants if v.kind == "paraphrase"], rng)[:3]
    assert [v.id for v in kept if v.kind == "paraphrase"] == [v.id for v in variants if v in expected]


def test_a_share_of_zero_or_one_needs_only_one_kind():
    errors = _mixed("r1", 0, 2, 1)
    assert apply_paraphrase_share(errors, 0.0, seed=0) == errors
    paraphrases = _mixed("r1", 3, 0, 0)
    assert apply_paraphrase_share(paraphrases, 1.0, seed=0) == paraphrases
    assert apply_paraphrase_share(paraphrases, 0.0, seed=0) == []


def test_a_paraphrase_share_outside_zero_to_one_is_refused():
    for share in (-0.1, 1.5):
        with pytest.raises(ValueError, match=f"^--paraphrase-share must lie in \\[0, 1\\], got {share}$"):
            apply_paraphrase_share([], share, seed=0)
    assert apply_paraphrase_share([], 0.5, seed=0) == []


def test_the_split_puts_whole_shuffled_references_in_validation():
    variants = [_variant(f"{r}-{i}", r) for r in ("r1", "r2", "r3", "r4", "r5") for i in range(2)]
    split = split_by_reference(variants, 0.4, seed=3)
    grouped = reference_groups(variants)
    random.Random(3).shuffle(grouped)
    validation = {v.id for group in grouped[:2] for v in group}
    assert isinstance(split, Split)
    assert _ids(split.validation) == [v.id for v in variants if v.id in validation]
    assert _ids(split.train) == [v.id for v in variants if v.id not in validation]
    assert (split.train_references, split.validation_references) == (3, 2)
    shuffled = split_by_reference(variants, 0.4, seed=3, shuffled_order=True)
    assert _ids(shuffled.validation) == [v.id for group in grouped[:2] for v in group]
    assert _ids(shuffled.train) == [v.id for group in grouped[2:] for v in group]
    none = split_by_reference(variants, 0.0, seed=3)
    assert none.validation == [] and none.train == variants and none.validation_references == 0
    assert split_by_reference([], 0.5, seed=0) == Split([], [], 0, 0)


def test_the_split_refuses_fractions_that_leave_no_training_reference():
    variants = [_variant(f"{r}-0", r) for r in ("r1", "r2")]
    with pytest.raises(ValueError, match="^--val-fraction 0.75 leaves no training reference out of 2$"):
        split_by_reference(variants, 0.75, seed=0)
    assert split_by_reference(variants, 0.5, seed=0).validation_references == 1
    for fraction in (1.0, -0.1):
        with pytest.raises(ValueError, match=f"^--val-fraction must lie in \\[0, 1\\), got {fraction}$"):
            split_by_reference(variants, fraction, seed=0)


def test_pairs_split_with_their_own_grouping():
    pairs = [("p1", "Same."), ("p2", "same."), ("p3", "Other.")]
    split = split_by_reference(pairs, 0.5, seed=1, groups=lambda items: group_by_reference(items, lambda p: p[1]))
    assert {split.train_references, split.validation_references} == {1}
    assert {p[0] for p in split.validation} in ({"p1", "p2"}, {"p3"})


def test_composition_counts_references_kinds_strata_and_errors():
    variants = _mixed("r1", 1, 2, 0) + [_variant("r2-ac", "r2", a=1, c=2)]
    assert composition(variants) == {
        "references": 2,
        "variants": 4,
        "by_kind": {"error": 3, "paraphrase": 1},
        "by_category": {"a": 2, "a+c": 1, "paraphrase": 1},
        "by_n_errors": {"0": 1, "1": 2, "3": 1},
    }


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"max_per_reference": 0}, r"^--max-per-reference must be at least 1, got 0$"),
        ({"paraphrase_share": 1.5}, r"^--paraphrase-share must lie in \[0, 1\], got 1.5$"),
        ({"val_fraction": 1.0}, r"^--val-fraction must lie in \[0, 1\), got 1.0$"),
    ],
)
def test_the_export_options_refuse_a_bad_control_when_built(options, message):
    from radiology_tasks.judge_sensitivity.variant_export import ExportOptions

    with pytest.raises(ValueError, match=message):
        ExportOptions(**options)
    assert ExportOptions(max_per_reference=1, paraphrase_share=1.0, val_fraction=0.0).val_fraction == 0.0
