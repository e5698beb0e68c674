"""The patient context read from a pair: the first age column given, the indication, or None for each."""

from __future__ import annotations

from radiology_tasks.core.records import ReportPair
from radiology_tasks.crimson.context import patient_context


def pair(indication: str | None = None, **metadata: object) -> ReportPair:
    return ReportPair(id="x", reference="R.", candidate="C.", indication=indication, metadata=metadata)


def test_nothing_given_is_recorded_as_absent():
    assert patient_context(pair()) == {"age": None, "age_column": None, "indication": None}


def test_the_first_age_column_given_is_used_as_written():
    assert patient_context(pair(age=" ", patient_age=54, PatientAge="072Y")) == {
        "age": "54",
        "age_column": "patient_age",
        "indication": None,
    }
    assert patient_context(pair(PatientAge="072Y"))["age"] == "072Y"


def test_a_blank_indication_is_absent():
    assert patient_context(pair(indication="  "))["indication"] is None
    assert patient_context(pair(indication=" Fever. "))["indication"] == "Fever."


def test_the_pairs_own_age_comes_first():
    # The flat `age` column is read into the pair (ReXrank's context too), not left in its metadata.
    typed = ReportPair(id="x", reference="R.", candidate="C.", age="50-60", metadata={"PatientAge": "072Y"})
    assert patient_context(typed) == {"age": "50-60", "age_column": "age", "indication": None}
