"""Dataset names: the bundled sets, and the registered layouts of public datasets that `-T data=NAME` takes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core import hub
from radiology_tasks.core.catalog import DEMO, BundledData, bundled, bundled_dataset, bundled_path, dataset_names
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import add_family, families, remove_family
from radiology_tasks.core.layouts import Layout
from radiology_tasks.core.loading import load_pairs, resolve_data
from radiology_tasks.core.task_data import DataOptions
from tests.conftest import write_csv, write_jsonl
from tests.toy_families import ToyFamily


def test_bundled_names() -> None:
    declared = {name: data for family in families() for name, data in family.datasets.items()}
    assert bundled() == {"demo": DEMO, **declared}, "the shared demo, then each family's own sets"
    assert bundled_dataset("demo") == bundled_path("demo_reports.jsonl")
    for name, data in declared.items():
        assert bundled_dataset(name) == data.path and data.path.is_file(), name
    assert bundled_dataset("my_pairs.jsonl") is None
    assert bundled_dataset("rate-eval") is None


def test_a_family_ships_its_own_data_set_and_a_name_declared_twice_is_refused() -> None:
    toy = ToyFamily("catalog_test_family", ())
    toy.datasets = {"catalog-test-set": BundledData("tests", "conftest.py", "A toy family's own file")}
    add_family(toy)
    try:
        assert bundled_dataset("catalog-test-set") == Path(__file__).parent.parent / "conftest.py"
        assert ("catalog-test-set", "A toy family's own file") in dataset_names()
        twin = ToyFamily("toy_twin", ())
        twin.datasets = {"catalog-test-set": toy.datasets["catalog-test-set"]}
        add_family(twin)
        declared_twice = "bundled dataset catalog-test-set is declared twice \\(family toy_twin\\)"
        with pytest.raises(ValueError, match=declared_twice):
            bundled()
    finally:
        remove_family("catalog_test_family")
        remove_family("toy_twin")


def test_dataset_names_list_bundled_hub_and_downloaded_datasets() -> None:
    names = dict(dataset_names())
    assert list(names)[: len(bundled())] == list(bundled())
    assert {"rate-eval", "radeval-expert", "ct-finebench", "rexval"} <= set(names)
    assert names["rate-eval"].endswith("[hub Angelakeke/RaTE-Eval]")
    assert names["radeval-expert"].endswith("[hub IAMJB/RadEvalExpertDataset]")
    assert names["ct-finebench"].endswith("[hub csyrf/CT-FineBench]")
    assert names["rexval"].endswith(
        "[download: it is on PhysioNet (credentialed access): download the ReXVal files yourself]"
    )
    # The project's own layouts are read from files, not named as datasets.
    assert "flat" not in names and "rexrank" not in names


def test_demo_rows_come_from_the_bundled_file() -> None:
    data = resolve_data("demo")
    path = bundled_path("demo_reports.jsonl")
    assert (data.layout.name, data.origin, data.files, data.base_dir) == (
        "flat",
        "bundled",
        {"table": [path]},
        path.parent,
    )
    assert resolve_data(None) == data
    rows = list(data.rows(DataOptions()))
    lines = [line for line in path.read_text().splitlines() if line.strip()]
    assert [number for number, _ in rows] == list(range(1, len(lines) + 1))
    assert load_pairs("demo").data.fingerprint()["origin"] == "bundled"


def test_the_demo_set_takes_no_revision_or_reports() -> None:
    with pytest.raises(InputError) as error:
        load_pairs("demo", revision="v1")
    assert str(error.value) == "-T revision applies to hub datasets, not to the bundled dataset demo"
    with pytest.raises(InputError, match=r"^-T reports=\.\.\. applies only to question datasets such as ct-finebench"):
        load_pairs("demo", reports="reports.jsonl")


def test_rexval_is_downloaded_by_the_user_and_passed_as_a_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # no folder called rexval here
    with pytest.raises(InputError) as error:
        load_pairs("rexval")
    message = str(error.value)
    assert message == (
        "rexval cannot be downloaded here: it is on PhysioNet (credentialed access): download the ReXVal files "
        "yourself. Then pass the folder: -T data=FOLDER"
    )
    assert "\n" not in message


def test_a_name_that_is_neither_a_dataset_nor_a_path() -> None:
    with pytest.raises(InputError) as error:
        load_pairs("no-such-dataset")
    assert str(error.value) == (
        "'no-such-dataset' is neither a registered dataset nor an existing file or folder; "
        "run `radiology-tasks list` to see the registered datasets and layouts"
    )


def _hub_copy(folder: Path, name: str) -> None:
    """A hub snapshot of dataset `name` holding one pair (ct-finebench: the questions of report `x`)."""
    if name == "rate-eval":
        (folder / "Task2_paragraph_rate").mkdir(parents=True)
        write_csv(
            folder / "Task2_paragraph_rate" / "rate_test.csv",
            [{"gt_report": "Normal.", "similar_report": "Normal.", "Score": 5}],
        )
    elif name == "radeval-expert":
        folder.mkdir(parents=True)
        row: dict[str, Any] = {"annotator": "r", "type": "findings", "ground_truth": "Normal.", "images_path": "x.jpg"}
        row |= {f"prediction{n}": "Normal." for n in (1, 2, 3)} | {f"annotation{n}": "" for n in (1, 2, 3)}
        write_csv(folder / "reader_study_final_with_annotationsv3.csv", [row])
    else:
        folder.mkdir(parents=True)
        question = {"report_id": "x", "question": "Size?", "answer": "6 mm", "finding": "nodule", "attribute": "size"}
        (folder / "ctrate_qa_test.json").write_text(json.dumps([question]), encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "first_id"), [("rate-eval", "test-1"), ("radeval-expert", "001-c1"), ("ct-finebench", "x")]
)
def test_hub_names_reach_the_hub_with_their_layout_and_revision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, first_id: str
) -> None:
    calls: list[tuple[str, str | None]] = []

    def fetch(layout: Layout, revision: str | None) -> tuple[Path, str | None]:
        calls.append((layout.name, revision))
        folder = tmp_path / "snapshot"
        _hub_copy(folder, name)
        return folder, revision

    monkeypatch.setattr(hub, "fetch", fetch)
    reports = None
    if name == "ct-finebench":
        reports = str(write_jsonl(tmp_path / "reports.jsonl", [{"id": "x", "reference": "A 6 mm nodule."}]))
    loaded = load_pairs(name, revision="abc123", reports=reports)
    assert calls == [(name, "abc123")]
    assert (loaded.source, loaded.pairs[0].id) == (name, first_id)
    assert (loaded.data.origin, loaded.data.revision, loaded.data.recognised_by) == ("hub", "abc123", "dataset name")


def test_a_hub_dataset_is_read_with_its_own_layout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(hub, "fetch", lambda layout, revision: pytest.fail("fetched"))
    with pytest.raises(InputError) as error:
        load_pairs("rate-eval", layout="flat")
    assert str(error.value) == "-T data=rate-eval is read with its own layout; -T layout=flat does not apply"
