"""The task on a local copy of CT-FineBench's question file with capitalised keys and CT-RATE volume ids."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.model import get_model

from radiology_tasks.ct_finebench.tasks import ct_finebench
from tests.conftest import write_jsonl
from tests.ct_finebench.stub_judge import answer
from tests.judge_answers import mock_output

pytestmark = pytest.mark.slow

QUESTIONS = [
    {
        "Volume_name": "valid_1_a_1.nii.gz",
        "Finding": "lung nodule",
        "Attribute": "size",
        "Attribute_type": "Numeric",
        "Question": "What is the size of the lung nodule?",
        "Answer": "8 mm",
    },
    {
        "Volume_name": "valid_1_a_1.nii.gz",
        "Finding": "lung nodule",
        "Attribute": "location",
        "Attribute_type": "Location",
        "Question": "Where is the lung nodule?",
        "Answer": "right upper lobe",
    },
    {
        "Volume_name": "valid_2_a_1.nii.gz",
        "Finding": "pleural effusion",
        "Attribute": "existence",
        "Attribute_type": "Existence",
        "Question": "Is there a pleural effusion?",
        "Answer": "yes",
    },
]


def nothing_found() -> Iterator[Any]:
    while True:
        yield mock_output(answer({f"q{n}": None for n in range(1, 4)}))


@pytest.mark.parametrize("as_file", [False, True], ids=["folder", "file"])
def test_capitalised_keys_and_volume_ids_with_or_without_extension(tmp_path: Path, as_file: bool) -> None:
    folder = tmp_path / "CT-FineBench"
    folder.mkdir()
    (folder / "ctrate_qa_test.json").write_text(json.dumps(QUESTIONS, indent=2), encoding="utf-8")
    (folder / "README.md").write_text("CT-FineBench\n", encoding="utf-8")
    reports = write_jsonl(
        tmp_path / "reports.jsonl",
        [
            {"id": "valid_1_a_1", "reference": "8 mm nodule in the right upper lobe.", "candidate": "A nodule."},
            {"id": "valid_2_a_1.nii.gz", "reference": "Small pleural effusion.", "candidate": "Effusion."},
        ],
    )
    data = folder / "ctrate_qa_test.json" if as_file else folder
    judge = get_model("mockllm/model", custom_outputs=nothing_found())
    (log,) = inspect_eval(
        ct_finebench(data=str(data), reports=str(reports)),
        model="none",
        model_roles={"grader": judge},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success", log.error
    assert log.samples is not None
    by_id = {str(s.id): s for s in log.samples}
    assert sorted(by_id) == ["valid_1_a_1", "valid_2_a_1.nii.gz"]
    assert [q["attribute_type"] for q in by_id["valid_1_a_1"].metadata["qa"]] == ["numeric", "location"]
    assert by_id["valid_2_a_1.nii.gz"].metadata["qa"][0]["question"] == "Is there a pleural effusion?"
    summary = log.eval.metadata["data"]
    assert (summary["layout"], summary["fingerprint"]["layout"]) == ("ct-finebench", "ct-finebench")
    assert summary["fingerprint"]["reports_sha256"] is not None
