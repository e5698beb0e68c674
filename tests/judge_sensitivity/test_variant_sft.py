"""Training data with known answers from synthesized report pairs: `radiology-tasks export-sft --variants`.

The variants here come from a scripted injector (`scripted_variants`): it changes the first N sentences of a
reference one error each and leaves every other sentence byte for byte, as `perturb`'s checks require of a real
injector, so every variant's counts are known. The tests hold every written target to those counts through the
task's own reader, and every split to whole references.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from radiology_tasks.cli import main
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES, ErrorCounts
from radiology_tasks.judge_sensitivity.dataset import distinct_references
from radiology_tasks.judge_sensitivity.scorer import classify_prompt, differences_prompt
from radiology_tasks.judge_sensitivity.variant_check import check_export
from radiology_tasks.judge_sensitivity.variant_sft import (
    KnownLine,
    PromptSettings,
    Variant,
    check_example,
    read_variants,
    variant_examples,
)
from radiology_tasks.judge_sensitivity.variant_split import (
    apply_paraphrase_share,
    balance_categories,
    cap_per_reference,
    evaluation_sets,
    file_sha256,
    reference_groups,
    report_key,
    split_by_reference,
)
from radiology_tasks.report_judge.scorer import judge_contract, judge_prompt
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from radiology_tasks.scorers.report_judge.grammar import Detail
from radiology_tasks.scorers.report_judge.known_answers import (
    KnownAnswer,
    assessment_answer,
    explanation,
    known_score,
    score_only_answer,
)
from radiology_tasks.scorers.report_judge.reading import read_scores
from radiology_tasks.scorers.report_judge.scores import formula_score
from radiology_tasks.solvers.judge_sensitivity.rows import PERTURB_FIELDS, variant_fields
from radiology_tasks.templates import template_hashes
from tests.conftest import write_jsonl

# --- a scripted injector ---------------------------------------------------------------------------------------

EDITS = {
    "a": lambda s: s.rstrip(".") + ", with a new 2 cm mass.",
    "b": lambda s: "",  # an omission deletes its sentence, as perturb allows for (b) and (f)
    "c": lambda s: s.rstrip(".") + " on the other side.",
    "d": lambda s: s.rstrip(".") + ", now severe.",
    "e": lambda s: s.rstrip(".") + ", new since the prior study.",
    "f": lambda s: "",
}


def scripted_variant(
    source_id: str, reference: str, errors: dict[str, int], *, changes: bool = True, several: bool = False
) -> dict[str, Any]:
    """A variants-file row with the given errors, one per sentence from the first, the rest byte for byte.

    `several` writes the row of a variant made with several categories (an ``errors`` object, category null).
    """
    split = split_sentences(reference)
    letters = [letter for letter, count in errors.items() for _ in range(count)]
    edited = {index: EDITS[letter](split.sentences[index]) for index, letter in enumerate(letters)}
    candidate = " ".join(edited.get(i, s) for i, s in enumerate(split.sentences) if edited.get(i, s))
    name = "+".join(f"{letter}{count}" for letter, count in errors.items()) or "paraphrase"
    row: dict[str, Any] = {"id": f"{source_id}:{name}", "source_id": source_id, "reference": reference}
    if not errors:
        rewritten = " ".join(f"In other words, {s[0].lower()}{s[1:]}" for s in split.sentences)
        return row | {"candidate": rewritten, "kind": "paraphrase", "category": None, "n_errors": 0, "changes": []}
    (category,) = errors if not several else (None,)
    row |= {"candidate": candidate, "kind": "error", "category": category, "n_errors": len(letters)}
    if several:
        row["errors"] = dict(errors)
    if changes:
        row["changes"] = [
            {"sentence_index": i, "original": split.sentences[i], "modified": edited[i], "explanation": f"error {x}"}
            for i, x in enumerate(letters)
        ]
    return row


def demo_variants(categories: str = "abcd", max_errors: int = 3) -> list[dict[str, Any]]:
    """The variants `perturb` plans for the bundled demo references (each category x 1..N, one paraphrase),
    plus one variant made with two categories, all made by the scripted injector."""
    rows = []
    for ref in distinct_references(load_pairs("demo").pairs):
        for category in categories:
            rows += [scripted_variant(ref.id, ref.reference, {category: n}) for n in range(1, max_errors + 1)]
        rows.append(scripted_variant(ref.id, ref.reference, {}))
        rows.append(scripted_variant(ref.id, ref.reference, {"a": 1, "c": 2}, several=True))
    return rows


@pytest.fixture
def demo_file(tmp_path: Path) -> Path:
    return write_jsonl(tmp_path / "variants.jsonl", demo_variants())


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def export(tmp_path: Path, files: Sequence[Path], *arguments: str) -> dict[str, Any]:
    out = tmp_path / "sft"
    assert main(["export-sft", "--variants", *map(str, files), "--out", str(out), *arguments]) == 0
    return json.loads((out / "manifest.json").read_text())


CANDIDATE = re.compile(r"<candidate_report>\n(.*?)\n</candidate_report>", re.S)
REFERENCE = re.compile(r"<reference_report>\n(.*?)\n</reference_report>", re.S)


def known_counts(row: dict[str, Any]) -> ErrorCounts:
    """What the row's variant was made with, read from the row itself."""
    if "errors" in row:
        return ErrorCounts(**row["errors"])
    return ErrorCounts(**({row["category"]: row["n_errors"]} if row["category"] else {}))


# --- the writer of known answers ----------------------------------------------------------------------------

counts = st.builds(ErrorCounts, **{letter: st.integers(0, 12) for letter in ERROR_CATEGORIES})


@settings(max_examples=150, deadline=None)
@given(
    significant=counts,
    insignificant=counts,
    matched=st.integers(0, 99),
    prompt=st.sampled_from(["vert", "green"]),
    detail=st.sampled_from(["full", "brief"]),
)
def test_every_known_answer_lies_in_the_contract_and_reads_back_exactly(
    significant: ErrorCounts, insignificant: ErrorCounts, matched: int, prompt: str, detail: Detail
) -> None:
    known = KnownAnswer(significant, matched, insignificant)
    answer = assessment_answer(known, with_score=prompt == "vert", detail=detail)
    assert re.fullmatch(judge_contract(prompt, detail).regex or "", answer)
    reading = read_scores(answer, prompt=prompt, candidate="Some candidate report.", missing_categories="strict")
    parts = reading.parts
    assert parts is not None
    assert (parts.significant, parts.insignificant, parts.matched) == (significant, insignificant, matched)
    assert not parts.filled_categories and not parts.quoted_sections
    if prompt == "vert":
        assert reading.values["vert"] == float(known.score)
    else:
        assert "[Overall Accuracy Score]" not in answer
    assert re.fullmatch(judge_contract("score").regex or "", score_only_answer(known))
    assert read_scores(score_only_answer(known), prompt="score", candidate=None).values == {"score": float(known.score)}


@pytest.mark.parametrize(
    ("matched", "significant", "insignificant", "score"),
    [(6, 0, 0, "1.0"), (0, 0, 0, "1.0"), (6, 1, 0, "0.7"), (8, 1, 0, "0.8"), (4, 3, 0, "0.4"), (0, 2, 0, "0.0")]
    + [(19, 1, 0, "0.9"), (99, 1, 0, "0.9"), (3, 0, 2, "0.7"), (1, 9, 0, "0.0")],
)
def test_the_known_score_is_the_formula_rounded_down_to_a_tenth(
    matched: int, significant: int, insignificant: int, score: str
) -> None:
    assert str(known_score(matched, significant, insignificant)) == score
    # 8 / (8 + 2) is 0.8 exactly and stays 0.8; 99 / 101 rounds down, below a clean paraphrase's 1.0.
    exact = formula_score(matched, significant, insignificant)
    assert float(score) <= exact < float(score) + 0.1 or (exact == 1.0 and score == "1.0")


@given(st.integers(0, 99), st.integers(0, 40), st.integers(0, 40))
def test_more_errors_never_raise_the_known_score(matched: int, significant: int, more: int) -> None:
    assert known_score(matched, significant + more, 0) <= known_score(matched, significant, 0)
    if significant:
        assert known_score(matched, significant, 0) < 1


def test_explanations_are_our_own_words_within_their_bounds() -> None:
    clean, one = KnownAnswer(ErrorCounts(), 5), KnownAnswer(ErrorCounts(b=2), 3)
    assert explanation(one) == (
        "The candidate has 2 clinically significant errors of type (b), missing a finding present in the "
        "reference; every other finding of the reference is conveyed."
    )
    assert explanation(one, "brief") == "Significant: (b) 2."
    assert explanation(clean, "brief") == "Same findings in other words; no errors."
    mixed = KnownAnswer(ErrorCounts(a=1, c=2), 0)
    assert explanation(mixed) == ("The candidate has 3 clinically significant errors: 1 of type (a), 2 of type (c).")
    crowded = KnownAnswer(ErrorCounts(a=99, b=99, c=99, d=99, e=99, f=99), 0, ErrorCounts(a=99, f=99))
    assert explanation(crowded, "brief") == "Errors: 594 significant, 198 insignificant."
    with pytest.raises(ValueError, match="every count must lie in 0..99"):
        KnownAnswer(ErrorCounts(a=100), 1)


# --- the demo's variants, exported ---------------------------------------------------------------------------

SETTINGS = [
    ("vert", "full", 1),
    ("vert", "brief", 1),
    ("green", "full", 1),
    ("score", "full", 1),
    ("vert", "full", 2),
    ("green", "brief", 2),
]


def _check_conversation(
    conversation: dict[str, Any], record: dict[str, Any], row: dict[str, Any], prompt: str, detail: Detail
) -> None:
    """One written conversation: its user turn is what the task sends, its answer reads back to the known counts."""
    user, assistant = (message["content"] for message in conversation["messages"])
    assert [m["role"] for m in conversation["messages"]] == ["user", "assistant"]
    assert CANDIDATE.search(user).group(1) == row["candidate"]
    n_sentences = len(split_sentences(row["reference"]).sentences)
    expected = known_counts(row)
    assert (record["errors"], record["matched"]) == (
        {k: v for k, v in expected.as_dict().items() if v},
        n_sentences - row["n_errors"],
    )
    if record["step"] == "differences":
        assert user == differences_prompt(reference=row["reference"], candidate=row["candidate"])
        assert json.loads(assistant) == {"differences": [c["explanation"] for c in row.get("changes", [])]}
        return
    if record["step"] == "classify":
        differences = [c["explanation"] for c in row["changes"]]
        assert user == classify_prompt(
            prompt,
            reference=row["reference"],
            candidate=row["candidate"],
            differences=differences,
            detail=detail,
        )
    else:
        # The user turn is exactly what the task sends (not stripped, nothing added).
        assert user == judge_prompt(prompt, reference=row["reference"], candidate=row["candidate"], detail=detail)
    reading = read_scores(assistant, prompt=prompt, candidate=row["candidate"], missing_categories="strict")
    known = KnownAnswer(expected, n_sentences - row["n_errors"])
    if prompt == "score":
        assert reading.values == {"score": float(known.score)}
        return
    assert reading.parts is not None
    assert reading.parts.significant == expected
    assert reading.parts.insignificant == ErrorCounts()
    assert reading.parts.matched == known.matched
    assert reading.values["green_ec"] == row["n_errors"]
    if prompt == "vert":
        assert reading.values["vert"] == float(known.score) == float(record["score"])


@pytest.mark.parametrize(("prompt", "detail", "passes"), SETTINGS)
def test_every_target_of_the_demo_export_reads_back_to_its_variants_counts(
    tmp_path: Path, demo_file: Path, prompt: str, detail: Detail, passes: int
) -> None:
    arguments = ["--prompt", prompt, "--detail", detail, "--passes", str(passes), "--val-fraction", "0.25"]
    manifest = export(tmp_path, [demo_file], *arguments)
    rows = {row["id"]: row for row in read_jsonl(demo_file)}
    out = tmp_path / "sft"
    sources: dict[str, set[str]] = {}
    texts: dict[str, set[str]] = {}
    written: Counter[str] = Counter()
    for name in ("train", "validation"):
        conversations, records = read_jsonl(out / f"{name}.jsonl"), read_jsonl(out / f"{name}.known.jsonl")
        assert len(conversations) == len(records) == manifest["splits"][name]["examples"]
        for conversation, record in zip(conversations, records, strict=True):
            row = rows[record["variant_id"]]
            sources.setdefault(row["source_id"], set()).add(name)
            texts.setdefault(report_key(row["reference"]), set()).add(name)
            written[f"{record['variant_id']} {record['step']}"] += 1
            _check_conversation(conversation, record, row, prompt, detail)
    # Every variant was written once per judge call, and no reference is in both files.
    steps = ["judge"] if passes == 1 else ["differences", "classify"]
    assert written == Counter(f"{variant} {step}" for variant in rows for step in steps)
    assert all(len(splits) == 1 for splits in [*sources.values(), *texts.values()])
    assert {name for splits in sources.values() for name in splits} == {"train", "validation"}
    assert manifest["prompt"]["templates"] == (
        {"judge": f"green_vert/{'sft_judge' if prompt == 'score' else prompt}"}
        if passes == 1
        else {
            "differences": "judge_sensitivity/differences",
            "classify": f"judge_sensitivity/classify on green_vert/{prompt}",
        }
    )


def test_the_demo_export_keeps_whole_references_and_counts_what_it_wrote(tmp_path: Path, demo_file: Path) -> None:
    manifest = export(tmp_path, [demo_file], "--val-fraction", "0.25", "--seed", "3")
    out = tmp_path / "sft"
    by_split = {
        name: {r["source_id"] for r in read_jsonl(out / f"{name}.known.jsonl")} for name in ("train", "validation")
    }
    assert not by_split["train"] & by_split["validation"]
    assert (len(by_split["train"]), len(by_split["validation"])) == (10, 4)  # round(14 * 0.25) references
    train = manifest["splits"]["train"]
    assert train["by_category"] == {"a": 30, "a+c": 10, "b": 30, "c": 30, "d": 30, "paraphrase": 10}
    assert train["by_n_errors"] == {"0": 10, "1": 40, "2": 40, "3": 50}
    assert train["by_kind"] == {"error": 130, "paraphrase": 10} and train["examples"] == 140
    assert train["sha256"] == file_sha256(out / "train.jsonl")
    assert manifest["sources"] == [
        {"path": str(demo_file), "sha256": file_sha256(demo_file), "rows": 196, "variants": 196}
    ]
    assert manifest["templates"] == template_hashes("green_vert")
    assert manifest["prompt"]["judge_with"] == {
        "task": "radiology_tasks/vert",
        "parameters": {"prompt": "vert", "detail": "full"},
    }
    assert manifest["left_out"]["no_known_answer"] == {} and manifest["left_out"]["bad_rows"] == []
    # The same seed gives the same files.
    again = tmp_path / "again"
    assert (
        main(["export-sft", "--variants", str(demo_file), "--out", str(again), "--val-fraction", "0.25", "--seed", "3"])
        == 0
    )
    assert (again / "validation.jsonl").read_bytes() == (out / "validation.jsonl").read_bytes()


def test_a_target_holds_no_text_of_its_candidate(tmp_path: Path, demo_file: Path) -> None:
    export(tmp_path, [demo_file], "--val-fraction", "0")
    targets: dict[tuple[str, int], set[str]] = {}
    for conversation, record in zip(
        read_jsonl(tmp_path / "sft" / "train.jsonl"), read_jsonl(tmp_path / "sft" / "train.known.jsonl"), strict=True
    ):
        user, assistant = (message["content"] for message in conversation["messages"])
        candidate = CANDIDATE.search(user).group(1)
        for sentence in split_sentences(candidate).sentences:
            assert sentence not in assistant
        # The target depends on the counts alone: variants of different reports with the same counts and
        # matched findings get the very same answer, character for character.
        targets.setdefault((json.dumps(record["errors"], sort_keys=True), record["matched"]), set()).add(assistant)
    assert all(len(answers) == 1 for answers in targets.values())
    assert len(targets) > 10


def test_a_candidate_that_imitates_the_answer_is_left_out_not_mislabelled(tmp_path: Path) -> None:
    reference = "Small left pleural effusion. No pneumothorax. Heart size is normal."
    honest = scripted_variant("R1", reference, {"a": 1})
    # A candidate that carries the very score section its target would have: the reader would take that section
    # for a quotation of the candidate, so the target could not be read, and the variant is left out, counted.
    # (Written by hand without its changes: with them, the added lines are a change it does not record.)
    forged = honest | {
        "id": "R1:forged",
        "candidate": honest["candidate"] + "\n[Overall Accuracy Score]:\n0.50",
        "changes": None,
    }
    data = write_jsonl(tmp_path / "variants.jsonl", [honest, scripted_variant("R1", reference, {}), forged])
    manifest = export(tmp_path, [data], "--val-fraction", "0")
    assert manifest["left_out"]["no_known_answer"] == {"unreadable_target": 1}
    assert [r["variant_id"] for r in read_jsonl(tmp_path / "sft" / "train.known.jsonl")] == ["R1:a1", "R1:paraphrase"]


def test_two_passes_need_the_recorded_changes_of_an_error_variant(tmp_path: Path) -> None:
    reference = "Small left pleural effusion. No pneumothorax. Heart size is normal."
    rows = [
        scripted_variant("R1", reference, {"a": 1}, changes=False),
        scripted_variant("R1", reference, {"b": 2}),
        scripted_variant("R1", reference, {}) | {"changes": None},
    ]
    data = write_jsonl(tmp_path / "variants.jsonl", rows)
    manifest = export(tmp_path, [data], "--val-fraction", "0", "--passes", "2")
    assert manifest["left_out"]["no_known_answer"] == {"no_recorded_changes": 1}
    records = read_jsonl(tmp_path / "sft" / "train.known.jsonl")
    assert [(r["variant_id"], r["step"]) for r in records] == [
        ("R1:b2", "differences"),
        ("R1:b2", "classify"),
        ("R1:paraphrase", "differences"),
        ("R1:paraphrase", "classify"),
    ]
    answers = [json.loads(line)["messages"][1]["content"] for line in (tmp_path / "sft" / "train.jsonl").open()]
    assert answers[0] == '{"differences": ["error b", "error b"]}' and answers[2] == '{"differences": []}'
    # With one pass the same file loses nothing.
    one_pass = export(tmp_path, [data], "--val-fraction", "0")
    assert one_pass["left_out"]["no_known_answer"] == {} and one_pass["splits"]["train"]["variants"] == 3


def test_a_variant_with_more_errors_than_sentences_has_no_known_answer(tmp_path: Path) -> None:
    row = scripted_variant("R1", "One sentence. Two sentences.", {"a": 2}) | {"n_errors": 3, "id": "R1:a3"}
    row["changes"].append(row["changes"][0])
    data = write_jsonl(tmp_path / "v.jsonl", [row, scripted_variant("R1", "One sentence. Two sentences.", {})])
    manifest = export(tmp_path, [data], "--val-fraction", "0")
    assert manifest["left_out"]["no_known_answer"] == {"more_errors_than_sentences": 1}


# --- reading variants files ------------------------------------------------------------------------------------


def test_a_variant_made_with_several_categories_is_read_and_refused_by_the_sensitivity_task(tmp_path: Path) -> None:
    reference = "Small left pleural effusion. No pneumothorax. Heart size is normal."
    row = scripted_variant("R1", reference, {"a": 1, "c": 2}, several=True)
    (variant,) = read_variants(str(write_jsonl(tmp_path / "v.jsonl", [row]))).variants
    assert (variant.significant, variant.n_errors, variant.stratum) == (ErrorCounts(a=1, c=2), 3, "a+c")
    # judge_sensitivity measures one error type per variant, so it refuses such a row instead of misreading it.
    with pytest.raises(ValueError, match="an error variant needs a category"):
        variant_fields({key: row[key] for key in ("source_id", "kind", "category", "n_errors")})


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"errors": {"a": 1, "c": 1}}, "n_errors: 3 is not the sum of the counts in errors"),
        ({"errors": {"a": 1, "x": 2}}, r"errors: unknown categories \['x'\]"),
        ({"errors": {"a": 3}, "category": "a"}, "category: must be null"),
        ({"errors": {"a": 0, "c": 3}}, "errors: every count must be a whole number of at least 1"),
        ({"errors": {}}, "errors: expected an object"),
        ({"changes": [{"sentence_index": 0}]}, "changes: expected a list of changes"),
        ({"changes": []}, "changes: 0 changes recorded for 3 errors"),
        (
            {"changes": [{"sentence_index": i, "original": "x", "explanation": "e"} for i in range(3)]},
            r"changes: sentence_index \(a number\), original and modified go together",
        ),
        ({"kind": "paraphrase", "errors": {"a": 3}}, "errors: only an error variant"),
        ({"candidate": None}, "candidate: missing"),
    ],
)
def test_bad_variant_rows_are_refused_by_name_or_skipped_and_listed(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    reference = "Small left pleural effusion. No pneumothorax. Heart size is normal."
    good = scripted_variant("R1", reference, {})
    bad = scripted_variant("R1", reference, {"a": 1, "c": 2}, several=True) | change
    data = str(write_jsonl(tmp_path / "v.jsonl", [good, bad]))
    with pytest.raises(ValueError, match=f"{re.escape(data)}: row id 'R1:a1\\+c2': {message}"):
        read_variants(data)
    skipped = read_variants(data, on_bad_rows="skip")
    assert [v.id for v in skipped.variants] == ["R1:paraphrase"]
    assert len(skipped.skipped) == 1 and re.match(message, skipped.skipped[0]["reason"])


def test_a_file_without_variants_and_a_source_id_with_two_references_are_refused(tmp_path: Path) -> None:
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [{"id": "p1", "reference": "A.", "candidate": "B."}])
    with pytest.raises(ValueError, match="not a variants file"):
        read_variants(str(pairs))
    rows = [scripted_variant("R1", "A one. A two.", {}), scripted_variant("R1", "B one. B two.", {"a": 1})]
    with pytest.raises(ValueError, match="source_id: 'R1' appears with two different references"):
        read_variants(str(write_jsonl(tmp_path / "v.jsonl", rows)))


def test_perturbs_fields_are_what_the_scripted_injector_writes() -> None:
    row = scripted_variant("R1", "One. Two.", {"a": 1})
    assert tuple(row) == PERTURB_FIELDS


# --- evaluation sets, size and balance -------------------------------------------------------------------------


def test_references_of_evaluation_sets_are_left_out_by_id_and_by_text(tmp_path: Path, demo_file: Path) -> None:
    rows = read_jsonl(demo_file)
    first, second = rows[0], next(r for r in rows if r["source_id"] != rows[0]["source_id"])
    evaluation = write_jsonl(
        tmp_path / "eval.jsonl",
        [
            {"id": first["source_id"], "reference": "An unrelated reference.", "candidate": "Anything."},
            {"id": "other", "reference": "  " + second["reference"].upper().replace(" ", "\n  "), "candidate": "x"},
        ],
    )
    # One reference is left out by its id, the other by its text (case and whitespace folded).
    code = main(
        ["export-sft", "--variants", str(demo_file), "--out", str(tmp_path / "b"), "--exclude", str(evaluation)]
        + ["--val-fraction", "0"]
    )
    assert code == 0
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    overlap = manifest["left_out"]["evaluation_overlap"]
    assert overlap == {
        "references": 2,
        "variants": 28,
        "by_id": 1,
        "by_text": 1,
        "source_ids": [first["source_id"], second["source_id"]],
    }
    written = {r["source_id"] for r in read_jsonl(tmp_path / "b" / "train.known.jsonl")}
    assert first["source_id"] not in written and second["source_id"] not in written and len(written) == 12
    assert manifest["evaluation_sets"] == [{"data": str(evaluation), "pairs": 2, "sha256": file_sha256(evaluation)}]
    # A dataset name has no file to hash; the bundled demo set holds every demo reference.
    demo = evaluation_sets(["demo"])
    assert demo.sources == ({"data": "demo", "pairs": 41, "sha256": None},)
    assert all(report_key(row["reference"]) in demo.texts for row in rows)


def test_size_and_balance_controls(tmp_path: Path, demo_file: Path) -> None:
    manifest = export(
        tmp_path, [demo_file], "--max-per-reference", "5", "--balance-categories", "--paraphrase-share", "0.3"
    )
    left_out = manifest["left_out"]
    assert left_out["max_per_reference"] == 196 - 14 * 5
    train, validation = manifest["splits"]["train"], manifest["splits"]["validation"]
    total = Counter(train["by_category"]) + Counter(validation["by_category"])
    errors = {name: count for name, count in total.items() if name != "paraphrase"}
    assert max(errors.values()) - min(errors.values()) <= 1  # balanced, then cut in turn over the categories
    kept = sum(total.values())
    assert total["paraphrase"] == round(0.3 * kept) or abs(total["paraphrase"] / kept - 0.3) < 0.03
    records = read_jsonl(tmp_path / "sft" / "train.known.jsonl") + read_jsonl(
        tmp_path / "sft" / "validation.known.jsonl"
    )
    assert max(Counter(r["source_id"] for r in records).values()) <= 5


# --- the split holds for any set of variants -------------------------------------------------------------------

REFERENCES = [f"Finding {i} one. Finding {i} two. Finding {i} three." for i in range(8)]


@st.composite
def variant_sets(draw: st.DrawFn) -> list[Variant]:
    """Random variants of a few references, some sharing a text under another id or in another file."""
    variants = []
    for index in range(draw(st.integers(1, 30))):
        text = draw(st.sampled_from(REFERENCES))
        file, shift = draw(st.sampled_from([("one.jsonl", 0), ("two.jsonl", 1)]))
        # Within a file an id names one reference (read_variants refuses anything else); across files the same
        # id may name another reference, and one reference may go by several ids.
        number = REFERENCES.index(text)
        source = draw(st.sampled_from([f"r{(number + shift) % len(REFERENCES)}", f"alias{number}"]))
        kind = draw(st.sampled_from(["error", "error", "paraphrase"]))
        errors = (
            {}
            if kind == "paraphrase"
            else draw(st.dictionaries(st.sampled_from("abcd"), st.integers(1, 2), min_size=1, max_size=2))
        )
        variants.append(
            Variant(f"v{index}", source, text, f"candidate {index}", kind, ErrorCounts(**errors), None, file)
        )
    return variants


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variants=variant_sets(),
    val_fraction=st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9]),
    seed=st.integers(0, 5),
    limit=st.none() | st.integers(1, 4),
    balance=st.booleans(),
    share=st.none() | st.sampled_from([0.0, 0.2, 0.5, 1.0]),
)
def test_no_reference_is_in_both_splits_whatever_the_variants_and_controls(
    variants: list[Variant], val_fraction: float, seed: int, limit: int | None, balance: bool, share: float | None
) -> None:
    kept = variants
    if limit is not None:
        kept = cap_per_reference(kept, limit, seed)
        assert all(len(group) <= limit for group in reference_groups(kept))
        # A cap never drops a whole reference, and keeps every stratum it can.
        assert len(reference_groups(kept)) == len(reference_groups(variants))
    if balance:
        kept = balance_categories(kept, seed)
        assert len(set(Counter(v.stratum for v in kept if v.kind == "error").values())) <= 1
    if share is not None:
        before = Counter(v.kind for v in kept)
        kept = apply_paraphrase_share(kept, share, seed)
        after = Counter(v.kind for v in kept)
        if share in (0.0, 1.0):
            assert after["paraphrase" if share == 0.0 else "error"] == 0
        elif after["paraphrase"] and after["error"]:
            # One side is kept whole and the other cut to the share, to rounding.
            assert before["paraphrase"] == after["paraphrase"] or before["error"] == after["error"]
            ideal = share * after["error"] / (1 - share) if before["error"] == after["error"] else None
            if ideal is not None:
                assert abs(after["paraphrase"] - ideal) <= 0.5
    assert all(any(v is original for original in variants) for v in kept)
    groups = len(reference_groups(kept))
    if groups and round(groups * val_fraction) >= groups:
        with pytest.raises(ValueError, match="leaves no training reference"):
            split_by_reference(kept, val_fraction, seed)
        return
    split = split_by_reference(kept, val_fraction, seed)
    assert sorted(map(id, split.train + split.validation)) == sorted(map(id, kept))
    for key in (lambda v: (v.file, v.source_id), lambda v: report_key(v.reference)):
        assert not {key(v) for v in split.train} & {key(v) for v in split.validation}
    assert split.validation_references == round(groups * val_fraction)
    assert split.train_references + split.validation_references == groups


def test_references_sharing_a_text_are_one_reference_however_they_are_named() -> None:
    def variant(source: str, text: str, file: str = "f") -> Variant:
        return Variant(source + text, source, text, "c", "paraphrase", ErrorCounts(), None, file)

    variants = [
        variant("r1", "Same text."),
        variant("r2", " same   TEXT. "),
        variant("r3", "Other."),
        variant("r1", "x", "g"),
    ]
    assert [[v.id for v in group] for group in reference_groups(variants)] == [
        ["r1Same text.", "r2 same   TEXT. "],
        ["r3Other."],
        ["r1x"],
    ]


# --- options -----------------------------------------------------------------------------------------------------


def test_options_of_the_other_source_and_bad_settings_are_refused(tmp_path: Path, demo_file: Path, capsys) -> None:
    out = str(tmp_path / "out")
    cases = [
        (["--data", "demo", "--prompt", "green"], "--prompt applies only with --variants"),
        (["--variants", str(demo_file), "--skip-incomplete"], "--skip-incomplete applies only with --data"),
        (["--variants", str(demo_file), "--prompt", "score", "--detail", "brief"], "the score-only prompt has no"),
        (["--variants", str(demo_file), "--prompt", "score", "--passes", "2"], "the two-pass judge classifies"),
        (["--variants", str(demo_file), "--val-fraction", "1"], "--val-fraction must lie in [0, 1)"),
        (["--variants", str(demo_file), "--exclude", "demo"], "no variant is left to write: of 196 read, 196"),
    ]
    for arguments, message in cases:
        assert main(["export-sft", *arguments, "--out", out]) == 2
        assert message in capsys.readouterr().err
    for arguments in (["--max-per-reference", "0"], ["--paraphrase-share", "2"], ["--passes", "3"]):
        with pytest.raises(SystemExit):
            main(["export-sft", "--variants", str(demo_file), "--out", out, *arguments])
    with pytest.raises(SystemExit):
        main(["export-sft", "--data", "demo", "--variants", str(demo_file), "--out", out])


def test_the_command_prints_what_it_wrote_and_left_out(tmp_path: Path, demo_file: Path, capsys) -> None:
    bad = write_jsonl(tmp_path / "bad.jsonl", [scripted_variant("Z", "One. Two.", {}) | {"n_errors": 2}])
    out = tmp_path / "out"
    argv = ["export-sft", "--variants", str(demo_file), str(bad), "--out", str(out), "--on-bad-rows", "skip"]
    assert main([*argv, "--exclude", "demo", str(demo_file), "--val-fraction", "0"]) == 2
    capsys.readouterr()
    assert main([*argv, "--max-per-reference", "13", "--val-fraction", "0.5"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == [
        f"wrote 91 conversations to {out / 'train.jsonl'} (91 variants of 7 references)",
        f"wrote 91 conversations to {out / 'validation.jsonl'} (91 variants of 7 references)",
        "left out 14 variants by --max-per-reference",
        f"skipped {bad} Z:paraphrase: a paraphrase has category null and n_errors 0",
        f"wrote the manifest to {out / 'manifest.json'}",
        "checked 182 conversations: each answer reads back to its variant's known counts, and no reference is in "
        "both files",
    ]


def test_examples_and_checks_agree_for_every_prompt_setting() -> None:
    reference = "Small left pleural effusion. No pneumothorax. Heart size is normal."
    row = scripted_variant("R1", reference, {"d": 2})
    variant = Variant("v", "R1", reference, row["candidate"], "error", ErrorCounts(d=2), ("x", "y"), "f")
    for prompt, detail, passes in SETTINGS:
        settings_ = PromptSettings(prompt, detail, passes)
        made = variant_examples(variant, settings_)
        assert [example.step for example in made] == list(settings_.steps)
        assert all(check_example(example, settings_) is None for example in made)
    # A target that says one error fewer than the variant was made with is caught by the read-back.
    wrong = dataclasses.replace(made[-1], assistant=made[-1].assistant.replace(": 2.", ": 1.", 1))
    assert f"{CATEGORY_NAMES['d']}: 1." in wrong.assistant
    assert (check_example(wrong, settings_) or "").startswith("unreadable_target: reads")


# --- checking a written folder ------------------------------------------------------------------------------


def test_a_known_line_holds_the_variant_the_call_and_the_stated_numbers(tmp_path: Path, demo_file: Path) -> None:
    export(tmp_path, [demo_file], "--val-fraction", "0.25")
    lines = (tmp_path / "sft" / "train.known.jsonl").read_text().splitlines()
    raw = json.loads(lines[0])
    assert list(raw) == ["variant_id", "source_id", "file", "kind", "errors", "n_errors", "step", "matched", "score"]
    record = KnownLine.model_validate(raw)
    assert record.model_dump() == raw and json.dumps(record.model_dump(), ensure_ascii=False) == lines[0]
    assert record.n_errors == sum(record.errors.values()) and record.step == "judge"


@pytest.mark.parametrize(("prompt", "passes"), [("vert", 1), ("score", 1), ("green", 2)])
def test_the_check_of_a_written_folder_finds_a_changed_answer_and_a_leaked_reference(
    tmp_path: Path, demo_file: Path, prompt: str, passes: int
) -> None:
    export(tmp_path, [demo_file], "--prompt", prompt, "--passes", str(passes), "--val-fraction", "0.25")
    out = tmp_path / "sft"
    assert check_export(out).problems == [] and check_export(out).conversations == 196 * passes
    train, validation = out / "train.jsonl", out / "validation.jsonl"
    lines = train.read_text().splitlines()
    first = json.loads(lines[-1])
    answer = first["messages"][1]["content"]
    changed = ("0.1" if answer == "0.0" else "0.0") if prompt == "score" else answer.replace(": 0.", ": 1.", 1)
    first["messages"][1]["content"] = changed
    train.write_text("\n".join([*lines[:-1], json.dumps(first)]) + "\n")
    problems = check_export(out).problems
    assert problems[0] == "train.jsonl: its SHA-256 is not the manifest's"
    assert len(problems) == 2 and problems[1].startswith(f"train.jsonl line {len(lines)} (")
    # A validation conversation moved into the training file (records and manifest made to agree) is found.
    train.write_text("\n".join(lines) + "\n")
    moved, record = validation.read_text().splitlines()[0], (out / "validation.known.jsonl").read_text().splitlines()[0]
    train.write_text(train.read_text() + moved + "\n")
    (out / "train.known.jsonl").write_text((out / "train.known.jsonl").read_text() + record + "\n")
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["splits"]["train"] |= {"sha256": file_sha256(train), "examples": len(lines) + 1}
    (out / "manifest.json").write_text(json.dumps(manifest))
    source = json.loads(record)["source_id"]
    by_id, by_text = check_export(out).problems
    assert by_id == f"reference {source} is in both files"

    # The text check names the reference, the moved row and every validation row of the same reference.
    def reference_of(line: str) -> str:
        return REFERENCE.search(json.loads(line)["messages"][0]["content"]).group(1)

    same = [
        n
        for n, line in enumerate(validation.read_text().splitlines(), start=1)
        if reference_of(line) == reference_of(moved)
    ]
    assert by_text == (
        f"reference {reference_of(moved)[:57] + '...'!r} is in more than one file: train.jsonl row {len(lines) + 1}; "
        f"validation.jsonl rows {', '.join(map(str, same))}"
    )


# --- from `perturb` to training files ----------------------------------------------------------------------------


@pytest.mark.slow
def test_perturbs_own_output_on_the_demo_set_exports_with_known_answers(monkeypatch, capsys, tmp_path: Path) -> None:
    """One short injector run (a scripted injector behind a local OpenAI-compatible server), then the export."""
    from tests.judge_sensitivity.stub_models import injection
    from tests.judge_sensitivity.test_commands import cli
    from tests.judge_sensitivity.test_task import stub

    variants = tmp_path / "variants.jsonl"
    arguments = ["perturb", "--data", "demo", "--limit", "2", "--categories", "a,b", "--max-errors", "2"]

    def inject(prompt: str) -> str:
        # (a) adds a mass; (b) deletes its sentences, as a missed finding may (adding a mass is no missed finding).
        missed = "## The error to introduce\n(b)" in prompt
        return injection(prompt, change=(lambda s: "") if missed else None)

    code, _, _ = cli(
        [*arguments, "--out", str(variants), "--log-dir", str(tmp_path)], stub(inject=inject), monkeypatch, capsys
    )
    assert code == 0
    rows = {row["id"]: row for row in read_jsonl(variants)}
    assert len(rows) == 10 and all(len(row["changes"]) == row["n_errors"] for row in rows.values())
    manifest = export(tmp_path, [variants], "--passes", "2", "--val-fraction", "0.5")
    assert manifest["left_out"]["no_known_answer"] == {}
    for name in ("train", "validation"):
        out = tmp_path / "sft"
        for conversation, record in zip(
            read_jsonl(out / f"{name}.jsonl"), read_jsonl(out / f"{name}.known.jsonl"), strict=True
        ):
            row, answer = rows[record["variant_id"]], conversation["messages"][1]["content"]
            if record["step"] == "differences":
                assert json.loads(answer)["differences"] == ["added a mass"] * row["n_errors"]
                continue
            parts = read_scores(answer, prompt="vert", candidate=row["candidate"]).parts
            assert parts is not None and parts.significant == known_counts(row)
    assert manifest["splits"]["train"]["references"] == manifest["splits"]["validation"]["references"] == 1
