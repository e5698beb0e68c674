"""Strict reading of the judge's JSON answers: per-id values, per-id problems, whole-answer problems."""

from __future__ import annotations

import pytest

from radiology_tasks.scorers.ct_finebench.answers import read_extraction, read_grades

IDS = ["q1", "q2", "q3"]


def test_values_nulls_and_the_null_token() -> None:
    reading = read_extraction('{"q1": "8 mm", "q2": null, "q3": " [null] "}', IDS)
    assert reading.values == {"q1": "8 mm", "q2": None, "q3": None}
    assert reading.problems == {} and reading.id_problems == {} and reading.format_problem is None


def test_missing_and_invalid_ids_are_problems_of_those_ids_only() -> None:
    reading = read_extraction('{"q1": "8 mm", "q3": 12, "note": "hi"}', IDS)
    assert reading.values == {"q1": "8 mm"}
    assert reading.id_problems == {
        "q2": "missing",
        "q3": "invalid_value: Input should be a valid string (got 12)",
    }
    assert reading.unexpected_keys == ("note",)
    assert reading.problems == {}  # partly readable: the caller asks again for q2 and q3 only


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("", "invalid_json: the answer is empty"),
        ('{"q1": "8 mm",', "invalid_json: Expecting property name enclosed in double quotes at character 14"),
        ('```json\n{"q1": "8 mm"}\n```', "invalid_json: Expecting value at character 0"),
        ('Here you go: {"q1": "8 mm"}', "invalid_json: Expecting value at character 0"),
        ('["8 mm"]', "not_an_object: the answer is a JSON list"),
        ('{"q1": "8 mm", "q1": "9 mm"}', "duplicate_key: q1"),
        ("{}", "no_question_answered: none of 3 question ids could be read (q1 missing)"),
        ('{"q1": 1, "q2": 2, "q3": 3}', "no_question_answered: none of 3 question ids could be read"),
    ],
)
def test_unreadable_answers_are_whole_answer_problems(text: str, problem: str) -> None:
    reading = read_extraction(text, IDS)
    assert reading.format_problem is not None and reading.format_problem.startswith(problem)
    assert reading.problems == {"answer": reading.format_problem}
    assert reading.values == {}


def test_grades_are_numbers_0_half_or_1() -> None:
    reading = read_grades('{"q1": 1, "q2": 0.5, "q3": 0}', IDS)
    assert reading.values == {"q1": 1.0, "q2": 0.5, "q3": 0.0}
    assert all(isinstance(v, float) for v in reading.values.values())


@pytest.mark.parametrize("value", ["true", '"1"', "0.7", "2", "-0.5", "null", "[1]"])
def test_anything_else_is_not_a_grade(value: str) -> None:
    reading = read_grades(f'{{"q1": {value}, "q2": 1}}', ["q1", "q2"])
    assert reading.values == {"q2": 1.0}
    assert reading.id_problems["q1"].startswith("invalid_value: ")


def test_an_answer_imitating_extra_ids_changes_nothing() -> None:
    reading = read_grades('{"q1": 0, "q1 ": 1, "Q1": 1, "grade": 1}', ["q1"])
    assert reading.values == {"q1": 0.0}
    assert reading.unexpected_keys == ("q1 ", "Q1", "grade")
