"""The patient context CRIMSON's judge weighs findings by: age, sex and indication, taken from the data as given."""

from __future__ import annotations

from radiology_tasks.core.records import ReportPair

AGE_COLUMNS = ("age", "patient_age", "PatientAge")
"""Data columns read as the patient's age, first found first (RadPref's files call it ``PatientAge``); a column the
data model does not know lands in the pair's metadata."""

PatientContext = dict[str, str | None]
"""The patient's ``age``, ``sex`` and ``indication`` (None when the data gives none) and the ``age_column`` and
``sex_column`` they were read from."""

SEX_COLUMNS = ("sex", "patient_sex", "PatientSex", "gender")
"""Data columns read as the patient's sex, first found first (RadPref's files call it ``PatientSex``)."""


def patient_context(pair: ReportPair) -> PatientContext:
    """The patient's age, sex and indication as the data gives them (None when absent), and the columns read.

    The values are passed to the judge as written (``072Y`` stays ``072Y``, ``O`` stays ``O``): the judge reads
    them, no code does.
    """
    age_column, age = _read(pair, pair.age, AGE_COLUMNS)
    sex_column, sex = _read(pair, pair.sex, SEX_COLUMNS)
    return {
        "age": age,
        "age_column": age_column,
        "sex": sex,
        "sex_column": sex_column,
        "indication": pair.indication.strip() if pair.indication and pair.indication.strip() else None,
    }


def _read(pair: ReportPair, typed: str | None, columns: tuple[str, ...]) -> tuple[str | None, str | None]:
    """(column, value) of a context field: the pair's typed field (a flat column or ReXrank's context, read into the
    pair) first, then the first of `columns` the pair's metadata gives; (None, None) when none does."""
    if typed is not None:
        return columns[0], typed
    column = next((c for c in columns if _given(pair.metadata.get(c))), None)
    return column, str(pair.metadata[column]).strip() if column else None


def _given(value: object) -> bool:
    return value is not None and not isinstance(value, bool) and str(value).strip() != ""
