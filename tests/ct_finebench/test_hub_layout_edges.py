"""CT-FineBench hub layouts at their edges: which shapes are recognised, and each layout message in full.

Every hub file here is written by the test; the expected messages are spelled out by hand from it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.hub import HubLayoutError, QALayout, ct_finebench_rows
from radiology_tasks.core.records import QAPair
from radiology_tasks.core.rows import pair_from_row
from tests.conftest import write_jsonl

datasets = pytest.importorskip("datasets")

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
UPDATE = "update CT_FINEBENCH_LAYOUT in radiology_tasks/core/hub.py"


@pytest.fixture(autouse=True)
def _private_datasets_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path_factory.mktemp("hf-cache"))


def hub_folder(tmp_path: Path, content: Any) -> Path:
    folder = tmp_path / "hub"
    folder.mkdir()
    (folder / "ctrate_qa_test.json").write_text(json.dumps(content), encoding="utf-8")
    return folder


def questions(
    tmp_path: Path, content: Any, layout: QALayout | None = None, user_reports: list[dict[str, str]] = REPORTS
) -> dict[str, list[QAPair]]:
    """The questions each of the user's reports gets, by report id."""
    reports = write_jsonl(tmp_path / "reports.jsonl", user_reports)
    rows = ct_finebench_rows(reports=str(reports), repo_id=str(hub_folder(tmp_path, content)), layout=layout)
    return {row["id"]: pair_from_row(row, source="hub", row_number=number).qa for number, row in rows}


def layout_error(tmp_path: Path, content: Any) -> str:
    with pytest.raises(HubLayoutError) as error:
        questions(tmp_path, content)
    return str(error.value)


def label(tmp_path: Path) -> str:
    return f"{tmp_path / 'hub'} (revision latest, split 'test')"


def test_an_explicit_layout_reads_names_that_detection_does_not_know(tmp_path: Path) -> None:
    rows = [
        {"scan": "valid_1_a_1", "q": SIZE["question"], "a": "6 mm", "f": "lung nodule", "attr": "size"},
        {"scan": "valid_2_a_1", "q": EFFUSION["question"], "a": "left", "f": "pleural effusion", "attr": "laterality"},
    ]
    layout = QALayout(report_id="scan", question="q", answer="a", finding="f", attribute="attr")
    assert questions(tmp_path, rows, layout) == {"valid_1_a_1": [SIZE_QA], "valid_2_a_1": [EFFUSION_QA]}


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
        f"{label(tmp_path)}: not a CT-FineBench layout this loader knows (keys found: {keys_found}); expected one "
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
            "'qa' of the first report",
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
        f"{label(tmp_path)} has no column 'attribute' ({where} has: {has}); CT-FineBench's layout "
        f"is not confirmed: if it differs, {UPDATE}"
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


def test_a_split_with_no_rows_says_the_file_holds_no_questions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def load_dataset(*args: Any, **kwargs: Any) -> Any:
        return datasets.Dataset.from_dict({"report_id": [], "question": []})

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    reports = write_jsonl(tmp_path / "reports.jsonl", REPORTS)
    with pytest.raises(HubLayoutError) as error:
        list(ct_finebench_rows(reports=str(reports)))
    assert str(error.value) == (
        "csyrf/CT-FineBench (revision 2b06156ec7f5dd51041ea0af249e57014ca3eb45, split 'test'): "
        "the file holds no questions"
    )
