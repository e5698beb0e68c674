"""The CT-FineBench hub loader recognises each plausible file shape, and names the keys of any other."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.hub import HubLayoutError, ct_finebench_rows
from radiology_tasks.core.records import QAPair
from radiology_tasks.core.rows import pair_from_row
from tests.conftest import write_jsonl

datasets = pytest.importorskip("datasets")

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


@pytest.fixture(autouse=True)
def _private_datasets_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path_factory.mktemp("hf-cache"))


def load(tmp_path: Path, content: Any) -> list[QAPair]:
    folder = tmp_path / "hub"
    folder.mkdir()
    (folder / "ctrate_qa_test.json").write_text(json.dumps(content), encoding="utf-8")
    reports = write_jsonl(tmp_path / "reports.jsonl", REPORTS)
    ((number, row),) = list(ct_finebench_rows(reports=str(reports), repo_id=str(folder)))
    return pair_from_row(row, source="hub", row_number=number).qa


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
    with pytest.raises(HubLayoutError) as error:
        load(tmp_path, [{"scan": "valid_1_a_1", "q": "Size?", "a": "6 mm"}])
    message = str(error.value)
    assert "not a CT-FineBench layout this loader knows (keys found: a, q, scan)" in message
    assert "\n" not in message


def test_a_question_without_an_attribute_names_what_it_has(tmp_path: Path) -> None:
    item = {k: v for k, v in SIZE.items() if k != "attribute"}
    with pytest.raises(HubLayoutError, match=r"has no column 'attribute' \('qa' of the first report has: answer, "):
        load(tmp_path, [{"report_id": "valid_1_a_1", "qa": [item]}])
