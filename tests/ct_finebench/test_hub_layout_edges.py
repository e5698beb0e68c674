"""The ct-finebench layout at its edges: which shapes are recognised, and each layout message in full.

Every question file here is written by the test; the expected messages are spelled out by hand from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import QAPair
from radiology_tasks.ct_finebench.layout import (
    QUESTION_KEYS,
    QALayout,
    QALayoutError,
    detect_qa_layout,
    questions_by_report,
)
from tests.conftest import write_jsonl

SIZE = {"question": "What is the size of the nodule?", "answer": "6 mm", "finding": "lung nodule", "attribute": "size"}
EFFUSION = {
    "question": "Which side is the effusion on?",
    "answer": "left",
    "finding": "pleural effusion",
    "attribute": "laterality",
}
NO_ATTRIBUTE = {"question": "Is there a nodule?", "answer": "yes", "finding": "lung nodule"}
SIZE_QA = QAPair(question=SIZE["question"], answer="6 mm", finding="lung nodule", attribute="size")
EFFUSION_QA = QAPair(question=EFFUSION["question"], answer="left", finding="pleural effusion", attribute="laterality")
REPORTS = [
    {"id": "valid_1_a_1", "reference": "A 6 mm nodule in the right upper lobe."},
    {"id": "valid_2_a_1", "reference": "Small left pleural effusion."},
]
UPDATE = "update QUESTION_KEYS in radiology_tasks/ct_finebench/layout.py"


def question_file(tmp_path: Path, content: Any) -> Path:
    folder = tmp_path / "CT-FineBench"
    folder.mkdir()
    path = folder / "ctrate_qa_test.json"
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def questions(tmp_path: Path, content: Any, user_reports: list[dict[str, str]] = REPORTS) -> dict[str, list[QAPair]]:
    """The questions each of the user's reports gets, by report id."""
    reports = write_jsonl(tmp_path / "reports.jsonl", user_reports)
    loaded = load_pairs(str(question_file(tmp_path, content).parent), reports=str(reports))
    return {pair.id: pair.qa for pair in loaded.pairs}


def layout_error(tmp_path: Path, content: Any) -> str:
    with pytest.raises(QALayoutError) as error:
        questions(tmp_path, content)
    return str(error.value)


def label(tmp_path: Path) -> str:
    return str(tmp_path / "CT-FineBench" / "ctrate_qa_test.json")


def test_an_explicit_layout_reads_names_that_detection_does_not_know(tmp_path: Path) -> None:
    rows = [
        {"scan": "valid_1_a_1", "q": SIZE["question"], "a": "6 mm", "f": "lung nodule", "attr": "size"},
        {"scan": "valid_2_a_1", "q": EFFUSION["question"], "a": "left", "f": "pleural effusion", "attr": "laterality"},
    ]
    layout = QALayout(report_id="scan", question="q", answer="a", finding="f", attribute="attr")
    grouped = questions_by_report([question_file(tmp_path, rows)], layout)
    assert {report: [QAPair(**q) for q in items] for report, items in grouped.items()} == {
        "valid_1_a_1": [SIZE_QA],
        "valid_2_a_1": [EFFUSION_QA],
    }


TWELVE_KEYS = {f"k{n:02d}": "x" for n in range(1, 13)}


@pytest.mark.parametrize(
    ("content", "keys_found"),
    [
        pytest.param([TWELVE_KEYS], "k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12", id="twelve-keys"),
        pytest.param(
            [{**TWELVE_KEYS, "k13": "x"}],
            "k01, k02, k03, k04, k05, k06, k07, k08, k09, k10, k11, k12 and 1 more",
            id="thirteen-keys",
        ),
        pytest.param([SIZE], "answer, attribute, finding, question", id="question-without-report-id"),
        pytest.param(
            [{"report_id": "valid_1_a_1", "qa": ["What is the size?", "Where is it?"]}],
            "qa, report_id",
            id="questions-as-plain-strings",
        ),
        pytest.param([{"scan": 1, "q": "Size?"}], "q, scan", id="a-number-value"),
        pytest.param(
            [{"valid_1_a_1": [SIZE], "valid_2_a_1": [EFFUSION]}] * 2,
            "valid_1_a_1, valid_2_a_1",
            id="keyed-by-id-but-two-rows",
        ),
        pytest.param({"valid_1_a_1": [SIZE], "note": "x"}, "note, valid_1_a_1", id="keyed-by-id-with-another-field"),
        pytest.param({"valid_1_a_1": {"text": "A nodule."}}, "valid_1_a_1", id="report-object-without-questions"),
        pytest.param(
            {"data": [{"report_id": "valid_1_a_1", **SIZE}], "version": "1.0"},
            "data, version",
            id="wrapper-with-another-field",
        ),
    ],
)
def test_an_unknown_layout_is_one_message_naming_the_keys_found(tmp_path: Path, content: Any, keys_found: str) -> None:
    assert layout_error(tmp_path, content) == (
        f"{label(tmp_path)}: not a CT-FineBench layout this reader knows (keys found: {keys_found}); expected one "
        "question per row with a report id, one report per row with a list of questions, or an object keyed by "
        f"report id; {UPDATE}"
    )


@pytest.mark.parametrize(
    ("content", "where", "has"),
    [
        pytest.param(
            [{"report_id": "valid_1_a_1", **NO_ATTRIBUTE}],
            "the first row",
            "answer, finding, question, report_id",
            id="row-per-question",
        ),
        pytest.param(
            {"valid_1_a_1": {"qa": [NO_ATTRIBUTE]}},
            "'qa' of the first report with questions",
            "answer, finding, question",
            id="keyed-report-objects",
        ),
        pytest.param(
            {"valid_1_a_1": [NO_ATTRIBUTE]},
            "the first question",
            "answer, finding, question",
            id="keyed-question-lists",
        ),
    ],
)
def test_a_recognised_layout_missing_a_part_names_where_it_looked(
    tmp_path: Path, content: Any, where: str, has: str
) -> None:
    assert layout_error(tmp_path, content) == (
        f"{label(tmp_path)} has no key 'attribute' ({where} has: {has}); CT-FineBench's keys are not all "
        f"confirmed: if they differ, {UPDATE}"
    )


@pytest.mark.parametrize(
    "content",
    [
        pytest.param({"valid_1_a_1": {"qa": [SIZE]}}, id="keyed-report-object"),
        pytest.param({"valid_1_a_1": [SIZE]}, id="keyed-question-list"),
        pytest.param({"data": [{"report_id": "valid_1_a_1", **SIZE}]}, id="wrapped-row"),
    ],
)
def test_a_single_question_is_enough_to_recognise_the_layout(tmp_path: Path, content: Any) -> None:
    assert questions(tmp_path, content, user_reports=REPORTS[:1]) == {"valid_1_a_1": [SIZE_QA]}


def test_keyed_reports_may_mix_report_objects_and_bare_question_lists(tmp_path: Path) -> None:
    content = {"valid_1_a_1": {"qa": [SIZE]}, "valid_2_a_1": [EFFUSION]}
    assert questions(tmp_path, content) == {"valid_1_a_1": [SIZE_QA], "valid_2_a_1": [EFFUSION_QA]}


def test_a_later_question_missing_a_part_names_the_report_and_the_first_missing_part(tmp_path: Path) -> None:
    content = {"valid_1_a_1": [SIZE], "valid_2_a_1": [{"question": "Is there an effusion?", "answer": "no"}]}
    assert layout_error(tmp_path, content) == (
        f"{label(tmp_path)}, report 'valid_2_a_1': a question has no 'finding' (it has: answer, question); {UPDATE}"
    )


def test_a_file_with_no_questions_says_so(tmp_path: Path) -> None:
    assert layout_error(tmp_path, []) == f"{label(tmp_path)}: expected JSON objects holding questions"


def test_reports_whose_question_lists_are_all_empty_hold_no_questions(tmp_path: Path) -> None:
    path = question_file(tmp_path, [{"report_id": "valid_1_a_1", "qa": []}])
    with pytest.raises(QALayoutError) as error:
        questions_by_report([path], QALayout(qa_list="qa"))
    assert str(error.value) == f"{path}: the files hold no questions"


def test_detect_qa_layout_names_where_each_part_is(tmp_path: Path) -> None:
    records = [{"Volume_name": "valid_1_a_1", "QA_pairs": [{**SIZE, "Answer_type": "numeric"}]}]
    assert detect_qa_layout(records, "questions.json", QUESTION_KEYS) == QALayout(
        report_id="Volume_name",
        question="question",
        answer="answer",
        finding="finding",
        attribute="attribute",
        attribute_type="Answer_type",
        qa_list="QA_pairs",
    )
    assert detect_qa_layout([{"valid_1_a_1": [SIZE]}], "questions.json", QUESTION_KEYS) == QALayout(
        attribute_type=None, keyed_by_id=True
    )


@pytest.mark.parametrize(
    "content",
    [
        pytest.param([{"report_id": "valid_2_a_1", "qa": []}, {"report_id": "valid_1_a_1", "qa": [SIZE]}], id="rows"),
        pytest.param({"valid_2_a_1": [], "valid_1_a_1": [SIZE]}, id="keyed-lists"),
        pytest.param({"valid_2_a_1": {"qa": []}, "valid_1_a_1": {"qa": [SIZE]}}, id="keyed-objects"),
    ],
)
def test_a_first_report_without_questions_does_not_hide_the_layout(tmp_path: Path, content: Any) -> None:
    assert questions(tmp_path, content, user_reports=REPORTS[:1]) == {"valid_1_a_1": [SIZE_QA]}


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        pytest.param(
            [{"report_id": "valid_1_a_1", "qa": [SIZE]}, {"report_id": "valid_2_a_1"}],
            "report 'valid_2_a_1': no 'qa' list of questions",
            id="row-without-list",
        ),
        pytest.param(
            {"valid_1_a_1": {"qa": [SIZE]}, "valid_2_a_1": {"findings": []}},
            "report 'valid_2_a_1': no 'qa' list of questions",
            id="keyed-without-list",
        ),
        pytest.param(
            [{"report_id": "valid_1_a_1", "qa": [SIZE]}, {"report_id": "valid_2_a_1", "qa": "none"}],
            "report 'valid_2_a_1': the questions are not a list of objects",
            id="text-instead-of-list",
        ),
        pytest.param(
            [{"report_id": "valid_1_a_1", "qa": [SIZE]}, {"report_id": "valid_2_a_1", "qa": ["size?", "side?"]}],
            "report 'valid_2_a_1': the questions are not a list of objects",
            id="list-of-text",
        ),
    ],
)
def test_a_later_report_in_another_shape_is_one_line(tmp_path: Path, content: Any, problem: str) -> None:
    assert layout_error(tmp_path, content) == f"{label(tmp_path)}, {problem}"


def test_an_empty_object_names_no_keys(tmp_path: Path) -> None:
    assert "(keys found: none)" in layout_error(tmp_path, {})


def test_a_bad_row_of_the_reports_file_is_named_by_that_file(tmp_path: Path) -> None:
    from radiology_tasks.core.tables import DataError

    reports = write_jsonl(tmp_path / "reports.jsonl", [REPORTS[0], {"id": "valid_2_a_1", "reference": ""}])
    folder = question_file(tmp_path, {"valid_1_a_1": [SIZE], "valid_2_a_1": [EFFUSION]}).parent
    with pytest.raises(DataError) as error:
        load_pairs(str(folder), reports=str(reports))
    assert str(error.value) == f"{reports}, row 2, field 'reference': missing or empty reference report"
