"""The patient context read from a pair: the first age and sex columns given, the indication, or None for each."""

from __future__ import annotations

import pytest

from radiology_tasks.core.records import ReportPair
from radiology_tasks.crimson.context import patient_context


def pair(indication: str | None = None, **metadata: object) -> ReportPair:
    return ReportPair(id="x", reference="R.", candidate="C.", indication=indication, metadata=metadata)


def test_nothing_given_is_recorded_as_absent():
    assert patient_context(pair()) == {
        "age": None,
        "age_column": None,
        "sex": None,
        "sex_column": None,
        "indication": None,
    }


def test_the_first_age_column_given_is_used_as_written():
    context = patient_context(pair(age=" ", patient_age=54, PatientAge="072Y"))
    assert (context["age"], context["age_column"]) == ("54", "patient_age")
    assert patient_context(pair(PatientAge="072Y"))["age"] == "072Y"
    assert patient_context(pair(age=True, PatientAge="001D"))["age"] == "001D"


@pytest.mark.parametrize(
    ("columns", "sex", "column"),
    [
        ({"sex": "F", "PatientSex": "M"}, "F", "sex"),
        ({"patient_sex": " M ", "gender": "F"}, "M", "patient_sex"),
        ({"PatientSex": "O"}, "O", "PatientSex"),
        ({"sex": "", "gender": "female"}, "female", "gender"),
        ({"PatientSex": "  "}, None, None),
    ],
)
def test_the_first_sex_column_given_is_used_as_written(columns, sex, column):
    context = patient_context(pair(**columns))
    assert (context["sex"], context["sex_column"]) == (sex, column)
    assert context["age"] is None


def test_a_blank_indication_is_absent():
    assert patient_context(pair(indication="  "))["indication"] is None
    assert patient_context(pair(indication=" Fever. "))["indication"] == "Fever."


def test_the_pairs_own_age_comes_first():
    # The flat `age` column is read into the pair (ReXrank's context too), not left in its metadata.
    typed = ReportPair(id="x", reference="R.", candidate="C.", age="50-60", metadata={"PatientAge": "072Y"})
    assert patient_context(typed) == {
        "age": "50-60",
        "age_column": "age",
        "sex": None,
        "sex_column": None,
        "indication": None,
    }
    # So is the pair's own sex, before a metadata column.
    both = ReportPair(id="y", reference="R.", candidate="C.", sex="F", metadata={"PatientSex": "M"})
    assert (patient_context(both)["sex"], patient_context(both)["sex_column"]) == ("F", "sex")
    assert patient_context(ReportPair(id="z", reference="R.", metadata={"PatientSex": "M"}))["sex"] == "M"
