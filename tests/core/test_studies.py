"""Folding report pairs into studies: which pairs are one study, what the study keeps, and what a run records."""

from __future__ import annotations

from typing import Any

import pytest

from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.studies import STUDIES, STUDY_FIELDS, as_run_used, fold_studies, recorded_studies

BASE: dict[str, Any] = {
    "reference": "Small left pleural effusion.",
    "modality": "XR",
    "anatomy": "chest",
    "language": "en",
    "indication": "Dyspnoea.",
    "images": ["frontal.png", "lateral.png"],
    "views": ["PA", "lateral"],
    "key_image": "frontal.png",
    "section": "findings",
    "age": "60-70",
    "sex": "F",
    "comparison": "None.",
    "prior": {"images": ["prior.png"], "report": "Normal chest."},
    "qa": [{"question": "Which side is the effusion on?", "answer": "left"}],
    "metadata": {"findings": "Blunted left costophrenic angle.", **dict.fromkeys(STUDY_FIELDS, "s1")},
}


def _pair(pair_id: str, **changes: Any) -> ReportPair:
    return ReportPair.model_validate({**BASE, "id": pair_id, **changes})


def test_the_candidates_of_one_study_fold_into_its_first_pair() -> None:
    pairs = [
        _pair("a", candidate="Left effusion.", expert={"score": 1.0}, metadata={**BASE["metadata"], "note": "x"}),
        _pair("b", candidate="No effusion.", expert={"score": 0.0}, metadata={**BASE["metadata"], "note": "y"}),
        _pair("c", reference="Right lower lobe pneumonia.", candidate="Pneumonia."),
        _pair("d", candidate="Effusion.", metadata={**BASE["metadata"], "note": "z"}),
    ]
    studies = fold_studies(pairs)
    assert [p.id for p in studies.pairs] == ["a", "c"]
    first = studies.pairs[0]
    assert (first.candidate, first.expert) == (None, None)
    assert first.metadata == {**BASE["metadata"], "study_pairs": ["a", "b", "d"]}
    assert (first.reference, first.images, first.qa) == (pairs[0].reference, pairs[0].images, pairs[0].qa)
    assert studies.summary()["pairs"] == 4 and studies.summary()["studies"] == 2
    assert studies.summary()["fields_not_shared"] == ["note"]


@pytest.mark.parametrize(
    "changes",
    [
        {"reference": "Large left pleural effusion."},
        {"modality": "CT"},
        {"anatomy": "abdomen"},
        {"language": "zh"},
        {"indication": "Fever."},
        {"images": ["lateral.png", "frontal.png"], "key_image": "frontal.png"},
        {"views": ["AP", "lateral"]},
        {"views": []},
        {"key_image": "lateral.png"},
        {"section": "findings_impression"},
        {"age": "70-80"},
        {"sex": "M"},
        {"comparison": "Radiograph of ___."},
        {"prior": {"images": ["prior.png"], "report": "Small effusion."}},
        {"prior": {"images": ["other_prior.png"], "report": "Normal chest."}},
        {"prior": None},
        {"qa": [{"question": "Which side is the effusion on?", "answer": "right"}]},
        {"metadata": {**BASE["metadata"], "findings": "Clear lungs."}},
        *({"metadata": {**BASE["metadata"], name: "s2"}} for name in STUDY_FIELDS),
    ],
    ids=lambda changes: "-".join(changes) if "metadata" not in changes else "metadata",
)
def test_pairs_that_differ_in_what_the_generator_or_judge_is_given_stay_two_studies(changes: dict) -> None:
    studies = fold_studies([_pair("a"), _pair("b", **changes)])
    assert [p.id for p in studies.pairs] == ["a", "b"]
    assert studies.summary()["studies"] == 2


def test_one_pair_per_study_changes_nothing_but_the_record() -> None:
    pairs = [_pair("a", candidate="One."), _pair("b", reference="Another study.", candidate="Two.")]
    studies = fold_studies(pairs)
    assert [p.model_copy(update={"metadata": {}}) for p in studies.pairs] == [
        p.model_copy(update={"candidate": None, "metadata": {}}) for p in pairs
    ]
    assert [p.metadata["study_pairs"] for p in studies.pairs] == [["a"], ["b"]]
    assert (studies.summary()["pairs"], studies.summary()["studies"]) == (2, 2)


def test_a_run_is_read_per_study_only_when_it_records_so() -> None:
    pairs = [_pair("a", candidate="One."), _pair("b", candidate="Two.")]
    recorded = {STUDIES: fold_studies(pairs).summary()}
    assert recorded_studies(recorded) and not recorded_studies({}) and not recorded_studies({STUDIES: None})
    assert [p.id for p in as_run_used(pairs, recorded)] == ["a"]
    assert as_run_used(pairs, {"source": "demo"}) == pairs
