"""The rate-eval layout (RaTE-Eval paragraph level), read from small files written in the dataset's own layout.

The hub path reads the same files through the same layout (tests/core/test_hub_fetch.py), so every check here
holds for `-T data=rate-eval` too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import Row, resolve_local
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.rows import pair_from_row
from radiology_tasks.core.tables import DataError
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.green_vert.layouts.rate_eval import LAYOUT
from tests.real_layouts import write_csv

RATE_FILE = Path("Task2_paragraph_rate") / "rate_test.csv"
RATE_HEADER = ["gt_report", "similar_report", "Score", "rater_note"]
RECORDS = [
    ["No acute cardiopulmonary process.", "No acute findings in the chest.", 4.5, "near match"],
    ["Small left pleural effusion.", "Large right pleural effusion.", 1.25, "side and size wrong"],
]


def rate_eval_folder(tmp_path: Path, records: list[list[Any]] | None = None, header: list[str] = RATE_HEADER) -> Path:
    """A copy of the dataset as `huggingface-cli download` leaves it: the test file at its repository path."""
    folder = tmp_path / "RaTE-Eval"
    write_csv(folder / RATE_FILE, header, RECORDS if records is None else records)
    return folder


def rows_of(path: Path) -> list[Row]:
    return list(resolve_local(path).rows(DataOptions()))


def test_rows_become_scored_pairs_on_the_layouts_scale(tmp_path: Path) -> None:
    loaded = load_pairs(str(rate_eval_folder(tmp_path)))
    pairs = loaded.pairs

    assert [p.id for p in pairs] == ["test-1", "test-2"]
    assert [p.reference for p in pairs] == ["No acute cardiopulmonary process.", "Small left pleural effusion."]
    assert [p.candidate for p in pairs] == ["No acute findings in the chest.", "Large right pleural effusion."]
    assert [(p.expert.score, p.expert.scale_min, p.expert.scale_max) for p in pairs] == [
        (4.5, 0.0, 5.0),
        (1.25, 0.0, 5.0),
    ]
    assert [p.expert.normalized_score for p in pairs] == [0.9, 0.25]
    assert [p.metadata for p in pairs] == [{"rater_note": "near match"}, {"rater_note": "side and size wrong"}]
    assert all(p.expert.significant is None for p in pairs)
    summary = loaded.summary()
    assert (summary["layout"], summary["layout_recognised_by"]) == ("rate-eval", "file names")
    assert summary["expert_scale"] == {"min": 0.0, "max": 5.0, "set_by": "layout rate-eval"}
    assert (summary["track"], summary["annotations_unreadable"]) == (None, 0)


def test_the_paragraph_test_file_in_its_real_layout(tmp_path: Path) -> None:
    # The real file: columns gt_report, similar_report, Score; 370 rows scored 0 to 4.5 in steps of 0.25,
    # written the way pandas writes floats (4.0 as "4.0", 0.25 as "0.25").
    scores = [0.25 * (i % 19) for i in range(370)]
    records = [[f"Reference {i}.", f"Candidate {i}.", score] for i, score in enumerate(scores)]
    folder = rate_eval_folder(tmp_path, records, ["gt_report", "similar_report", "Score"])

    loaded = load_pairs(str(folder))
    assert (loaded.rows_read, len(loaded.pairs), loaded.skipped) == (370, 370, [])
    assert [p.id for p in loaded.pairs[:2]] == ["test-1", "test-2"] and loaded.pairs[-1].id == "test-370"
    assert {p.expert.score for p in loaded.pairs} == {0.25 * k for k in range(19)}
    # On the 0-5 scale the normalised score is the raw score / 5: 4.5 -> 0.9, 0.25 -> 0.05.
    for pair, score in zip(loaded.pairs, scores):
        assert pair.expert.normalized_score == pytest.approx(score / 5, abs=1e-12)
        assert pair.metadata == {}


def test_the_file_alone_reads_like_the_folder(tmp_path: Path) -> None:
    folder = rate_eval_folder(tmp_path)
    from_folder = load_pairs(str(folder))
    from_file = load_pairs(str(folder / RATE_FILE))
    assert from_file.pairs == from_folder.pairs
    assert (from_file.data.layout.name, from_file.data.recognised_by) == ("rate-eval", "file name")


def test_expert_scale_replaces_the_layouts_scale(tmp_path: Path) -> None:
    loaded = load_pairs(str(rate_eval_folder(tmp_path)), expert_scale=(0.0, 10.0))
    assert [p.expert.normalized_score for p in loaded.pairs] == [0.45, 0.125]
    assert loaded.summary()["expert_scale"] == {"min": 0.0, "max": 10.0, "set_by": "-T expert_scale"}
    assert LAYOUT.expert_scale == (0.0, 5.0)


def test_an_empty_candidate_is_rejected_not_read_as_reference_only(tmp_path: Path) -> None:
    folder = rate_eval_folder(tmp_path, [["Clear lungs.", None, 3, "x"]])
    ((number, row),) = rows_of(folder)
    assert row["candidate"] == ""
    with pytest.raises(DataError) as error:
        pair_from_row(row, source="rate-eval", row_number=number)
    assert (error.value.row, error.value.field) == (1, "candidate")
    with pytest.raises(DataError) as error:
        load_pairs(str(folder))
    assert str(error.value) == f"{folder}, row 1, field 'candidate': empty candidate report"


def test_a_missing_column_names_the_file_the_layout_and_the_column(tmp_path: Path) -> None:
    folder = rate_eval_folder(tmp_path, [["a", "b"]], ["gt_report", "similar_report"])
    expected = f"{folder / RATE_FILE} looks like the rate-eval layout's table file but lacks the column Score"
    for data in (folder, folder / RATE_FILE):
        with pytest.raises(InputError) as error:
            load_pairs(str(data))
        assert str(error.value) == expected


def test_a_folder_without_the_test_file_lacks_the_layouts_files(tmp_path: Path) -> None:
    folder = tmp_path / "RaTE-Eval"
    write_csv(folder / "Task2_paragraph_rate" / "rate_train.csv", RATE_HEADER, RECORDS)
    with pytest.raises(InputError) as error:
        load_pairs(str(folder), layout="rate-eval")
    assert str(error.value) == f"{folder} lacks the rate-eval layout's files (Task2_paragraph_rate/rate_test.csv)"


def test_reports_and_revision_do_not_apply(tmp_path: Path) -> None:
    folder = rate_eval_folder(tmp_path)
    with pytest.raises(InputError) as error:
        load_pairs(str(folder), reports="reports.jsonl")
    assert str(error.value) == (
        f"-T reports=... applies only to question datasets such as ct-finebench, not to {folder} (rate-eval layout)"
    )
    with pytest.raises(InputError) as error:
        load_pairs(str(folder), revision="main")
    assert str(error.value) == "-T revision applies to hub datasets; a local copy is pinned by its files' SHA-256"
    loaded = load_pairs(str(folder))
    assert loaded.data.revision is None and loaded.data.fingerprint()["revision"] is None


def test_columns_named_like_flat_columns_are_kept_under_a_hub_prefix(tmp_path: Path) -> None:
    header = ["gt_report", "similar_report", "Score", "id", "modality", "note"]
    folder = rate_eval_folder(tmp_path, [["Ref.", "Cand.", 2, "x7", "CXR", "n"]], header)
    ((_, row),) = rows_of(folder)
    assert (row["id"], row["hub_id"], row["hub_modality"], row["note"]) == ("test-1", "x7", "CXR", "n")
    assert "modality" not in row
    (pair,) = load_pairs(str(folder)).pairs
    assert pair.modality is None and pair.metadata == {"hub_id": "x7", "hub_modality": "CXR", "note": "n"}
