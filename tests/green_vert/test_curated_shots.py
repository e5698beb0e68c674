"""The error-types few-shot set is read from its data file, each item checked."""

from __future__ import annotations

import pytest

from radiology_tasks.scorers.green_vert.curated_shots import ERROR_TYPE_SHOTS, _shot

GOOD = {
    "category": "a",
    "modality": "CT",
    "reference": "No effusion.",
    "candidate": "Small effusion.",
    "explanation": "The candidate adds an effusion.",
    "error": "Small effusion, absent in the reference.",
    "matched": ["No pneumothorax"],
}


def test_the_file_gives_one_shot_per_category_in_order():
    assert [shot.category for shot in ERROR_TYPE_SHOTS] == ["a", "b", "c", "d", "e", "f"]
    assert all(isinstance(shot.matched, tuple) and shot.matched for shot in ERROR_TYPE_SHOTS)


def test_an_item_is_read_whole_and_its_matches_as_a_tuple():
    shot = _shot(dict(GOOD), 1)
    assert shot.category == "a" and shot.matched == ("No pneumothorax",)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"extra": "x"}, "item 3: expected the fields"),
        ({"category": "g"}, "item 3, field 'category'"),
        ({"matched": "No pneumothorax"}, "item 3: every field must be text"),
        ({"reference": 4}, "item 3: every field must be text"),
    ],
)
def test_a_bad_item_is_refused_naming_the_file_item_and_field(change, message):
    with pytest.raises(ValueError, match=f"error_type_shots.json, {message}"):
        _shot({**GOOD, **change}, 3)
    missing = {key: value for key, value in GOOD.items() if key != "error"}
    with pytest.raises(ValueError, match="item 3: expected the fields"):
        _shot(missing, 3)
