"""`hub.fetch`: what it asks `huggingface_hub.snapshot_download` for, how its failures read, and that a dataset
fetched from the hub is read exactly like a local copy of the same files.

`snapshot_download` is replaced by a stand-in that records its arguments and returns a folder written by the
test in the dataset's own layout; only the offline test below calls the real library (with an empty cache).
"""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import huggingface_hub
import pytest
from huggingface_hub.errors import LocalEntryNotFoundError, RepositoryNotFoundError, RevisionNotFoundError

from radiology_tasks.core import hub
from radiology_tasks.core.hub import HubDependencyError, HubUnavailableError
from radiology_tasks.core.layouts import all_layouts
from radiology_tasks.core.loading import load_pairs
from tests.conftest import write_jsonl
from tests.real_layouts import RADEVAL_FILE, RADEVAL_HEADER
from tests.real_layouts import RADEVAL_LABELS as LABELS

PINNED = {
    "rate-eval": ("Angelakeke/RaTE-Eval", "43702688ab0297f8cde91611cb60dbab53fe1903"),
    "radeval-expert": ("IAMJB/RadEvalExpertDataset", "b4bd9d6ee75fcd155b6de466f1b7b7bd774408be"),
    "ct-finebench": ("csyrf/CT-FineBench", "2b06156ec7f5dd51041ea0af249e57014ca3eb45"),
}
PATTERNS = {
    "rate-eval": ["Task2_paragraph_rate/rate_test.csv"],
    "radeval-expert": ["reader_study_final_with_annotationsv3.csv"],
    "ct-finebench": ["*qa_test.json"],
}
LOCAL_COPY = "download its files and pass -T data=FOLDER (see README, Real datasets)"


def annotation(significant: list[Any], insignificant: list[Any], colon: str = "") -> str:
    lines = []
    for header, counts in zip(("Significant", "Insignificant"), (significant, insignificant)):
        lines.append(header + colon)
        lines += [f"{n}. {label}: {count}".rstrip() for n, (label, count) in enumerate(zip(LABELS, counts), 1)]
    return "\n".join(lines)


def write_radeval(folder: Path) -> None:
    """The RadEval expert file in its real layout, with one cell that cannot be read (a count missing)."""
    records = [
        [
            "reader_1",
            "findings",
            "Small left pleural effusion.",
            "/images/p1/s1/view.jpg",
            "Small left effusion.",
            "Large right pleural effusion.",
            "No effusion.",
            annotation([0] * 7, [0] * 7),
            annotation([0, 0, 1, 1, 0, 0, 0], [0] * 7, ":"),
            annotation([0, "", 0, 0, 0, 0, 0], [0] * 7),
        ],
        [
            "reader_2",
            "impression",
            "No acute process.",
            "/images/p2/s2/view.jpg",
            "No acute findings.",
            "New consolidation.",
            "No acute process; grammar poor.",
            annotation([0] * 7, [0] * 7),
            annotation([1, 0, 0, 0, 0, 0, 0], [0] * 7),
            annotation([0] * 7, [0, 0, 0, 0, 0, 0, 2], ":"),
        ],
    ]
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / RADEVAL_FILE).open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(RADEVAL_HEADER)
        writer.writerows(records)


def write_dataset(folder: Path, name: str) -> None:
    """A snapshot of dataset `name` as the hub cache holds it: the layout's files at their repository paths."""
    if name == "radeval-expert":
        write_radeval(folder)
    elif name == "rate-eval":
        (folder / "Task2_paragraph_rate").mkdir(parents=True, exist_ok=True)
        (folder / "Task2_paragraph_rate" / "rate_test.csv").write_text(
            "gt_report,similar_report,Score\nNormal chest.,Normal chest.,4.5\nLeft effusion.,Right effusion.,1.25\n",
            encoding="utf-8",
        )
    else:
        folder.mkdir(parents=True, exist_ok=True)
        question = {"report_id": "valid_1_a_1", "question": "Size?", "answer": "6 mm", "finding": "nodule"}
        (folder / "ctrate_qa_test.json").write_text(json.dumps([{**question, "attribute": "size"}]), encoding="utf-8")
        merlin = {**question, "report_id": "AC4f2e1", "attribute": "size"}
        (folder / "merlin_qa_test.json").write_text(json.dumps([merlin]), encoding="utf-8")


class FakeSnapshot:
    """Stands in for `huggingface_hub.snapshot_download`: records each call, returns the snapshot folder."""

    def __init__(self, folder: Path, error: BaseException | None = None) -> None:
        self.folder = folder
        self.error = error
        self.calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        self.calls.append((args, kwargs))
        if self.error is not None:
            raise self.error
        return str(self.folder)


@pytest.fixture
def snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeSnapshot:
    fake = FakeSnapshot(tmp_path / "hub-cache" / "snapshots" / "b4bd9d6")
    # fetch imports snapshot_download when it runs, so the attribute of the module is what it gets.
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    return fake


def reports_for(name: str, tmp_path: Path) -> str | None:
    if name != "ct-finebench":
        return None
    return str(write_jsonl(tmp_path / "reports.jsonl", [{"id": "valid_1_a_1", "reference": "A 6 mm nodule."}]))


@pytest.mark.parametrize("name", list(PINNED))
def test_the_pinned_revision_and_only_the_layouts_files_are_asked_for(
    tmp_path: Path, snapshot: FakeSnapshot, name: str
) -> None:
    write_dataset(snapshot.folder, name)
    repo, pinned = PINNED[name]
    loaded = load_pairs(name, reports=reports_for(name, tmp_path))

    assert snapshot.calls == [((repo,), {"repo_type": "dataset", "revision": pinned, "allow_patterns": PATTERNS[name]})]
    layout = all_layouts()[name]
    assert (layout.hub_repo, layout.hub_revision) == (repo, pinned)
    assert (loaded.source, loaded.data.origin, loaded.data.revision, loaded.data.recognised_by) == (
        name,
        "hub",
        pinned,
        "dataset name",
    )
    assert loaded.data.fingerprint()["revision"] == pinned
    assert loaded.summary()["layout"] == name


@pytest.mark.parametrize("name", list(PINNED))
def test_a_revision_given_with_t_revision_is_passed_through(tmp_path: Path, snapshot: FakeSnapshot, name: str) -> None:
    write_dataset(snapshot.folder, name)
    loaded = load_pairs(name, revision="main", reports=reports_for(name, tmp_path))
    assert [kwargs["revision"] for _, kwargs in snapshot.calls] == ["main"]
    assert loaded.data.revision == "main" and loaded.data.fingerprint()["revision"] == "main"


def test_radeval_from_the_hub_reads_like_a_local_copy_and_like_the_file(tmp_path: Path, snapshot: FakeSnapshot) -> None:
    write_dataset(snapshot.folder, "radeval-expert")
    copy = tmp_path / "my-copy"
    shutil.copytree(snapshot.folder, copy)

    from_hub = load_pairs("radeval-expert")
    from_folder = load_pairs(str(copy))
    from_file = load_pairs(str(copy / RADEVAL_FILE))

    assert len(from_hub.pairs) == 6
    assert from_folder.pairs == from_hub.pairs and from_file.pairs == from_hub.pairs
    fingerprints = [loaded.data.fingerprint() for loaded in (from_hub, from_folder, from_file)]
    assert len({f["data_sha256"] for f in fingerprints}) == 1
    assert fingerprints[0]["data_sha256"] == hashlib.sha256((copy / RADEVAL_FILE).read_bytes()).hexdigest()
    assert all(f["files"] == fingerprints[0]["files"] and f["layout"] == "radeval-expert" for f in fingerprints)
    assert [(f["origin"], f["revision"]) for f in fingerprints] == [
        ("hub", PINNED["radeval-expert"][1]),
        ("local", None),
        ("local", None),
    ]
    # The broken cell is reported the same way whichever way the file came.
    assert [loaded.summary()["annotations_unreadable"] for loaded in (from_hub, from_folder, from_file)] == [1, 1, 1]
    assert from_hub.summary()["unreadable_annotations"] == [
        {
            "id": "001-c3",
            "row": 1,
            "annotation": "annotation3",
            "category": "2. Omission of finding",
            "problem": "the 'significant' count is missing",
        }
    ]


@pytest.mark.parametrize("name", ["rate-eval", "ct-finebench"])
def test_other_hub_datasets_hash_like_their_local_copy(tmp_path: Path, snapshot: FakeSnapshot, name: str) -> None:
    write_dataset(snapshot.folder, name)
    copy = tmp_path / "my-copy"
    shutil.copytree(snapshot.folder, copy)
    reports = reports_for(name, tmp_path)
    from_hub, from_copy = load_pairs(name, reports=reports), load_pairs(str(copy), reports=reports)
    assert from_copy.pairs == from_hub.pairs
    assert from_copy.data.fingerprint()["data_sha256"] == from_hub.data.fingerprint()["data_sha256"]


def http_error(kind: type[Exception], message: str) -> Exception:
    """A huggingface_hub HTTP error as the library raises it (it reads the response's headers and request)."""

    class Response:
        headers: dict[str, str] = {}
        request = None
        status_code = 404

    return kind(message, response=Response())  # type: ignore[call-arg]


LABEL = f"IAMJB/RadEvalExpertDataset (revision {PINNED['radeval-expert'][1]})"


@pytest.mark.parametrize(
    ("error", "message"),
    [
        pytest.param(
            http_error(RepositoryNotFoundError, "Repository Not Found for url: https://huggingface.co/x\nmore detail"),
            f"{LABEL}: no such dataset repository on the hub, or it is private; {LOCAL_COPY}",
            id="repository-not-found",
        ),
        pytest.param(
            http_error(RevisionNotFoundError, "  Invalid rev id: v9\n\nmore detail"),
            f"{LABEL}: the repository has no such revision; check -T revision, or {LOCAL_COPY}",
            id="revision-not-found",
        ),
        pytest.param(
            http_error(RevisionNotFoundError, ""),
            f"{LABEL}: the repository has no such revision; check -T revision, or {LOCAL_COPY}",
            id="revision-not-found-without-a-message",
        ),
        pytest.param(
            LocalEntryNotFoundError("Cannot find an appropriate cached snapshot folder"),
            f"could not fetch {LABEL} (LocalEntryNotFoundError): {LOCAL_COPY}; or set HF_HUB_OFFLINE=1 with the "
            "dataset already in the hub cache",
            id="local-entry-not-found",
        ),
        pytest.param(
            ConnectionError("Network is unreachable"),
            f"could not fetch {LABEL} (ConnectionError): {LOCAL_COPY}; or set HF_HUB_OFFLINE=1 with the dataset "
            "already in the hub cache",
            id="connection-error",
        ),
    ],
)
def test_hub_failures_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, message: str
) -> None:
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(huggingface_hub, "snapshot_download", FakeSnapshot(tmp_path, error))
    with pytest.raises(HubUnavailableError) as caught:
        load_pairs("radeval-expert")
    assert str(caught.value) == message
    assert "\n" not in str(caught.value) and caught.value.__suppress_context__


def test_an_unknown_revision_names_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeSnapshot(tmp_path, http_error(RevisionNotFoundError, "Invalid rev id: v9"))
    monkeypatch.setattr(huggingface_hub, "snapshot_download", fake)
    with pytest.raises(HubUnavailableError) as caught:
        load_pairs("rate-eval", revision="v9")
    assert str(caught.value) == (
        f"Angelakeke/RaTE-Eval (revision v9): the repository has no such revision; check -T revision, or {LOCAL_COPY}"
    )


def test_offline_with_an_empty_cache_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The real library, with no network allowed and nothing cached: the error it raises is mapped too.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    with pytest.raises(HubUnavailableError) as caught:
        load_pairs("radeval-expert", revision="v1")
    assert str(caught.value).startswith("could not fetch IAMJB/RadEvalExpertDataset (revision v1) (")
    assert str(caught.value).endswith(f"): {LOCAL_COPY}; the hub cache does not hold it (HF_HUB_OFFLINE is set)")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("name", list(PINNED))
def test_a_missing_huggingface_hub_says_how_to_load_a_local_copy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    monkeypatch.setitem(sys.modules, "huggingface_hub", None)
    with pytest.raises(HubDependencyError) as caught:
        load_pairs(name, reports=reports_for(name, tmp_path))
    assert str(caught.value) == (
        f"fetching {PINNED[name][0]} needs the 'huggingface_hub' package: pip install 'radiology-tasks[hf]', "
        f"or {LOCAL_COPY}"
    )
    assert caught.value.__suppress_context__


def test_hub_label_names_the_repository_and_revision() -> None:
    layout = all_layouts()["radeval-expert"]
    assert hub.hub_label(layout, None) == "IAMJB/RadEvalExpertDataset (revision latest)"
    assert hub.hub_label(layout, "main") == "IAMJB/RadEvalExpertDataset (revision main)"
