"""Sentence splitting keeps every byte, and `admits` accepts exactly the stated changes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences

DEMO = (
    "Comparison is made with CT chest from 14 months ago. A solid nodule in the right upper lobe measures 8 mm, "
    "previously 5 mm, consistent with interval growth. The nodule has spiculated margins. No new pulmonary nodules."
)


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        (
            DEMO,
            [
                "Comparison is made with CT chest from 14 months ago.",
                "A solid nodule in the right upper lobe measures 8 mm, "
                "previously 5 mm, consistent with interval growth.",
                "The nodule has spiculated margins.",
                "No new pulmonary nodules.",
            ],
        ),
        ("A 1.5 cm cyst. No mass.", ["A 1.5 cm cyst.", "No mass."]),
        ("Small nodes, e.g. Level II. Stable vs. Prior.", ["Small nodes, e.g. Level II.", "Stable vs. Prior."]),
        ("Impression: 1. Small effusion. 2. Clear lung.", ["Impression: 1. Small effusion.", "2. Clear lung."]),
        ("Findings:\nMild edema\n\nNo effusion.", ["Findings:", "Mild edema", "No effusion."]),
        ("Lungs clear. small print after a stop stays.", ["Lungs clear. small print after a stop stays."]),
        ('He said "no effusion." Then stop!  Really?', ['He said "no effusion."', "Then stop!", "Really?"]),
    ],
)
def test_sentences_end_where_a_reader_would_end_them(text: str, sentences: list[str]) -> None:
    assert list(split_sentences(text).sentences) == sentences


def test_whitespace_around_and_between_sentences_is_kept() -> None:
    split = split_sentences("  \nFirst one.   Second one.\n\nThird. \n")
    assert split.lead == "  \n"
    assert split.sentences == ("First one.", "Second one.", "Third.")
    assert split.separators == ("   ", "\n\n")
    assert split.trail == " \n"


@given(st.text(alphabet=st.sampled_from(list('ab .!?\n\t1(")ÄE')), max_size=80))
def test_joining_the_sentences_gives_the_text_back(text: str) -> None:
    split = split_sentences(text)
    assert split.join() == text
    assert all(s and s == s.strip() for s in split.sentences)
    assert all(sep and not sep.strip() for sep in split.separators)
    assert len(split.separators) == max(len(split.sentences) - 1, 0)


SPLIT = split_sentences("One is here. Two is here.\nThree is here. Four is here.")


def test_the_report_with_exactly_the_stated_replacement_is_admitted() -> None:
    assert SPLIT.admits("One is here. Two is NOT here.\nThree is here. Four is here.", {1: "Two is NOT here."})
    assert SPLIT.replaced({1: "Two is NOT here."}) == "One is here. Two is NOT here.\nThree is here. Four is here."


@pytest.mark.parametrize(
    "text",
    [
        "One is here. Two is NOT here.\nThree is here. Four is here!",  # another sentence changed
        "One is here.  Two is NOT here.\nThree is here. Four is here.",  # whitespace between sentences changed
        "One is here. Two is NOT here. Three is here. Four is here.",  # a line break lost
        "One is here. Two is here.\nThree is here. Four is here.",  # the stated change not made
        "Two is NOT here. One is here.\nThree is here. Four is here.",  # order changed
    ],
)
def test_any_other_difference_is_refused(text: str) -> None:
    assert not SPLIT.admits(text, {1: "Two is NOT here."})


def test_a_deleted_sentence_takes_either_neighbouring_whitespace_along() -> None:
    assert SPLIT.admits("One is here.\nThree is here. Four is here.", {1: ""})
    assert SPLIT.admits("One is here. Three is here. Four is here.", {1: ""})
    assert not SPLIT.admits("One is here.Three is here. Four is here.", {1: ""})
    assert SPLIT.admits("Two is here.\nThree is here. Four is here.", {0: ""})
    assert SPLIT.admits("One is here. Two is here.\nThree is here.", {3: ""})
    assert SPLIT.admits("One is here. Four is here.", {1: "", 2: ""})
    assert not SPLIT.admits("", {0: "", 1: "", 2: "", 3: ""})
