"""Recognising a local copy's layout (`layouts.resolve_local`) from its file names and columns, on tiny files.

A folder is recognised by the files a layout needs (at their repository paths, or by name anywhere below), a
single file by its name, else by its columns; any other `.jsonl`/`.csv` file is read in the flat layout. What
cannot be recognised, or is recognised but lacks columns, is one line naming the layout and what is missing.
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
from pathlib import Path

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import all_layouts, layout_named, resolve_local
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.task_data import DataOptions
from tests.conftest import write_jsonl
from tests.real_layouts import RADEVAL_FILE, write_csv
from tests.real_layouts import RADEVAL_HEADER as RADEVAL_COLUMNS

RATE_COLUMNS = ["gt_report", "similar_report", "Score"]
FLAT_ROWS = [
    {"id": "r1", "reference": "Normal chest.", "candidate": "Normal chest."},
    {"id": "r2", "reference": "Left effusion.", "candidate": "Right effusion."},
]


def write_rate_test(path: Path) -> Path:
    return write_csv(path, RATE_COLUMNS, [["Normal chest.", "Normal chest.", 4.5]])


def write_radeval(path: Path, columns: list[str] = RADEVAL_COLUMNS) -> Path:
    return write_csv(path, columns, [[f"{column} value" for column in columns]])


def rate_eval_download(folder: Path) -> Path:
    """RaTE-Eval as `huggingface-cli download Angelakeke/RaTE-Eval --repo-type dataset --local-dir` leaves it."""
    (folder / ".cache" / "huggingface" / "download" / "Task2_paragraph_rate").mkdir(parents=True)
    (folder / ".cache" / "huggingface" / "download" / "Task2_paragraph_rate" / "rate_test.csv.metadata").write_text(
        "43702688ab0297f8cde91611cb60dbab53fe1903\n", encoding="utf-8"
    )
    (folder / "README.md").write_text("# RaTE-Eval\n", encoding="utf-8")
    (folder / ".gitattributes").write_text("*.csv filter=lfs\n", encoding="utf-8")
    write_csv(folder / "Task1_sentence_rate" / "rate_train.csv", RATE_COLUMNS, [["A.", "B.", 1]])
    write_csv(folder / "Task1_sentence_rate" / "rate_test.csv", RATE_COLUMNS, [["A.", "B.", 1]])
    write_csv(folder / "Task2_paragraph_rate" / "rate_train.csv", RATE_COLUMNS, [["C.", "D.", 2]])
    write_rate_test(folder / "Task2_paragraph_rate" / "rate_test.csv")
    return folder


def test_a_folder_as_huggingface_cli_download_leaves_it_is_recognised(tmp_path: Path) -> None:
    folder = rate_eval_download(tmp_path / "RaTE-Eval")
    data = resolve_local(folder)
    assert (data.layout.name, data.recognised_by, data.origin) == ("rate-eval", "file names", "local")
    # The paragraph-level test file, not the sentence-level file of the same name, nor the train files.
    assert data.files == {"table": [folder / "Task2_paragraph_rate" / "rate_test.csv"]}
    assert data.base_dir == folder
    ((_, row),) = list(data.rows(DataOptions()))
    assert (row["id"], row["reference"], row["expert_score"]) == ("test-1", "Normal chest.", "4.5")


def test_the_file_copied_alone_is_recognised_by_its_name(tmp_path: Path) -> None:
    original = rate_eval_download(tmp_path / "RaTE-Eval") / "Task2_paragraph_rate" / "rate_test.csv"
    flat_folder = tmp_path / "my-data"
    flat_folder.mkdir()
    copy = flat_folder / "rate_test.csv"
    shutil.copy(original, copy)

    by_folder, by_file = resolve_local(flat_folder), resolve_local(copy)
    assert (by_folder.layout.name, by_folder.recognised_by, by_folder.files) == (
        "rate-eval",
        "file names",
        {"table": [copy]},
    )
    assert (by_file.layout.name, by_file.recognised_by, by_file.files) == ("rate-eval", "file name", {"table": [copy]})
    # A copy hashes like the original, however it was found.
    hashes = {resolve_local(path).fingerprint()["data_sha256"] for path in (original.parent.parent, flat_folder, copy)}
    assert hashes == {hashlib.sha256(original.read_bytes()).hexdigest()}


def test_a_renamed_file_is_recognised_by_its_columns(tmp_path: Path) -> None:
    rate = write_rate_test(tmp_path / "scores.csv")
    radeval = write_radeval(tmp_path / "radeval_annotations.csv")
    assert (resolve_local(rate).layout.name, resolve_local(rate).recognised_by) == ("rate-eval", "columns")
    assert (resolve_local(radeval).layout.name, resolve_local(radeval).recognised_by) == ("radeval-expert", "columns")
    assert [pair.id for pair in load_pairs(str(rate)).pairs] == ["test-1"]


def test_a_file_with_the_radeval_name_but_no_annotation3_names_the_layout_and_the_column(tmp_path: Path) -> None:
    path = write_radeval(tmp_path / RADEVAL_FILE, RADEVAL_COLUMNS[:-1])
    expected = f"{path} looks like the radeval-expert layout's table file but lacks the column annotation3"
    for data in (path, tmp_path):
        with pytest.raises(InputError) as error:
            resolve_local(data)
        assert str(error.value) == expected
    with pytest.raises(InputError) as error:
        load_pairs(str(path))
    assert str(error.value) == expected


def test_a_csv_with_most_radeval_columns_under_another_name_names_the_missing_columns(tmp_path: Path) -> None:
    columns = [c for c in RADEVAL_COLUMNS if c not in ("prediction3", "annotation3")]
    path = write_radeval(tmp_path / "annotations.csv", columns)
    with pytest.raises(InputError) as error:
        resolve_local(path)
    assert str(error.value) == (
        f"{path} looks like the radeval-expert layout's table file but lacks the columns prediction3, annotation3"
    )


def test_layout_flat_forces_the_flat_layout(tmp_path: Path) -> None:
    # A flat file that happens to carry RaTE-Eval's file name.
    path = tmp_path / "rate_test.csv"
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["id", "reference", "candidate"])
        writer.writeheader()
        writer.writerows(FLAT_ROWS)
    with pytest.raises(InputError, match=r"looks like the rate-eval layout's table file but lacks the columns"):
        resolve_local(path)

    data = resolve_local(path, layout="flat")
    assert (data.layout.name, data.recognised_by, data.files) == ("flat", "-T layout", {"table": [path]})
    loaded = load_pairs(str(path), layout="flat")
    assert [pair.id for pair in loaded.pairs] == ["r1", "r2"]
    assert (loaded.summary()["layout"], loaded.summary()["layout_recognised_by"]) == ("flat", "-T layout")
    with pytest.raises(InputError) as error:
        resolve_local(tmp_path, layout="flat")
    assert str(error.value) == f"{tmp_path}: the flat layout reads one file; pass -T data=FILE"


def test_a_folder_with_no_known_files_and_several_tables_is_one_line(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "pairs.jsonl", FLAT_ROWS)
    write_jsonl(tmp_path / "candidates.jsonl", [{"id": "r1", "candidate": "Normal."}])
    (tmp_path / "README.md").write_text("notes\n", encoding="utf-8")
    with pytest.raises(InputError) as error:
        resolve_local(tmp_path)
    message = str(error.value)
    assert message.startswith(f"{tmp_path} is a folder without the files of any known layout (")
    assert (
        "rate-eval: Task2_paragraph_rate/rate_test.csv; radeval-expert: reader_study_final_with_annotationsv3.csv"
        in (message)
    )
    assert message.endswith("); pass a file, or a folder holding one data file in the flat layout")
    assert "\n" not in message


def test_a_plain_flat_jsonl_still_loads_as_flat(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", FLAT_ROWS)
    data = resolve_local(path)
    assert (data.layout.name, data.recognised_by, data.files) == ("flat", "default", {"table": [path]})
    loaded = load_pairs(str(path))
    assert [pair.id for pair in loaded.pairs] == ["r1", "r2"]
    summary = loaded.summary()
    assert (summary["layout"], summary["layout_recognised_by"], summary["expert_scale"]) == ("flat", "default", None)
    # A folder holding just that one file is read the same way.
    assert resolve_local(tmp_path).files == {"table": [path]}
    assert load_pairs(str(tmp_path)).pairs == loaded.pairs


def test_layout_named_lists_the_layouts(tmp_path: Path) -> None:
    names = list(all_layouts())
    assert names[0] == "flat"
    assert {"rate-eval", "radeval-expert", "rexval", "ct-finebench", "rexrank"} <= set(names)
    assert layout_named("rate-eval") is all_layouts()["rate-eval"]
    expected = f"-T layout must be one of {', '.join(names)}; got 'nope'"
    with pytest.raises(InputError) as error:
        layout_named("nope")
    assert str(error.value) == expected
    with pytest.raises(InputError) as error:
        load_pairs(str(write_jsonl(tmp_path / "pairs.jsonl", FLAT_ROWS)), layout="nope")
    assert str(error.value) == expected


def test_a_folder_with_the_files_of_two_layouts_asks_for_one(tmp_path: Path) -> None:
    write_rate_test(tmp_path / "Task2_paragraph_rate" / "rate_test.csv")
    write_radeval(tmp_path / RADEVAL_FILE)
    with pytest.raises(InputError) as error:
        resolve_local(tmp_path)
    assert str(error.value) == (
        f"{tmp_path} holds the files of several layouts (rate-eval, radeval-expert); choose one with -T layout=NAME"
    )
    assert resolve_local(tmp_path, layout="radeval-expert").files == {"table": [tmp_path / RADEVAL_FILE]}


def test_several_candidates_for_one_file_are_named(tmp_path: Path) -> None:
    write_rate_test(tmp_path / "old" / "rate_test.csv")
    write_rate_test(tmp_path / "new" / "rate_test.csv")
    with pytest.raises(InputError) as error:
        resolve_local(tmp_path)
    assert str(error.value) == (
        f"{tmp_path}: several files could be the rate-eval table file (new/rate_test.csv, old/rate_test.csv)"
    )


REXVAL_REPORTS = "50_samples_gt_and_candidates.csv"
REXVAL_ERRORS = "6_valid_raters_per_rater_error_categories.csv"


def test_a_layout_of_two_files_needs_both(tmp_path: Path) -> None:
    reports = write_csv(tmp_path / REXVAL_REPORTS, ["study_id", "gt_report", "radgraph"], [["s1", "Normal.", "Clear."]])
    with pytest.raises(InputError) as error:
        resolve_local(reports)
    assert str(error.value) == (
        f"{reports}: the rexval layout also needs its errors file '{REXVAL_ERRORS}' in the same folder; "
        "pass the folder with -T data=FOLDER"
    )
    errors = write_csv(
        tmp_path / REXVAL_ERRORS,
        ["study_number", "candidate_type", "error_category", "rater_index", "clinically_significant", "num_errors"],
        [[0, "radgraph", 1, 0, "True", 1]],
    )
    data = resolve_local(tmp_path)
    assert (data.layout.name, data.files) == ("rexval", {"reports": [reports], "errors": [errors]})
    # Several files hash as the sorted `name<TAB>sha256` lines of their files.
    lines = "".join(
        f"{path.name}\t{hashlib.sha256(path.read_bytes()).hexdigest()}\n" for path in sorted((errors, reports))
    )
    assert data.fingerprint()["data_sha256"] == hashlib.sha256(lines.encode()).hexdigest()
    assert resolve_local(reports).fingerprint()["data_sha256"] == data.fingerprint()["data_sha256"]


def test_a_json_file_is_recognised_by_its_keys(tmp_path: Path) -> None:
    study = {"section_findings": "Clear lungs.", "section_impression": "Normal.", "model_prediction": "Clear."}
    predictions = tmp_path / "model_predictions.json"
    predictions.write_text(json.dumps({"s1": study}), encoding="utf-8")
    data = resolve_local(predictions)
    assert (data.layout.name, data.recognised_by) == ("rexrank", "columns")

    unknown = tmp_path / "other.json"
    unknown.write_text(json.dumps([{"scan": "s1", "text": "Normal."}]), encoding="utf-8")
    with pytest.raises(InputError) as error:
        resolve_local(unknown)
    message = str(error.value)
    assert message.startswith(f"{unknown}: not a layout this project knows (columns or keys found: scan, text); ")
    assert "flat layout (id, reference, candidate, ...)" in message and "\n" not in message
