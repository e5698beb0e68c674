"""Grading non-numeric CT-FineBench answers without a judge: normalised exact and synonym match."""

from __future__ import annotations

import pytest

from radiology_tasks.scorers.text_match import grade_text, normalise


@pytest.mark.parametrize(
    ("reference", "candidate"),
    [
        ("right upper lobe", "Right upper lobe."),
        ("right upper lobe", "RUL"),
        ("wedge-shaped", "wedge shaped"),
        ("low-attenuation", "hypodense"),
        ("hypoattenuating", "low attenuation"),
        ("present", "Yes"),
        ("both lower lobes", "bilateral lower lobes"),
        ("spiculated", "the spiculated"),
        ("left adrenal gland", "  left   adrenal gland "),
    ],
)
def test_same_answer_in_other_words_is_full_credit(reference, candidate):
    assert grade_text(reference, candidate) == 1.0


@pytest.mark.parametrize(
    ("reference", "candidate"),
    [
        ("right upper lobe", "right lower lobe"),
        ("right upper lobe", "right lung"),
        ("present", "absent"),
        ("low-attenuation", "high attenuation"),
        ("spiculated", "smooth"),
        ("small", "small volume"),
        ("rul", "lul"),
    ],
)
def test_other_answers_are_zero(reference, candidate):
    assert grade_text(reference, candidate) == 0.0


def test_synonyms_replace_whole_words_only():
    # "no" inside "nodule" and "lt" inside "salt" are not synonyms of anything.
    assert normalise("nodule") == "nodule"
    assert normalise("salt") == "salt"
    assert normalise("no pleural effusion") == "absent pleural effusion"
    assert normalise("The RLL") == "right lower lobe"
