"""The report-pair data model: what it accepts, what it refuses and with which message."""

from __future__ import annotations

import re
from typing import Annotated

import pytest
from pydantic import BaseModel, ValidationError

from radiology_tasks.core.records import (
    CATEGORY_NAMES,
    ERROR_CATEGORIES,
    ErrorCounts,
    ExpertAnnotation,
    ReportPair,
    not_blank,
)


def test_error_counts_default_to_zero_and_sum() -> None:
    counts = ErrorCounts(b=2, f=3)
    assert counts.as_dict() == {"a": 0, "b": 2, "c": 0, "d": 0, "e": 0, "f": 3}
    assert list(counts.as_dict()) == list(ERROR_CATEGORIES) == list(CATEGORY_NAMES)
    assert counts.total == 5
    assert ErrorCounts().total == 0


@pytest.mark.parametrize("bad", [{"a": -1}, {"g": 1}, {"c": 1.5}])
def test_error_counts_refuse_negative_unknown_and_fractional(bad: dict) -> None:
    with pytest.raises(ValidationError):
        ErrorCounts(**bad)


@pytest.mark.parametrize(
    ("annotation", "normalised"),
    [
        ({"score": 3, "scale_min": 1, "scale_max": 5}, 0.5),
        ({"score": 0.2}, 0.2),
        ({"score": 2.5, "scale_min": 0, "scale_max": 5}, 0.5),
        ({"score": 10, "scale_min": 10, "scale_max": 20}, 0.0),
        ({"score": 20, "scale_min": 10, "scale_max": 20}, 1.0),
        ({"significant": {"a": 1}}, None),
    ],
)
def test_normalised_score(annotation: dict, normalised: float | None) -> None:
    assert ExpertAnnotation(**annotation).normalized_score == normalised


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        ({"scale_min": 5, "scale_max": 5}, "scale_max (5.0) must exceed scale_min (5.0)"),
        ({"scale_min": 5, "scale_max": 1}, "scale_max (1.0) must exceed scale_min (5.0)"),
        ({"score": 6, "scale_max": 5}, "expert score 6.0 lies outside its scale [0.0, 5.0]"),
        ({"score": -0.5}, "expert score -0.5 lies outside its scale [0.0, 1.0]"),
    ],
)
def test_expert_annotation_refuses_bad_scales(annotation: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        ExpertAnnotation(**annotation)


def test_scores_on_the_scale_ends_are_accepted() -> None:
    assert ExpertAnnotation(score=0).score == 0
    assert ExpertAnnotation(score=1).score == 1


def test_report_pair_defaults_and_stripped_id() -> None:
    pair = ReportPair(id="  r1 ", reference=" Normal. ")
    assert (pair.id, pair.reference, pair.candidate, pair.language) == ("r1", " Normal. ", None, "en")
    assert (pair.images, pair.qa, pair.metadata, pair.expert) == ([], [], {}, None)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"id": " ", "reference": "Normal."}, "id is empty"),
        ({"id": "r1", "reference": " \n"}, "reference report is empty"),
        ({"id": "r1", "reference": "Normal.", "candidate": "  "}, "candidate report is empty"),
        ({"id": "r1", "reference": "Normal.", "unknown": 1}, "Extra inputs are not permitted"),
    ],
)
def test_report_pair_refuses_blank_texts_and_unknown_fields(fields: dict, message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        ReportPair(**fields)


def test_report_pair_is_frozen() -> None:
    pair = ReportPair(id="r1", reference="Normal.")
    with pytest.raises(ValidationError):
        pair.id = "r2"  # type: ignore[misc]


class _Note(BaseModel):
    text: Annotated[str | None, not_blank("the note is empty")] = None


def test_not_blank_refuses_only_white_space_with_its_message_and_lets_none_and_text_through() -> None:
    assert _Note().text is None and _Note(text=" a ").text == " a "
    for blank in ("", " \t\n"):
        with pytest.raises(ValidationError, match="the note is empty"):
            _Note(text=blank)
