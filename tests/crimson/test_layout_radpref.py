"""RadPref read as its authors publish it: the folder recognised, one pair per (study, candidate) with the mean of
the radiologists' ratings, their own readings kept, the patient's context as written, and broken files refused."""

from __future__ import annotations

import json
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import resolve_local
from radiology_tasks.core.loading import LoadedPairs, load_pairs
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.tables import DataError
from radiology_tasks.crimson.context import patient_context
from tests.real_layouts import RADPREF_NORMAL, RADPREF_PREFERENCES, RADPREF_RATINGS, RADPREF_STUDIES, radpref_copy

S1, S2, S3, S4 = RADPREF_STUDIES


@pytest.fixture
def radpref(tmp_path: Path) -> Path:
    """The RadPref folder of a clone of the authors' repository."""
    return radpref_copy(tmp_path / "CRIMSON")


def by_id(loaded: LoadedPairs) -> dict[str, ReportPair]:
    return {pair.id: pair for pair in loaded.pairs}


def edit_json(path: Path, change: Callable[[Any], None]) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")


def rater_file(radpref: Path, rater: str) -> Path:
    return radpref / "radiologist_annotations" / f"user_{rater}.json"


@pytest.mark.parametrize("given", ["clone", "RadPref"])
def test_the_clone_and_its_radpref_folder_are_recognised_by_their_files(radpref: Path, given: str):
    folder = radpref.parent if given == "clone" else radpref
    data = resolve_local(folder)
    assert (data.layout.name, data.recognised_by) == ("radpref", "file names")
    assert data.files["preferences"] == [radpref / "preference_data.json"]
    assert data.files["annotations"] == [rater_file(radpref, rater) for rater in ("1", "2", "3")]
    assert resolve_local(folder, layout="radpref").files == data.files


def test_one_pair_per_study_and_candidate_in_the_files_order(radpref: Path):
    loaded = load_pairs(str(radpref))
    assert [pair.id for pair in loaded.pairs] == [
        f"{study}-{name}" for study in RADPREF_STUDIES for name in ("C1", "C2")
    ]
    for pair in loaded.pairs:
        study, name = pair.id.rsplit("-", 1)
        entry = RADPREF_PREFERENCES[RADPREF_STUDIES.index(study)]
        assert (pair.reference, pair.candidate) == (entry["ground_truth_report"], entry[f"{name}_report"])
        assert pair.metadata["study_id"] == study and pair.metadata["candidate_name"] == name
        assert pair.metadata["candidate_source"] == entry[f"{name}_source"]
        assert pair.metadata["candidate_findings"] == entry[f"{name}_findings"]
        assert pair.metadata["ground_truth_findings"] == entry["ground_truth_findings"]
        assert not any(key.startswith(("C1_", "C2_")) for key in pair.metadata)
        assert "candidate_report" not in pair.metadata
    summary = loaded.summary()
    assert (summary["layout"], summary["rows_read"], summary["rows_used"]) == ("radpref", 8, 8)
    assert summary["expert_scale"] == {"min": 1.0, "max": 5.0, "set_by": "layout radpref"}
    assert summary["annotations_unreadable"] == 0


def test_the_expert_score_is_the_mean_of_the_radiologists_ratings(radpref: Path):
    pairs = by_id(load_pairs(str(radpref)))
    for (study, name), ratings in RADPREF_RATINGS.items():
        pair = pairs[f"{study}-{name}"]
        assert pair.expert is not None
        assert pair.expert.score == sum(ratings.values()) / 3
        assert (pair.expert.scale_min, pair.expert.scale_max, pair.expert.raters) == (1.0, 5.0, 3)
        assert pair.metadata["rater_ratings"] == ratings
    exact = {key: Fraction(pairs[key].expert.score).limit_denominator(3) for key in (f"{S1}-C1", f"{S4}-C2")}
    assert exact == {f"{S1}-C1": Fraction(5, 3), f"{S4}-C2": Fraction(4)}
    assert pairs[f"{S1}-C1"].expert.normalized_score == pytest.approx((5 / 3 - 1) / 4)


def test_each_radiologists_errors_and_explanation_are_kept_as_given(radpref: Path):
    pairs = by_id(load_pairs(str(radpref)))
    errors = pairs[f"{S4}-C2"].metadata["rater_errors"]
    # Positions past the end of the candidate's findings list are kept as the files give them.
    assert set(errors) == {"1", "2", "3"} and set(errors["3"]["finding_errors"]) == {"1", "2"}
    assert errors["2"]["finding_errors"]["2"]["explanation"] == "symptom, not a radiological finding"
    assert errors["1"]["missing_findings"] == {}
    first = pairs[f"{S1}-C2"].metadata["rater_errors"]["1"]["finding_errors"]["1"]
    assert first == {"error_type": "attribute", "attributes": {"location": "significant"}}
    assert pairs[f"{S2}-C2"].metadata["rater_explanations"] == {"2": "Doesn\u2019t describe the heart "}
    # Absent for radiologist 1, blank for the others: nothing to keep.
    assert pairs[f"{S1}-C1"].metadata["rater_explanations"] == {}
    new = {"C1": [], "C2": [1, 2], "GT": []}
    assert pairs[f"{S4}-C1"].metadata["rater_new_finding_indices"] == {"1": new, "2": new}
    assert pairs[f"{S2}-C1"].metadata["rater_new_finding_indices"] == {}
    assert all(pair.expert.significant is None and pair.expert.insignificant is None for pair in pairs.values())


def test_the_patients_age_sex_and_indication_reach_crimsons_context_as_written(radpref: Path):
    pairs = by_id(load_pairs(str(radpref)))
    contexts = {study: patient_context(pairs[f"{study}-C2"]) for study in RADPREF_STUDIES}
    assert contexts[S1] == {
        "age": "072Y",
        "age_column": "PatientAge",
        "sex": "F",
        "sex_column": "PatientSex",
        "indication": "Central line placement.  Pneumonia.",
    }
    assert (contexts[S2]["age"], contexts[S2]["sex"]) == (None, "M")
    assert pairs[f"{S2}-C1"].metadata["PatientAge"] == "" and pairs[f"{S2}-C1"].metadata["Comparison"] == ""
    assert (contexts[S3]["age"], contexts[S3]["sex"]) == ("030M", "O")
    assert contexts[S4]["age"] == "001D"
    assert pairs[f"{S4}-C1"].metadata["StudyDescription"] == "DG CHEST 1V PORT"


def test_studies_sharing_a_normal_reference_stay_two_studies(radpref: Path):
    loaded = load_pairs(str(radpref), per_study=True)
    assert [pair.id for pair in loaded.pairs] == [f"{study}-C1" for study in RADPREF_STUDIES]
    assert [pair.reference for pair in loaded.pairs].count(RADPREF_NORMAL) == 2
    assert all(pair.candidate is None and pair.expert is None for pair in loaded.pairs)


def test_a_candidate_rated_by_no_one_has_no_expert_score_and_is_counted(radpref: Path):
    def unrate(rater: str, study: str, name: str) -> None:
        edit_json(rater_file(radpref, rater), lambda d: d["annotations"][study].pop(name))

    for rater in ("1", "2", "3"):
        unrate(rater, S4, "C2")
    unrate("3", S1, "C1")
    edit_json(rater_file(radpref, "2"), lambda d: d["annotations"].pop(S2))
    loaded = load_pairs(str(radpref))
    pairs = by_id(loaded)
    assert len(pairs) == 8
    unrated = pairs[f"{S4}-C2"]
    assert unrated.expert is None and unrated.metadata["rater_ratings"] == {}
    assert pairs[f"{S1}-C1"].expert.score == 1.5 and pairs[f"{S1}-C1"].expert.raters == 2
    assert pairs[f"{S2}-C2"].expert.score == 5.0 and pairs[f"{S2}-C2"].metadata["rater_ratings"] == {"1": 5, "3": 5}
    assert pairs[f"{S2}-C2"].metadata["rater_explanations"] == {}
    assert loaded.summary()["unreadable_annotations"] == [
        {"id": f"{S4}-C2", "row": 4, "annotation": "C2", "problem": "no radiologist rated this candidate"}
    ]


def _set(rater: str, study: str, *path: str, value: Any) -> tuple[str, Callable[[Any], None]]:
    def change(document: Any) -> None:
        target = document["annotations"][study]
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return f"radiologist_annotations/user_{rater}.json", change


def _drop(rater: str, study: str, name: str, key: str) -> tuple[str, Callable[[Any], None]]:
    return f"radiologist_annotations/user_{rater}.json", lambda d: d["annotations"][study][name].pop(key)


def _preferences(change: Callable[[Any], None]) -> tuple[str, Callable[[Any], None]]:
    return "preference_data.json", change


WHOLE = "expected a whole number from 1 to 5, got"
CANDIDATE_KEYS = "(known: finding_errors, missing_findings, rating, rating_explanation)"
BROKEN = {
    # user_2.json lists S1 first, user_3.json S3, S1, S4, S2.
    "rating missing": (_drop("2", S1, "C1", "rating"), 1, "C1.rating", f"study {S1}: missing"),
    "rating above 5": (_set("2", S1, "C2", "rating", value=6), 1, "C2.rating", f"study {S1}: {WHOLE} 6"),
    "rating 0": (_set("3", S4, "C1", "rating", value=0), 3, "C1.rating", f"study {S4}: {WHOLE} 0"),
    "rating as text": (_set("3", S2, "C2", "rating", value="4"), 4, "C2.rating", f"study {S2}: {WHOLE} '4'"),
    "rating not whole": (_set("2", S3, "C1", "rating", value=3.5), 3, "C1.rating", f"study {S3}: {WHOLE} 3.5"),
    "rating true": (_set("2", S3, "C1", "rating", value=True), 3, "C1.rating", f"study {S3}: {WHOLE} True"),
    "rating null": (_set("2", S3, "C1", "rating", value=None), 3, "C1.rating", f"study {S3}: {WHOLE} None"),
    "errors not an object": (
        _set("3", S3, "C2", "finding_errors", value=[]),
        1,
        "C2.finding_errors",
        f"study {S3}: expected an object keyed by position",
    ),
    "explanation not text": (
        _set("3", S3, "C2", "rating_explanation", value=3),
        1,
        "C2.rating_explanation",
        f"study {S3}: expected text",
    ),
    "unknown candidate key": (
        _set("2", S2, "C1", "score", value=4),
        2,
        "C1.score",
        f"study {S2}: not a key of RadPref's files {CANDIDATE_KEYS}",
    ),
    "a third candidate": (
        _set("2", S2, "C3", value={"rating": 3}),
        2,
        "C3",
        f"study {S2}: not a key of RadPref's files (known: C1, C2, new_finding_indices)",
    ),
    "candidate not an object": (
        _set("2", S2, "C1", value=4),
        2,
        "C1",
        f"study {S2}: expected an object with the rating",
    ),
    "study not an object": (
        ("radiologist_annotations/user_1.json", lambda d: d["annotations"].update({S2: [4, 5]})),
        2,
        "annotations",
        f"study {S2}: expected an object with C1 and C2",
    ),
    "unknown study": (
        ("radiologist_annotations/user_3.json", lambda d: d["annotations"].update({"pGRDN0UNKNOWN": {}})),
        5,
        "annotations",
        "study 'pGRDN0UNKNOWN' is not in preference_data.json",
    ),
    "one radiologist twice": (
        ("radiologist_annotations/user_3.json", lambda d: d.update(user_id="1")),
        None,
        "user_id",
        "radiologist '1' also has the file user_1.json",
    ),
    "blank radiologist id": (
        ("radiologist_annotations/user_1.json", lambda d: d.update(user_id=" ")),
        None,
        "user_id",
        "expected the radiologist's id, got ' '",
    ),
    "radiologist id not text": (
        ("radiologist_annotations/user_1.json", lambda d: d.update(user_id=True)),
        None,
        "user_id",
        "expected the radiologist's id, got True",
    ),
    "unknown key of a radiologist's file": (
        ("radiologist_annotations/user_2.json", lambda d: d.update(comment="done")),
        None,
        "comment",
        "not a key of RadPref's files (known: user_id, annotations)",
    ),
    "annotations not an object": (
        ("radiologist_annotations/user_1.json", lambda d: d.update(annotations=[])),
        None,
        "annotations",
        "expected an object keyed by study id",
    ),
    "reference blank": (
        _preferences(lambda d: d[2].update(ground_truth_report=" ")),
        3,
        "ground_truth_report",
        "empty",
    ),
    "candidate missing": (_preferences(lambda d: d[1].pop("C2_report")), 2, "C2_report", "missing"),
    "study twice": (
        _preferences(lambda d: d[3].update(id=S1)),
        4,
        "id",
        f"study {S1!r} appears twice (first in row 1)",
    ),
    "age not text": (_preferences(lambda d: d[0].update(PatientAge=72)), 1, "PatientAge", "expected text, got int"),
    "indication missing": (_preferences(lambda d: d[3].pop("Indication")), 4, "Indication", "missing"),
}


@pytest.mark.parametrize(("edit", "row", "field", "problem"), list(BROKEN.values()), ids=list(BROKEN))
def test_a_broken_entry_is_refused_naming_file_row_and_field(radpref: Path, edit, row, field, problem):
    name, change = edit
    edit_json(radpref / name, change)
    with pytest.raises(DataError) as refused:
        load_pairs(str(radpref), on_bad_rows="skip")
    error = refused.value
    assert (Path(error.source), error.row, error.field, error.problem) == (radpref / name, row, field, problem)


def test_a_radiologists_file_holding_a_list_is_refused(radpref: Path):
    path = rater_file(radpref, "2")
    path.write_text(json.dumps([json.loads(path.read_text(encoding="utf-8"))]), encoding="utf-8")
    with pytest.raises(DataError) as refused:
        load_pairs(str(radpref))
    error = refused.value
    assert (Path(error.source), error.row, error.field) == (path, None, None)
    assert error.problem == "expected a JSON object with user_id and annotations"


def test_a_whole_number_id_names_the_radiologist(radpref: Path):
    edit_json(rater_file(radpref, "2"), lambda d: d.update(user_id=2))
    pairs = by_id(load_pairs(str(radpref)))
    assert pairs[f"{S1}-C1"].metadata["rater_ratings"] == RADPREF_RATINGS[(S1, "C1")]


def test_a_null_age_sex_or_indication_is_not_given_and_other_keys_are_kept(radpref: Path):
    def change(entries: Any) -> None:
        entries[0].update(PatientAge=None, PatientSex=None, Indication=None, language="de", Priority="routine")

    edit_json(radpref / "preference_data.json", change)
    pair = by_id(load_pairs(str(radpref)))[f"{S1}-C1"]
    context = patient_context(pair)
    assert (context["age"], context["sex"], context["indication"], pair.indication) == (None, None, None, None)
    # A key the data model reads itself is kept under another name, so it cannot set the pair's language.
    assert pair.language == "en" and pair.metadata["hub_language"] == "de" and pair.metadata["Priority"] == "routine"


def test_a_radiologists_file_refers_to_the_study_by_id(radpref: Path):
    edit_json(rater_file(radpref, "1"), lambda d: d["annotations"].update({S3: {"C1": {"rating": 9}}}))
    with pytest.raises(DataError, match=f"row 4, field 'C1.rating': study {S3}: expected a whole number from 1 to 5"):
        load_pairs(str(radpref))


def test_one_file_alone_asks_for_the_folder(radpref: Path):
    with pytest.raises(InputError, match="also needs its annotations file 'user_\\*.json'.*pass the folder"):
        load_pairs(str(radpref / "preference_data.json"))
    with pytest.raises(InputError, match="also needs its preferences file 'preference_data.json'.*pass the folder"):
        load_pairs(str(rater_file(radpref, "1")))


def test_a_file_without_a_key_of_the_layout_is_named_with_the_key(radpref: Path):
    edit_json(rater_file(radpref, "2"), lambda d: d.pop("user_id"))
    with pytest.raises(InputError, match="user_2.json looks like the radpref layout's annotations file but lacks the "):
        load_pairs(str(radpref))


def test_a_folder_without_the_radiologists_files_is_not_radpref(radpref: Path):
    for rater in ("1", "2", "3"):
        rater_file(radpref, rater).unlink()
    with pytest.raises(InputError, match="lacks the radpref layout's files"):
        load_pairs(str(radpref), layout="radpref")
