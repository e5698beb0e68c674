"""The ct-finebench layout: each plausible question-file shape is recognised, and the questions are joined by
report id onto the user's reports (`-T reports`); the keys of any other shape are named.

The files are written by the tests into a folder holding `*qa_test.json`, read like a copy of
`csyrf/CT-FineBench` (the hub path reads the same files through the same layout: tests/core/test_hub_fetch.py).
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import Row, resolve_local
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import QAPair, ReportPair
from radiology_tasks.core.rows import pair_from_row
from radiology_tasks.core.tables import DataError
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.ct_finebench.layout import QALayout, QALayoutError, questions_by_report
from tests.conftest import write_csv, write_jsonl

REPORTS = [{"id": "valid_1_a_1", "reference": "A 6 mm nodule in the right upper lobe."}]
SIZE = {"question": "What is the size of the nodule?", "answer": "6 mm", "finding": "lung nodule", "attribute": "size"}
PLACE = {
    "question": "Where is the nodule?",
    "answer": "right upper lobe",
    "finding": "lung nodule",
    "attribute": "location",
}
EXPECTED = [
    QAPair(question=SIZE["question"], answer="6 mm", finding="lung nodule", attribute="size"),
    QAPair(question=PLACE["question"], answer="right upper lobe", finding="lung nodule", attribute="location"),
]


def write_json(path: Path, content: Any) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content), encoding="utf-8")
    return path


def question_folder(tmp_path: Path, content: Any) -> Path:
    folder = tmp_path / "CT-FineBench"
    write_json(folder / "ctrate_qa_test.json", content)
    return folder


def load(tmp_path: Path, content: Any, reports: list[dict[str, Any]] = REPORTS) -> list[QAPair]:
    """The questions the one user report gets."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = write_jsonl(tmp_path / "reports.jsonl", reports)
    (pair,) = load_pairs(str(question_folder(tmp_path, content)), reports=str(path)).pairs
    return pair.qa


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(
            [{"report_id": "valid_1_a_1", **SIZE}, {"report_id": "valid_1_a_1", **PLACE}], id="row-per-question"
        ),
        pytest.param(
            [{"volume_name": "valid_1_a_1", **SIZE}, {"volume_name": "valid_1_a_1", **PLACE}], id="volume-name-ids"
        ),
        pytest.param([{"volume_name": "valid_1_a_1", "qa_pairs": [SIZE, PLACE]}], id="row-per-report"),
        pytest.param({"valid_1_a_1": [SIZE, PLACE], "valid_2_a_1": [SIZE]}, id="keyed-by-report-id"),
        pytest.param({"valid_1_a_1": {"qa": [SIZE, PLACE]}, "valid_2_a_1": {"qa": [SIZE]}}, id="keyed-report-objects"),
        pytest.param({"valid_1_a_1": [SIZE, PLACE]}, id="one-report-keyed"),
        pytest.param(
            {"data": [{"report_id": "valid_1_a_1", **SIZE}, {"report_id": "valid_1_a_1", **PLACE}]}, id="wrapped"
        ),
    ],
)
def test_each_plausible_shape_gives_the_same_questions(tmp_path: Path, content: Any) -> None:
    assert load(tmp_path, content) == EXPECTED


def capitalised(item: dict[str, str]) -> dict[str, str]:
    return {key.capitalize(): value for key, value in item.items()}


@pytest.mark.parametrize(
    "content",
    [
        pytest.param(
            [{"Volume_name": "valid_1_a_1", **capitalised(SIZE)}, {"Volume_name": "valid_1_a_1", **capitalised(PLACE)}],
            id="row-per-question",
        ),
        pytest.param(
            [{"Volume_name": "valid_1_a_1", "QA_pairs": [capitalised(SIZE), capitalised(PLACE)]}], id="row-per-report"
        ),
        pytest.param({"valid_1_a_1": [capitalised(SIZE), capitalised(PLACE)]}, id="keyed-by-report-id"),
        pytest.param({"valid_1_a_1": {"QA": [capitalised(SIZE), capitalised(PLACE)]}}, id="keyed-report-objects"),
        pytest.param(
            {
                "Data": [
                    {"Volume_name": "valid_1_a_1", **capitalised(SIZE)},
                    {"Volume_name": "valid_1_a_1", **capitalised(PLACE)},
                ]
            },
            id="wrapped",
        ),
    ],
)
def test_capitalised_keys_load_like_lower_case_ones(tmp_path: Path, content: Any) -> None:
    assert load(tmp_path, content) == EXPECTED


def test_capitalised_attribute_type_is_read_like_a_lower_case_one(tmp_path: Path) -> None:
    lower = {"volume_name": "valid_1_a_1", **SIZE, "attribute_type": " Numeric"}
    upper = {"Volume_name": "valid_1_a_1", **capitalised(SIZE), "Attribute_type": " Numeric"}
    assert load(tmp_path / "lower", [lower]) == load(tmp_path / "upper", [upper])
    assert load(tmp_path / "upper", [upper]) == [
        QAPair(
            question=SIZE["question"], answer="6 mm", finding="lung nodule", attribute="size", attribute_type="numeric"
        )
    ]


@pytest.mark.parametrize(
    ("question_id", "report_id"),
    [("valid_1_a_1.nii.gz", "valid_1_a_1"), ("valid_1_a_1", "valid_1_a_1.nii.gz")],
    ids=["volume-file-in-questions", "volume-file-in-reports"],
)
@pytest.mark.parametrize("shape", ["row-per-question", "keyed-by-report-id"])
def test_report_ids_join_with_or_without_the_volume_extension(
    tmp_path: Path, question_id: str, report_id: str, shape: str
) -> None:
    if shape == "row-per-question":
        content: Any = [{"volume_name": question_id, **SIZE}, {"volume_name": question_id, **PLACE}]
    else:
        content = {question_id: [SIZE, PLACE]}
    path = write_jsonl(tmp_path / "reports.jsonl", [{**REPORTS[0], "id": report_id}])
    (pair,) = load_pairs(str(question_folder(tmp_path, content)), reports=str(path)).pairs
    assert (pair.id, pair.qa) == (report_id, EXPECTED)


def test_other_names_for_the_answer_and_the_answer_type(tmp_path: Path) -> None:
    rows = [
        {
            "study_id": "valid_1_a_1",
            "question": "Size?",
            "gt_answer": "6 mm",
            "finding": "nodule",
            "attribute": "size",
            "answer_type": "Numeric",
        },
    ]
    assert load(tmp_path, rows) == [
        QAPair(question="Size?", answer="6 mm", finding="nodule", attribute="size", attribute_type="numeric")
    ]


def test_an_unknown_shape_fails_with_one_line_naming_the_keys_found(tmp_path: Path) -> None:
    with pytest.raises(QALayoutError) as error:
        load(tmp_path, [{"scan": "valid_1_a_1", "q": "Size?", "a": "6 mm"}])
    message = str(error.value)
    assert "not a CT-FineBench layout this reader knows (keys found: a, q, scan)" in message
    assert "\n" not in message


def test_a_question_without_an_attribute_names_what_it_has(tmp_path: Path) -> None:
    item = {k: v for k, v in SIZE.items() if k != "attribute"}
    with pytest.raises(
        QALayoutError, match=r"has no key 'attribute' \('qa' of the first report with questions has: answer, "
    ):
        load(tmp_path, [{"report_id": "valid_1_a_1", "qa": [item]}])


# --- the join onto the user's reports ---------------------------------------------------------------


def qa(report_id: str, finding: str, attribute: str, question: str, answer: str) -> dict[str, str]:
    return {"report_id": report_id, "finding": finding, "attribute": attribute, "question": question, "answer": answer}


HUB_CTRATE = [
    qa("valid_1_a_1", "lung nodule", "size", "What is the size of the lung nodule?", "6 mm"),
    qa("valid_2_a_1", "pleural effusion", "laterality", "Which side is the pleural effusion on?", "left"),
    qa("valid_1_a_1", "lung nodule", "location", "Where is the lung nodule?", "right upper lobe"),
]
HUB_MERLIN = [qa("AC4f2e1", "hepatic cyst", "size", "How large is the hepatic cyst?", "2 cm")]

USER_REPORTS = [
    {
        "id": "valid_1_a_1",
        "reference": "A 6 mm nodule in the right upper lobe.",
        "candidate": "A 9 mm nodule in the right upper lobe.",
    },
    {
        "id": "valid_2_a_1",
        "reference": "Small left pleural effusion.",
        "candidate": "Small left effusion.",
        "anatomy": "chest",
    },
]


def ct_finebench_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "CT-FineBench"
    write_json(folder / "ctrate_qa_test.json", HUB_CTRATE)
    write_json(folder / "merlin_qa_test.json", HUB_MERLIN)
    return folder


def joined_rows(folder: Path, reports: Path) -> list[Row]:
    return list(resolve_local(folder).rows(DataOptions(reports=str(reports))))


def to_pairs(rows: list[Row]) -> list[ReportPair]:
    return [pair_from_row(row, source="ct-finebench", row_number=number) for number, row in rows]


def expected_qa(record: dict[str, str], attribute_type: str | None = None) -> QAPair:
    return QAPair(
        question=record["question"],
        answer=record["answer"],
        finding=record["finding"],
        attribute=record["attribute"],
        attribute_type=attribute_type,
    )


def test_questions_are_joined_onto_the_users_reports(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS)
    folder = ct_finebench_folder(tmp_path)
    with caplog.at_level(logging.WARNING, logger="radiology_tasks.ct_finebench.layout"):
        rows = joined_rows(folder, reports)
    pairs = to_pairs(rows)

    assert [number for number, _ in rows] == [1, 2]
    assert [(p.id, p.reference, p.candidate) for p in pairs] == [
        (r["id"], r["reference"], r["candidate"]) for r in USER_REPORTS
    ]
    assert pairs[0].qa == [expected_qa(HUB_CTRATE[0]), expected_qa(HUB_CTRATE[2])]
    assert pairs[1].qa == [expected_qa(HUB_CTRATE[1])]
    assert [(p.modality, p.anatomy) for p in pairs] == [("CT", None), ("CT", "chest")]
    assert rows[0][1]["qa"][0] == {
        "question": "What is the size of the lung nodule?",
        "answer": "6 mm",
        "finding": "lung nodule",
        "attribute": "size",
        "attribute_type": None,
    }
    assert caplog.messages == [
        f"ct-finebench: 1 of 3 benchmark reports (1 questions) have no report in {reports} and are not evaluated"
    ]
    loaded = load_pairs(str(folder), reports=str(reports))
    assert loaded.pairs == pairs
    assert (loaded.data.layout.name, loaded.data.recognised_by) == ("ct-finebench", "file names")
    assert sorted(path.name for path in loaded.data.files["questions"]) == [
        "ctrate_qa_test.json",
        "merlin_qa_test.json",
    ]


def test_a_report_without_questions_is_an_error(tmp_path: Path) -> None:
    extra = {"id": "valid_9_b_2", "reference": "Normal chest CT."}
    reports = write_jsonl(tmp_path / "reports.jsonl", [*USER_REPORTS, extra])
    with pytest.raises(DataError) as error:
        load_pairs(str(ct_finebench_folder(tmp_path)), reports=str(reports))
    assert (error.value.source, error.value.row, error.value.field) == (str(reports), 3, "id")
    assert error.value.problem == (
        "no ct-finebench questions for report id 'valid_9_b_2' (1 of 3 reports have none); "
        "ids must match the benchmark's report ids (with or without the volume's .nii.gz)"
    )


@pytest.mark.parametrize("blank", ["", "   "])
def test_report_rows_without_an_id_pass_through_to_row_validation(tmp_path: Path, blank: str) -> None:
    reports = write_csv(
        tmp_path / "reports.csv",
        [{"id": "valid_1_a_1", "reference": "A nodule."}, {"id": blank, "reference": "No id here."}],
    )
    rows = joined_rows(ct_finebench_folder(tmp_path), reports)
    assert "qa" not in rows[1][1]
    with pytest.raises(DataError) as error:
        to_pairs(rows[1:])
    assert (error.value.row, error.value.field) == (2, "id")
    with pytest.raises(DataError) as error:
        load_pairs(str(ct_finebench_folder(tmp_path)), reports=str(reports))
    assert (error.value.row, error.value.field, error.value.problem) == (2, "id", "missing or empty")


def test_a_reports_file_is_needed_and_must_exist(tmp_path: Path) -> None:
    folder = ct_finebench_folder(tmp_path)
    with pytest.raises(InputError) as error:
        load_pairs(str(folder))
    assert str(error.value) == (
        "ct-finebench has questions only, no reports: pass your reports with -T reports=FILE "
        "(JSONL or CSV with id, reference and optionally candidate)"
    )
    with pytest.raises(InputError) as error:
        load_pairs(str(folder), reports=str(tmp_path / "missing.jsonl"))
    assert str(error.value) == f"-T reports={tmp_path / 'missing.jsonl'}: no such file"


def test_a_qa_column_in_the_reports_is_refused_in_full(tmp_path: Path) -> None:
    reports = write_jsonl(tmp_path / "qa.jsonl", [USER_REPORTS[1], {**USER_REPORTS[0], "qa": []}])
    with pytest.raises(DataError) as error:
        load_pairs(str(ct_finebench_folder(tmp_path)), reports=str(reports))
    assert (error.value.row, error.value.field) == (2, "qa")
    assert str(error.value) == f"{reports}, row 2, field 'qa': the questions come from ct-finebench; remove this column"


def test_a_given_modality_is_kept(tmp_path: Path) -> None:
    reports = write_jsonl(tmp_path / "reports.jsonl", [{**USER_REPORTS[0], "modality": "PET-CT"}])
    (pair,) = load_pairs(str(ct_finebench_folder(tmp_path)), reports=str(reports)).pairs
    assert pair.modality == "PET-CT"


def test_a_row_per_report_file_read_with_an_explicit_layout(tmp_path: Path) -> None:
    item = {
        "finding": "lung nodule",
        "attribute": "size",
        "question": "Size?",
        "answer": 6,
        "attribute_type": "Numeric",
    }
    path = write_json(tmp_path / "ctrate_qa_test.json", [{"volume_name": "valid_1_a_1", "qa_pairs": [item]}])
    layout = QALayout(
        report_id="volume_name",
        question="question",
        answer="answer",
        finding="finding",
        attribute="attribute",
        attribute_type="attribute_type",
        qa_list="qa_pairs",
    )
    questions = questions_by_report([path], layout)
    assert [QAPair(**q) for q in questions["valid_1_a_1"]] == [
        QAPair(question="Size?", answer="6", finding="lung nodule", attribute="size", attribute_type="numeric")
    ]
    assert questions == questions_by_report([path])


def test_a_recognised_row_per_report_file_reads_attributes_and_their_type(tmp_path: Path) -> None:
    item = {"question": "Size?", "answer": 6, "finding": "nodule", "attribute": "size", "attribute_type": " Numeric"}
    assert load(tmp_path, [{"volume_name": "valid_1_a_1", "qa_pairs": [item]}]) == [
        QAPair(question="Size?", answer="6", finding="nodule", attribute="size", attribute_type="numeric")
    ]


def test_a_question_row_without_a_report_id(tmp_path: Path) -> None:
    folder = question_folder(tmp_path, [{**HUB_CTRATE[0]}, {**HUB_CTRATE[1], "report_id": " "}])
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS[:1])
    with pytest.raises(QALayoutError) as error:
        load_pairs(str(folder), reports=str(reports))
    assert str(error.value) == f"{folder / 'ctrate_qa_test.json'}, row 2: no report id in 'report_id'"
