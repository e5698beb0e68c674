"""Registered dataset names: the bundled demo set and the hub loaders they dispatch to."""

from __future__ import annotations

from typing import Any

import pytest

from radiology_tasks.core import hub
from radiology_tasks.core.catalog import DATASETS, bundled_path, dataset_entry
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import load_pairs


def test_registered_names() -> None:
    assert list(DATASETS) == ["demo", "ran-score-demo", "rate-eval", "radeval-expert", "ct-finebench"]
    assert dataset_entry("demo") is DATASETS["demo"]
    assert dataset_entry("my_pairs.jsonl") is None


def test_demo_rows_come_from_the_bundled_file() -> None:
    entry = DATASETS["demo"]
    assert entry.base_dir == bundled_path("demo_reports.jsonl").parent
    assert bundled_path("demo_reports.jsonl").name == "demo_reports.jsonl"
    rows = list(entry.rows(revision=None, reports=None))
    lines = [line for line in bundled_path("demo_reports.jsonl").read_text().splitlines() if line.strip()]
    assert [number for number, _ in rows] == list(range(1, len(lines) + 1))


@pytest.mark.parametrize("option", [{"revision": "v1"}, {"reports": "reports.jsonl"}])
def test_the_demo_set_takes_no_revision_or_reports(option: dict[str, str]) -> None:
    with pytest.raises(InputError, match="^bundled datasets take neither -T revision nor -T reports$"):
        load_pairs("demo", **option)


@pytest.mark.parametrize(
    ("name", "loader"),
    [("rate-eval", "rate_eval_rows"), ("radeval-expert", "radeval_expert_rows"), ("ct-finebench", "ct_finebench_rows")],
)
def test_hub_names_reach_their_loader_with_revision_and_reports(
    monkeypatch: pytest.MonkeyPatch, name: str, loader: str
) -> None:
    calls: list[dict[str, Any]] = []

    def record(**kwargs: Any) -> list[tuple[int, dict[str, Any]]]:
        calls.append(kwargs)
        return [(1, {"id": "x", "reference": "Normal.", "candidate": "Normal."})]

    monkeypatch.setattr(hub, loader, record)
    loaded = load_pairs(name, revision="abc123", reports="reports.csv" if name == "ct-finebench" else None)
    assert calls == [{"revision": "abc123", "reports": "reports.csv" if name == "ct-finebench" else None}]
    assert (loaded.source, [p.id for p in loaded.pairs]) == (name, ["x"])
