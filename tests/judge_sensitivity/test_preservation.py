"""The fact checks every variant passes, whatever the injector and its checker said: hand-made cases on plain text."""

from __future__ import annotations

import json

import pytest

from radiology_tasks.judge_sensitivity.rewrite import known_finding_terms
from radiology_tasks.scorers.judge_sensitivity.answers import (
    ParaphraseAnswer,
    SentenceParaphrase,
    Verdict,
    read_contract_answer,
)
from radiology_tasks.scorers.judge_sensitivity.checks import check_kept_facts
from radiology_tasks.scorers.judge_sensitivity.contracts import VERDICT_CONTRACT
from radiology_tasks.scorers.judge_sensitivity.preservation import (
    ALLOWED_CHANGES,
    fact_changes,
    finding_terms,
    preservation_problem,
    read_facts,
)
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from radiology_tasks.scorers.taxonomy import parse_taxonomy

TERMS = known_finding_terms()

PE = (
    "Acute pulmonary embolism in the left lower lobe segmental arteries. Small left pleural effusion. "
    "Wedge-shaped peripheral opacity in the left lower lobe, consistent with an infarct."
)
WEAK_PARAPHRASE = "Pulmonary arteries are patent. The right lung is clear. No acute abnormality."


def problem(reference: str, variant: str, categories: tuple[str, ...] = ()) -> str | None:
    found = preservation_problem(reference, variant, categories, TERMS)
    return None if found is None else found.problem


def test_the_weak_injectors_paraphrase_is_rejected_for_every_fact_it_changed() -> None:
    changes = {change.problem: change.detail for change in fact_changes(PE, WEAK_PARAPHRASE, TERMS)}
    assert changes == {
        "laterality_changed": "sides: reference left x3; variant right x1",
        "location_changed": "lobes: reference left lower lobe x2; variant none",
        "negation_changed": "negations: reference 0; variant 1",
        "finding_dropped": "no longer named: effusion, opacity",
    }
    found = preservation_problem(PE, WEAK_PARAPHRASE, (), TERMS)
    assert found is not None and found.problem == "laterality_changed"
    assert found.detail.startswith("not a change a paraphrase variant makes: sides: reference left x3")


@pytest.mark.parametrize(
    ("reference", "variant", "expected"),
    [
        # dropped finding
        (
            "Small left pleural effusion. No pneumothorax.",
            "Small left pleural collection. No pneumothorax.",
            "finding_dropped",
        ),
        # added finding
        ("The lungs are clear.", "The lungs are clear apart from a nodule.", "finding_added"),
        # flipped side
        ("Small left pleural effusion.", "Small right pleural effusion.", "laterality_changed"),
        ("Small left pleural effusion.", "Small bilateral pleural effusions.", "laterality_changed"),
        # another lobe on the same side
        ("Nodule in the right upper lobe.", "Nodule in the right lower lobe.", "location_changed"),
        # changed size, changed unit
        ("Right upper lobe nodule measures 8 mm.", "Right upper lobe nodule measures 14 mm.", "measurement_changed"),
        ("Right upper lobe nodule measures 8 mm.", "Right upper lobe nodule measures 8 cm.", "measurement_changed"),
        ("Right upper lobe nodule measures 8 mm.", "Right upper lobe nodule.", "measurement_changed"),
        # added and removed negation
        ("Heart size is normal.", "Heart size is not normal.", "negation_changed"),
        ("No pneumothorax.", "Pneumothorax.", "negation_changed"),
        ("No pneumothorax.", "A pneumothorax is present.", "negation_changed"),
    ],
)
def test_a_paraphrase_that_changes_a_fact_is_rejected_with_what_changed(
    reference: str, variant: str, expected: str
) -> None:
    assert problem(reference, variant) == expected


@pytest.mark.parametrize(
    ("reference", "variant"),
    [
        ("Small left pleural effusion.", "A small pleural effusion on the left."),
        ("Right upper lobe nodule measures 8 mm.", "An 8 mm nodule is seen in the RUL."),
        ("Right upper lobe nodule measures 8 mm.", "The right upper lobe holds a nodule of 0.8 cm."),
        ("No pneumothorax.", "There is no pneumothorax."),
        ("No pneumothorax.", "Pneumothorax is absent."),
        ("Multiple pulmonary nodules.", "Several nodules in the lungs."),
        ("Bilateral pleural effusions.", "Pleural effusions on both sides."),
        (PE, PE.replace("Acute", "There is acute").replace("consistent with", "in keeping with")),
    ],
)
def test_a_real_paraphrase_keeps_every_fact(reference: str, variant: str) -> None:
    assert fact_changes(reference, variant, TERMS) == []


@pytest.mark.parametrize(
    ("categories", "variant", "expected"),
    [
        # (c) wrong location: a flipped side or another lobe is what it says; a resized finding is not.
        (("c",), "Nodule of 8 mm in the left upper lobe. No pleural effusion.", None),
        (("c",), "Nodule of 8 mm in the right lower lobe. No pleural effusion.", None),
        (("c",), "Nodule of 14 mm in the right upper lobe. No pleural effusion.", "measurement_changed"),
        (("c",), "Nodule of 8 mm in the right upper lobe. Small pleural effusion.", "negation_changed"),
        # (d) wrong severity: a new size is what it says; a flipped side is not.
        (("d",), "Nodule of 14 mm in the right upper lobe. No pleural effusion.", None),
        (("d",), "Nodule of 8 mm in the left upper lobe. No pleural effusion.", "laterality_changed"),
        # (a) false finding: adds, never removes.
        (("a",), "Nodule of 8 mm in the right upper lobe. Small left pleural effusion.", None),
        (("a",), "Nodule of 8 mm in the right upper lobe, with a 2 cm mass. No pleural effusion.", None),
        (("a",), "Nodule of 8 mm in the right upper lobe.", "finding_dropped"),
        # (b) missed finding: removes, never adds.
        (("b",), "No pleural effusion.", None),
        (("b",), "Mass of 8 mm in the right upper lobe. No pleural effusion.", "finding_added"),
        # (e) invented comparison: a prior size may appear; a side may not change.
        (("e",), "Nodule of 8 mm in the right upper lobe, previously 5 mm. No pleural effusion.", None),
        (
            ("e",),
            "Nodule of 8 mm in the left upper lobe, new since the prior. No pleural effusion.",
            "laterality_changed",
        ),
        # A variant made with several types may change what any of them changes.
        (("a", "c"), "Nodule of 8 mm in the left upper lobe, with a 2 cm mass. No pleural effusion.", None),
        (("attribute",), "Nodule of 9 mm in the left upper lobe. No pleural effusion.", None),
        (("attribute",), "Nodule of 8 mm in the right upper lobe. Small pleural effusion.", "negation_changed"),
    ],
)
def test_an_error_variant_may_change_only_what_its_error_type_changes(
    categories: tuple[str, ...], variant: str, expected: str | None
) -> None:
    reference = "Nodule of 8 mm in the right upper lobe. No pleural effusion."
    assert problem(reference, variant, categories) == expected


def test_every_error_type_has_its_allowed_changes_and_an_unknown_one_is_refused() -> None:
    assert set(ALLOWED_CHANGES) == {"a", "b", "c", "d", "e", "f", "attribute"}
    with pytest.raises(KeyError):
        preservation_problem("A.", "B.", ("z",), TERMS)


def test_facts_read_from_text() -> None:
    facts = read_facts("Two nodules of 12 x 8 mm and 0.5 cm in the RUL; no effusion. Opacities bilaterally.", TERMS)
    assert dict(facts.measurements) == {("length", ("12", "8")): 1, ("length", ("5",)): 1}  # 0.5 cm is 5 mm
    assert dict(facts.sides) == {"right": 1, "both": 1}
    assert dict(facts.lobes) == {"right upper lobe": 1}
    assert facts.negations == 1
    assert facts.findings == {"nodule", "effusion", "opacity"}


def test_finding_terms_are_the_head_words_of_the_taxonomys_labels_and_wordings() -> None:
    taxonomy = parse_taxonomy(
        {
            "name": "t",
            "labels": [
                {
                    "column": "Pleural Effusion",
                    "key": "pleural_effusion",
                    "definition": "Fluid.",
                    "include": ["effusion of any size or side", "layering fluid", "hydropneumothorax"],
                },
                {
                    "column": "Lung Lesion",
                    "key": "lung_lesion",
                    "definition": "A lump.",
                    "include": ["pulmonary nodule or mass"],
                },
                {"column": "No Finding", "key": "no_finding", "derive": "none_of_the_others"},
            ],
        },
        "t.yaml",
    )
    assert finding_terms(taxonomy) == {"effusion", "hydropneumothorax", "lesion", "nodule", "mass"}
    # The bundled taxonomy gives the chest findings; words of place, size and quality are not findings.
    assert {"effusion", "pneumothorax", "nodule", "mass", "consolidation", "atelectasis", "edema"} <= TERMS
    assert not {"pulmonary", "size", "side", "left", "lung", "pleural", "acute"} & TERMS


def test_a_paraphrase_is_checked_sentence_by_sentence() -> None:
    """Each rewrite against its own sentence: facts swapped between sentences do not cancel out."""
    reference = split_sentences("Left pleural effusion. Right upper lobe nodule.")
    answer = ParaphraseAnswer(
        sentences=[
            SentenceParaphrase(sentence_index=0, paraphrase="Right pleural effusion."),
            SentenceParaphrase(sentence_index=1, paraphrase="Left upper lobe nodule."),
        ]
    )
    text = "Right pleural effusion. Left upper lobe nodule."
    assert fact_changes(reference.join(), text, TERMS)[0].problem == "location_changed"  # sides still one each
    checked = check_kept_facts(reference, answer, text, (), TERMS)
    assert (checked.text, checked.problem) == (None, "laterality_changed")
    assert checked.detail.startswith("sentence 0: not a change a paraphrase variant makes: sides: reference left x1")
    good = ParaphraseAnswer(
        sentences=[
            SentenceParaphrase(sentence_index=0, paraphrase="Effusion in the left pleural space."),
            SentenceParaphrase(sentence_index=1, paraphrase="A nodule in the RUL."),
        ]
    )
    assert check_kept_facts(reference, good, "x", (), TERMS).text == "x"


@pytest.mark.parametrize(
    ("answer", "problem_"),
    [
        ("The report is believable, and the document is believable, and the report is believable", "outside_contract"),
        ('```json\n{"plausible": true, "reason": "ok"}\n```', "outside_contract"),
        (json.dumps({"plausible": True, "reason": "x" * 201}), "outside_contract"),
        (json.dumps({"plausible": True, "reason": "the report is “fine”"}), "outside_contract"),
        (json.dumps({"plausible": "yes", "reason": "ok"}), "outside_contract"),
        ("", "empty_answer"),
    ],
)
def test_a_verdict_outside_its_contract_is_no_verdict(answer: str, problem_: str) -> None:
    reading = read_contract_answer(answer, Verdict, VERDICT_CONTRACT)
    assert reading.value is None and reading.reason == problem_


def test_a_verdict_in_its_contract_is_read() -> None:
    for plausible in (True, False):
        reading = read_contract_answer(json.dumps({"plausible": plausible, "reason": "ok"}), Verdict, VERDICT_CONTRACT)
        assert reading.value == Verdict(plausible=plausible, reason="ok")
