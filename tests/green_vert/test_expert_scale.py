"""The expert scale a dataset is read with is recorded, and -T expert_scale replaces it for any data."""

from __future__ import annotations

from pathlib import Path

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs, parse_expert_scale
from radiology_tasks.core.task_data import DataOptions, report_dataset
from tests.conftest import write_jsonl
from tests.real_layouts import write_csv


def rate_eval_copy(folder: Path) -> Path:
    """RaTE-Eval's paragraph-level test file in its repository folder; the scores seen run 0 to 4.5 by 0.25."""
    rows = [
        ["No acute cardiopulmonary process.", "No acute findings in the chest.", 4.5],
        ["Small left pleural effusion.", "Large right pleural effusion.", 1.25],
        ["Cardiomegaly.", "Normal heart size.", 0.0],
    ]
    write_csv(folder / "Task2_paragraph_rate" / "rate_test.csv", ["gt_report", "similar_report", "Score"], rows)
    write_csv(folder / "Task1_sentence_rate" / "rate_test.csv", ["gt_sentence", "similar_sentence", "score"], [])
    return folder


def test_rate_eval_is_read_on_the_layouts_scale_and_records_it(tmp_path: Path) -> None:
    loaded = load_pairs(str(rate_eval_copy(tmp_path / "RaTE-Eval")))
    assert loaded.summary()["expert_scale"] == {"min": 0.0, "max": 5.0, "set_by": "layout rate-eval"}
    assert [p.expert.normalized_score for p in loaded.pairs] == [0.9, 0.25, 0.0]


def test_expert_scale_replaces_the_layouts_scale(tmp_path: Path) -> None:
    folder = rate_eval_copy(tmp_path / "RaTE-Eval")
    _, summary, _ = report_dataset(DataOptions(str(folder), expert_scale="0,4.5"), require_candidate=True)
    assert summary["expert_scale"] == {"min": 0.0, "max": 4.5, "set_by": "-T expert_scale"}
    loaded = load_pairs(str(folder), expert_scale=(0.0, 4.5))
    assert [p.expert.normalized_score for p in loaded.pairs] == [1.0, pytest.approx(1.25 / 4.5), 0.0]


def test_expert_scale_replaces_what_a_file_says(tmp_path: Path) -> None:
    rows = [{"id": "r1", "reference": "A.", "candidate": "B.", "expert_score": 3, "expert_score_max": 4}]
    path = str(write_jsonl(tmp_path / "pairs.jsonl", rows))
    assert load_pairs(path).pairs[0].expert.normalized_score == 0.75
    assert load_pairs(path).summary()["expert_scale"] is None
    assert load_pairs(path, expert_scale=(1.0, 5.0)).pairs[0].expert.normalized_score == 0.5


@pytest.mark.parametrize(
    ("value", "expected"), [("0,4.5", (0.0, 4.5)), ([1, 5], (1.0, 5.0)), (" -1 , 1 ", (-1.0, 1.0)), (None, None)]
)
def test_expert_scale_as_typed(value: object, expected: tuple[float, float] | None) -> None:
    assert parse_expert_scale(value) == expected


@pytest.mark.parametrize("value", ["5", "a,b", "4,1", "1,1", [1, 2, 3]])
def test_a_bad_expert_scale_is_one_line(value: object) -> None:
    with pytest.raises(InputError, match=r"^-T expert_scale must be MIN,MAX"):
        DataOptions(expert_scale=value)


def test_a_score_outside_the_given_scale_names_the_row(tmp_path: Path) -> None:
    folder = rate_eval_copy(tmp_path / "RaTE-Eval")
    with pytest.raises(InputError, match=r"row 1, field 'expert_score': 4\.5 lies outside the scale \[0\.0, 4\.0\]"):
        load_pairs(str(folder), expert_scale=(0.0, 4.0))
