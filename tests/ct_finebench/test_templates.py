"""The two CT-FineBench prompts render with every variable, fixed instructions first and the data last."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from radiology_tasks.templates import render

QUESTIONS = [{"id": "q1", "text": "QUESTION-ONE?"}, {"id": "q2", "text": "QUESTION-TWO?"}]
ITEMS = [{"id": "q2", "question": "QUESTION-TWO?", "reference": "REFERENCE-ANSWER", "candidate": "CANDIDATE-ANSWER"}]


def test_extraction_prompt_shows_the_questions_then_the_candidate_and_never_the_reference():
    text = render("ct_finebench/extract", questions=QUESTIONS, candidate="CANDIDATE-TEXT", answer_max_chars=80)
    assert text.index("## Questions\nq1: QUESTION-ONE?\nq2: QUESTION-TWO?\n") < text.index(
        "<candidate_report>\nCANDIDATE-TEXT\n</candidate_report>"
    )
    assert "at most 80 characters" in text and "null" in text
    assert "REFERENCE" not in text


def test_comparison_prompt_shows_each_item_between_tags():
    text = render("ct_finebench/compare", items=ITEMS)
    assert (
        '<item id="q2">\nQuestion: QUESTION-TWO?\nReference answer: <reference_answer>REFERENCE-ANSWER'
        "</reference_answer>\nCandidate answer: <candidate_answer>CANDIDATE-ANSWER</candidate_answer>\n</item>\n"
    ) in text
    assert text.index("## Grades") < text.index("## Items")


@pytest.mark.parametrize(
    ("name", "variables"),
    [("ct_finebench/extract", {"questions": QUESTIONS, "candidate": "x"}), ("ct_finebench/compare", {})],
)
def test_a_missing_variable_is_an_error(name: str, variables: dict) -> None:
    with pytest.raises(UndefinedError):
        render(name, **variables)


def test_the_family_s_prompt_templates_are_these():
    from radiology_tasks.templates import template_names

    assert [name for name in template_names() if name.startswith("ct_finebench/")] == [
        "ct_finebench/compare",
        "ct_finebench/construct_attributes",
        "ct_finebench/construct_existence",
        "ct_finebench/construct_triplets",
        "ct_finebench/extract",
    ]
