"""The patient context CRIMSON's judge weighs findings by: age and indication, taken from the data as given."""

from __future__ import annotations

from typing import Any

from radiology_tasks.core.records import ReportPair

AGE_COLUMNS = ("age", "patient_age", "PatientAge")
"""Data columns read as the patient's age, first found first (RadPref's files call it ``PatientAge``); a column the
data model does not know lands in the pair's metadata."""


def patient_context(pair: ReportPair) -> dict[str, Any]:
    """The patient's age and indication as the data gives them (None when absent), and where the age came from.

    The values are passed to the judge as written (``072Y`` stays ``072Y``): the judge reads them, no code does.
    """
    if pair.age is not None:  # the flat `age` column (and ReXrank's context), read into the pair
        age: str | None = pair.age
        age_column: str | None = "age"
    else:
        age_column = next((c for c in AGE_COLUMNS if _given(pair.metadata.get(c))), None)
        age = str(pair.metadata[age_column]).strip() if age_column else None
    return {
        "age": age,
        "age_column": age_column,
        "indication": pair.indication.strip() if pair.indication and pair.indication.strip() else None,
    }


def _given(value: Any) -> bool:
    return value is not None and not isinstance(value, bool) and str(value).strip() != ""
