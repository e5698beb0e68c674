"""The construction prompts: fixed instructions first, the report last, every listed item shown."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from radiology_tasks.templates import render

LIMITS = {"max_triplets": 7, "finding_max_chars": 40, "attribute_max_chars": 24, "value_max_chars": 48}


def test_triplet_prompt_states_the_limits_and_ends_with_the_report() -> None:
    text = render("ct_finebench/construct_triplets", report="REPORT-TEXT", **LIMITS)
    assert (
        "At most 7 triplets. A finding has at most 40 characters, an attribute at most 24, a value at most 48" in text
    )
    assert text.index("## Answer format") < text.index("<report>\nREPORT-TEXT\n</report>")
    assert text.rstrip().endswith("Write the JSON object now.")


def test_existence_prompt_lists_each_finding_with_its_aliases_and_description() -> None:
    findings = [
        {"id": "f1", "name": "lung nodule", "aliases": ["pulmonary nodule", "PN"], "description": ""},
        {"id": "f2", "name": "pleural effusion", "aliases": [], "description": "Fluid in the pleural space."},
    ]
    text = render("ct_finebench/construct_existence", schema_findings=findings, report="REPORT-TEXT")
    assert (
        "## Findings\nf1: lung nodule (also written as: pulmonary nodule, PN)\n"
        "f2: pleural effusion. Fluid in the pleural space.\n\n## The report"
    ) in text
    assert text.index("## Findings") < text.index("<report>\nREPORT-TEXT\n</report>")


def test_attribute_prompt_shows_meaning_and_typical_answers_only_when_given() -> None:
    questions = [
        {
            "id": "a1",
            "text": "What is the size?",
            "finding": "lung nodule",
            "attribute": "size",
            "description": "",
            "examples": ["8 mm", "1.2 cm"],
        },
        {
            "id": "a2",
            "text": "Where is it?",
            "finding": "lung nodule",
            "attribute": "location",
            "description": "The lobe.",
            "examples": [],
        },
    ]
    text = render("ct_finebench/construct_attributes", questions=questions, report="REPORT-TEXT", answer_max_chars=80)
    assert (
        "a1: What is the size? (finding: lung nodule; attribute: size; typical answers: 8 mm, 1.2 cm)\n"
        "a2: Where is it? (finding: lung nodule; attribute: location; meaning: The lobe.)\n"
    ) in text
    assert "at most 80 characters" in text
    assert text.index("## Questions") < text.index("<report>\nREPORT-TEXT\n</report>")


@pytest.mark.parametrize(
    ("name", "variables"),
    [
        ("ct_finebench/construct_triplets", {"report": "x"}),
        ("ct_finebench/construct_existence", {"report": "x"}),
        ("ct_finebench/construct_attributes", {"questions": [], "report": "x"}),
    ],
)
def test_a_missing_variable_is_an_error(name: str, variables: dict) -> None:
    with pytest.raises(UndefinedError):
        render(name, **variables)


BOTH_REPORTS = {
    "reference": "REFERENCE-TEXT Small left pleural effusion.",
    "candidate": "CANDIDATE-TEXT Small right pleural effusion.",
    "report": "REFERENCE-TEXT Small left pleural effusion.",
    "questions": [{"id": "q1", "text": "Q?", "finding": "F", "attribute": "A", "description": "D", "examples": ["E"]}],
    "max_triplets": 20,
    "finding_max_chars": 40,
    "attribute_max_chars": 24,
    "value_max_chars": 48,
    "answer_max_chars": 80,
    "schema_findings": [{"id": "f1", "name": "pleural effusion", "aliases": ["effusion"], "description": "D"}],
}


@pytest.mark.parametrize(
    "name", ["ct_finebench/construct_triplets", "ct_finebench/construct_existence", "ct_finebench/construct_attributes"]
)
def test_questions_are_built_from_the_reference_alone(name: str) -> None:
    text = render(name, **BOTH_REPORTS)
    assert "REFERENCE-TEXT" in text and "CANDIDATE-TEXT" not in text
