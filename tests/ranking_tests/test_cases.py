"""Reading ranking cases: the flat JSONL layout, the authors' RadJudge layout, and the errors bad input gets."""

from __future__ import annotations

import json
from collections.abc import Callable
from operator import setitem
from pathlib import Path

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.ranking_tests.cases import Relation, read_cases

# A two-category suite in the authors' RadJudge layout (field names, candidate keys, context object and the two
# forms of expected_ranking as the repository's test_cases.py has them); the texts are this project's.
AUTHORS_SUITE = [
    {
        "category": "Severity Grading",
        "description": "A wrong grade costs more the further it is off.",
        "tests": [
            {
                "id": "1a",
                "ground_truth": "Moderate right effusion.",
                "candidates": {"C1": {"text": "Small right effusion."}, "C2": {"text": "Massive right effusion."}},
                "expected_ranking": "C1 > C2",
            },
            {
                "id": "1b",
                "ground_truth": "Mild edema.",
                "candidates": {
                    "C1": {"text": "Mild edema."},
                    "C2": {"text": "Moderate edema."},
                    "C3": {"text": "No edema."},
                },
                "expected_ranking": ["C1 > C2", "C2 > C3"],
            },
        ],
    },
    {
        "category": "Context",
        "description": "Age and indication change what an omission costs.",
        "tests": [
            {
                "id": "2a",
                "ground_truth": "Free subdiaphragmatic air. Clear lungs.",
                "candidates": {
                    "C1": {"text": "Clear lungs.", "context": {"age": 60, "indication": "Sudden abdominal pain."}},
                    "C2": {"text": "Clear lungs.", "context": {"indication": "Day two after laparotomy."}},
                },
                "expected_ranking": "C2 > C1",
            },
            {
                "id": "2b",
                "ground_truth": "Clear lungs.",
                "candidates": {"C1": {"text": "Lungs are clear."}, "C2": {"text": "Clear lungs."}},
                "expected_ranking": "C1 = C2",
            },
        ],
    },
]


def _jsonl(tmp_path: Path, *rows: object, name: str = "cases.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n")
    return path


def _row(**changes: object) -> dict[str, object]:
    row: dict[str, object] = {
        "id": "c1",
        "category": "severity",
        "reference": "Moderate effusion.",
        "candidates": ["Small effusion.", "Large effusion.", "No effusion."],
    }
    row.update(changes)
    return {k: v for k, v in row.items() if v is not None}


def test_flat_case_relates_neighbours_best_first(tmp_path):
    (case,) = read_cases(_jsonl(tmp_path, _row()))
    assert [c.label for c in case.candidates] == ["C1", "C2", "C3"]
    assert case.relations == [Relation(better="C1", worse="C2"), Relation(better="C2", worse="C3")]


def test_flat_ties_make_neighbours_in_a_group_equal(tmp_path):
    (case,) = read_cases(_jsonl(tmp_path, _row(ties=[[2, 3]])))
    assert [str(r) for r in case.relations] == ["C1 > C2", "C2 = C3"]


def test_flat_context_goes_to_every_candidate_and_a_candidates_own_wins(tmp_path):
    row = _row(age=70, indication="Dyspnoea.", candidates=["A.", {"text": "B.", "indication": "After surgery."}])
    (case,) = read_cases(_jsonl(tmp_path, row))
    first, second = case.candidates
    assert (first.age, first.indication) == ("70", "Dyspnoea.")
    assert (second.age, second.indication) == ("70", "After surgery.")


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (_row(id=None), "line 2, field 'id': expected non-empty text"),
        (_row(category=" "), "line 2, field 'category': expected non-empty text"),
        (_row(reference=3.5), None),  # a number is read as text, as ages are
        (_row(candidates=["only one"]), "line 2, field 'candidates': expected a list of two or more"),
        (_row(candidates=["a", ""]), "line 2, field 'candidates[2]': expected non-empty text"),
        (_row(candidates=["a", {"txt": "b"}]), "line 2, candidate 2: unknown field 'txt'"),
        (_row(rank=[1, 2]), "line 2: unknown field 'rank'"),
        (_row(ties=[[1]]), "line 2, field 'ties': group [1] is not a list of two or more positions"),
        (_row(ties=[[1, 4]]), "line 2, field 'ties': group [1, 4] names a position outside 1..3"),
        (_row(ties=[[1, 3]]), "line 2, field 'ties': group [1, 3] is not a run of neighbouring positions"),
        (_row(ties=[[1, 2], [2, 3]]), "line 2, field 'ties': position 2 is in two groups"),
        (_row(ties=[[True, 2]]), "line 2, field 'ties': group [True, 2] is not a list"),
        (_row(ties="1,2"), "line 2, field 'ties': expected a list of groups"),
    ],
)
def test_flat_errors_name_file_line_and_field(tmp_path, row, message):
    path = _jsonl(tmp_path, _row(id="ok"), row)
    if message is None:
        assert read_cases(path)[1].reference == "3.5"
        return
    with pytest.raises(InputError) as error:
        read_cases(path)
    assert str(error.value).startswith(f"{path}, {message}"), str(error.value)


def test_flat_bad_json_and_duplicates_and_empty_files(tmp_path):
    with pytest.raises(InputError, match=r"cases.jsonl, line 1: not JSON"):
        read_cases(_jsonl(tmp_path, "{oops"))
    with pytest.raises(InputError, match=r"line 1: expected a JSON object, got list"):
        read_cases(_jsonl(tmp_path, "[1, 2]"))
    with pytest.raises(InputError, match="case id 'c1' appears twice"):
        read_cases(_jsonl(tmp_path, _row(), _row()))
    with pytest.raises(InputError, match="no ranking case in the file"):
        read_cases(_jsonl(tmp_path, ""))
    with pytest.raises(InputError, match="no such file"):
        read_cases(tmp_path / "missing.jsonl")
    other = tmp_path / "cases.csv"
    other.write_text("id\n")
    with pytest.raises(InputError, match=r"\.jsonl \(flat layout\) or \.py/\.json"):
        read_cases(other)


def _authors_py(tmp_path: Path, suite: object, prefix: str = "") -> Path:
    path = tmp_path / "test_cases.py"
    path.write_text(f'"""Ranking tests."""\n{prefix}\nRANKING_TESTS = {suite!r}\n')
    return path


def test_authors_suite_is_read_from_python_without_running_it(tmp_path):
    # Running this file would exit; reading it as data must not.
    path = _authors_py(tmp_path, AUTHORS_SUITE, prefix="raise SystemExit('ran the file')")
    cases = read_cases(path)
    assert [(c.id, c.category) for c in cases] == [
        ("1a", "Severity Grading"),
        ("1b", "Severity Grading"),
        ("2a", "Context"),
        ("2b", "Context"),
    ]
    assert [str(r) for r in cases[1].relations] == ["C1 > C2", "C2 > C3"]
    assert [str(r) for r in cases[2].relations] == ["C2 > C1"]
    assert [str(r) for r in cases[3].relations] == ["C1 = C2"]
    first, second = cases[2].candidates
    assert (first.age, first.indication, second.age, second.indication) == (
        "60",
        "Sudden abdominal pain.",
        None,
        "Day two after laparotomy.",
    )


def test_authors_suite_as_json_reads_the_same(tmp_path):
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(AUTHORS_SUITE))
    assert read_cases(path) == read_cases(_authors_py(tmp_path, AUTHORS_SUITE))


def test_a_chain_of_statements_is_read_pair_by_pair(tmp_path):
    suite = json.loads(json.dumps(AUTHORS_SUITE))
    suite[0]["tests"][1]["expected_ranking"] = "C1 > C2 = C3"
    cases = read_cases(_authors_py(tmp_path, suite))
    assert [str(r) for r in cases[1].relations] == ["C1 > C2", "C2 = C3"]


def _broken(change: str) -> list[dict[str, object]]:
    suite = json.loads(json.dumps(AUTHORS_SUITE))
    test = suite[0]["tests"][0]
    if change == "label":
        test["expected_ranking"] = "C1 > C9"
    elif change == "sign":
        test["expected_ranking"] = "C1 >= C2"
    elif change == "self":
        test["expected_ranking"] = "C1 > C1"
    elif change == "list":
        test["expected_ranking"] = []
    elif change == "context":
        test["candidates"]["C2"]["context"] = {"sex": "F"}
    elif change == "text":
        test["candidates"]["C2"] = {"text": ""}
    elif change == "one":
        test["candidates"] = {"C1": {"text": "x"}}
    return suite


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("label", "test 1a, field 'expected_ranking': 'C1 > C9' must compare candidates (C1, C2)"),
        ("sign", "test 1a, field 'expected_ranking': 'C1 >= C2' must compare candidates"),
        ("self", "test 1a, field 'expected_ranking': 'C1 > C1' compares C1 with itself"),
        ("list", "test 1a, field 'expected_ranking': empty list"),
        ("context", "test 1a, candidate C2, context: unknown field 'sex'"),
        ("text", "test 1a, field 'candidates.C2.text': expected non-empty text"),
        ("one", "test 1a, field 'candidates': expected an object of two or more candidates"),
    ],
)
def test_authors_errors_name_file_category_test_and_field(tmp_path, change, message):
    path = _authors_py(tmp_path, _broken(change))
    with pytest.raises(InputError) as error:
        read_cases(path)
    assert str(error.value).startswith(f"{path}, category 1 (Severity Grading), {message}"), str(error.value)


def test_authors_file_without_the_list_or_with_code_in_it_is_refused(tmp_path):
    empty = tmp_path / "other.py"
    empty.write_text("CASES = []\n")
    with pytest.raises(InputError, match="no RANKING_TESTS = \\[...\\] assignment"):
        read_cases(empty)
    computed = tmp_path / "computed.py"
    computed.write_text("RANKING_TESTS = make_tests()\n")
    with pytest.raises(InputError, match="line 1: RANKING_TESTS is not a plain literal"):
        read_cases(computed)
    broken = tmp_path / "broken.py"
    broken.write_text("RANKING_TESTS = [\n")
    with pytest.raises(InputError, match="not Python"):
        read_cases(broken)


IN_TEST = "category 1 (Severity Grading), "


_CHANGES: dict[str, Callable[[list, dict, dict], None]] = {
    "category not an object": lambda suite, category, test: setitem(suite, 0, "severity"),
    "tests not a list": lambda suite, category, test: setitem(category, "tests", {"1a": test}),
    "test not an object": lambda suite, category, test: setitem(category["tests"], 0, "1a"),
    "candidate not an object": lambda suite, category, test: setitem(
        test["candidates"], "C2", "Massive right effusion."
    ),
    "context not an object": lambda suite, category, test: setitem(test["candidates"]["C2"], "context", "elderly"),
    "statement not text": lambda suite, category, test: setitem(test, "expected_ranking", ["C1 > C2", 3]),
    "no reference": lambda suite, category, test: test.pop("ground_truth"),
    "no id on the second test": lambda suite, category, test: category["tests"][1].pop("id"),
    "extra test field": lambda suite, category, test: setitem(test, "notes", "x"),
    "extra category field": lambda suite, category, test: setitem(category, "notes", "x"),
    "empty category name": lambda suite, category, test: setitem(category, "category", ""),
    "empty age": lambda suite, category, test: setitem(test["candidates"]["C2"], "context", {"age": ""}),
    "indication not text": lambda suite, category, test: setitem(
        test["candidates"]["C2"], "context", {"indication": ["chest pain"]}
    ),
}
"""Each broken form of the authors' suite: a change to the suite, its first category and that category's first
test."""


def _suite_with(change: str) -> object:
    suite = json.loads(json.dumps(AUTHORS_SUITE))
    _CHANGES[change](suite, suite[0], suite[0]["tests"][0])
    return suite


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("category not an object", "category 1: expected an object with 'category' and 'tests'"),
        ("tests not a list", "category 1 (Severity Grading), field 'tests': expected a list of tests"),
        ("test not an object", "category 1 (Severity Grading), test 1: expected an object"),
        ("candidate not an object", IN_TEST + "test 1a, field 'candidates.C2': expected an object with 'text'"),
        ("context not an object", IN_TEST + "test 1a, field 'candidates.C2.context': expected an object"),
        ("statement not text", IN_TEST + "test 1a, field 'expected_ranking': 3 is not text such as 'C1 > C2'"),
        ("no reference", IN_TEST + "test 1a, field 'ground_truth': expected non-empty text"),
        ("no id on the second test", IN_TEST + "test 2, field 'id': expected non-empty text"),
        (
            "extra test field",
            IN_TEST + "test 1a: unknown field 'notes' (known: candidates, expected_ranking, ground_truth, id)",
        ),
        ("extra category field", "category 1: unknown field 'notes' (known: category, description, tests)"),
        ("empty category name", "category 1, field 'category': expected non-empty text"),
        ("empty age", IN_TEST + "test 1a, field 'candidates.C2.context.age': expected non-empty text"),
        ("indication not text", IN_TEST + "test 1a, field 'candidates.C2.context.indication': expected non-empty text"),
    ],
)
def test_every_field_of_the_authors_layout_is_checked_where_it_is(tmp_path, change, message):
    path = _authors_py(tmp_path, _suite_with(change))
    with pytest.raises(InputError) as error:
        read_cases(path)
    assert str(error.value).startswith(f"{path}, {message}"), str(error.value)


def test_the_authors_file_must_hold_a_list_and_json_must_parse(tmp_path):
    with pytest.raises(InputError, match=r"suite.py: expected a list of categories"):
        read_cases(_authors_py(tmp_path, {"category": "x"}).rename(tmp_path / "suite.py"))
    broken = tmp_path / "suite.json"
    broken.write_text('[{"category": ')
    with pytest.raises(InputError, match=r"suite.json: not JSON \(.* at line 1\)"):
        read_cases(broken)


def test_flat_candidates_own_context_and_blank_lines(tmp_path):
    row = _row(candidates=["A.", {"text": "B.", "age": 81}])
    path = _jsonl(tmp_path, "", _row(id="first"), "", row)
    first, second = read_cases(path)
    assert (first.id, second.candidates[1].age, second.candidates[0].age) == ("first", "81", None)
    with pytest.raises(InputError, match=r"line 1, field 'candidates\[2\]\.age': expected non-empty text"):
        read_cases(_jsonl(tmp_path, _row(candidates=["A.", {"text": "B.", "age": ""}])))
    with pytest.raises(InputError, match=r"line 1, field 'candidates\[2\]\.indication': expected non-empty text"):
        read_cases(_jsonl(tmp_path, _row(candidates=["A.", {"text": "B.", "indication": " "}])))
    with pytest.raises(InputError, match=r"line 1, field 'indication': expected non-empty text"):
        read_cases(_jsonl(tmp_path, _row(indication="")))
