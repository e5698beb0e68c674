"""Checks on the bundled synthetic demo set itself (content, structure and internal consistency)."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core import records
from radiology_tasks.core.records import ERROR_CATEGORIES, ErrorCounts, ExpertAnnotation, QAPair, ReportPair

DEMO_PATH = Path(records.__file__).parents[1] / "data" / "demo_reports.jsonl"

REQUIRED_COLUMNS = {
    "id",
    "reference",
    "candidate",
    "modality",
    "anatomy",
    "language",
    "indication",
    "expert_score",
    "expert_score_min",
    "expert_score_max",
    "error_note",
    "synthetic",
    *(f"significant_{c}" for c in ERROR_CATEGORIES),
    *(f"insignificant_{c}" for c in ERROR_CATEGORIES),
}
OPTIONAL_COLUMNS = {"qa"}
MAX_REPORT_CHARS = 900


def _load_rows() -> list[dict[str, Any]]:
    with DEMO_PATH.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


ROWS = _load_rows()


def _counts(row: dict[str, Any], prefix: str) -> ErrorCounts:
    return ErrorCounts(**{c: row[f"{prefix}_{c}"] for c in ERROR_CATEGORIES})


def _to_pair(row: dict[str, Any]) -> ReportPair:
    """Map one flat demo row onto the shared data model (kept local so this test checks the file, not a loader)."""
    return ReportPair(
        id=row["id"],
        reference=row["reference"],
        candidate=row["candidate"],
        modality=row["modality"],
        anatomy=row["anatomy"],
        language=row["language"],
        indication=row["indication"],
        expert=ExpertAnnotation(
            score=row["expert_score"],
            scale_min=row["expert_score_min"],
            scale_max=row["expert_score_max"],
            significant=_counts(row, "significant"),
            insignificant=_counts(row, "insignificant"),
        ),
        qa=[QAPair(**qa) for qa in row.get("qa", [])],
        metadata={"error_note": row["error_note"], "synthetic": row["synthetic"]},
    )


def _reference_key(row: dict[str, Any]) -> str:
    """Ids look like `ctc-01-para`; everything before the last dash names the reference."""
    return row["id"].rsplit("-", 1)[0]


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s]


def _by_reference() -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in ROWS:
        groups[_reference_key(row)].append(row)
    return dict(groups)


def test_row_count_is_within_the_planned_range() -> None:
    assert 36 <= len(ROWS) <= 42


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_row_has_exactly_the_documented_columns(row: dict[str, Any]) -> None:
    keys = set(row)
    assert REQUIRED_COLUMNS <= keys, f"missing: {sorted(REQUIRED_COLUMNS - keys)}"
    assert keys <= REQUIRED_COLUMNS | OPTIONAL_COLUMNS, (
        f"unexpected: {sorted(keys - REQUIRED_COLUMNS - OPTIONAL_COLUMNS)}"
    )


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_row_builds_a_valid_report_pair(row: dict[str, Any]) -> None:
    pair = _to_pair(row)
    assert pair.expert is not None and pair.expert.significant is not None
    assert pair.expert.scale_min == 0.0
    assert pair.expert.scale_max == 5.0
    assert pair.expert.significant.as_dict() == {c: row[f"significant_{c}"] for c in ERROR_CATEGORIES}
    assert pair.modality in {"CT", "XR", "MRI"}
    assert pair.language == "en"
    assert row["synthetic"] is True
    assert row["error_note"].strip()
    assert row["indication"].strip()


def test_ids_are_unique() -> None:
    ids = [row["id"] for row in ROWS]
    assert len(ids) == len(set(ids))


def test_id_prefix_identifies_exactly_one_reference() -> None:
    groups = _by_reference()
    references = [{row["reference"] for row in rows} for rows in groups.values()]
    assert all(len(refs) == 1 for refs in references)
    assert len({next(iter(refs)) for refs in references}) == len(groups)


def test_each_reference_has_two_or_three_candidates() -> None:
    assert all(2 <= len(rows) <= 3 for rows in _by_reference().values())


@pytest.mark.parametrize("category", ERROR_CATEGORIES)
def test_category_is_planted_as_significant_in_at_least_three_candidates(category: str) -> None:
    planted = [row["id"] for row in ROWS if row[f"significant_{category}"] > 0]
    assert len(planted) >= 3, planted


def test_references_cover_the_required_modalities_and_anatomies() -> None:
    groups = _by_reference()
    kinds: dict[tuple[str, str], int] = defaultdict(int)
    mri = 0
    for rows in groups.values():
        modality, anatomy = rows[0]["modality"], rows[0]["anatomy"]
        kinds[(modality, anatomy)] += 1
        mri += modality == "MRI"
    assert len(groups) >= 14
    assert kinds[("CT", "chest")] >= 4
    assert kinds[("CT", "abdomen")] >= 3
    assert kinds[("XR", "chest")] >= 4
    assert mri >= 3


def test_every_reference_has_a_paraphrase_without_significant_errors() -> None:
    for key, rows in _by_reference().items():
        clean = [r for r in rows if _counts(r, "significant").total == 0]
        assert len(clean) == 1, key


def test_some_candidates_carry_insignificant_errors() -> None:
    assert sum(_counts(row, "insignificant").total > 0 for row in ROWS) >= 3


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_expert_score_matches_the_planted_errors(row: dict[str, Any]) -> None:
    significant = _counts(row, "significant").total
    score = row["expert_score"]
    assert score * 2 == int(score * 2), "scores are whole or half points"
    if significant == 0:
        assert 4.5 <= score <= 5.0
    elif significant == 1:
        assert 3.0 <= score <= 4.0
    else:
        assert 1.0 <= score <= 2.5


def test_expert_score_falls_as_significant_errors_rise_within_each_reference() -> None:
    for key, rows in _by_reference().items():
        ordered = sorted(rows, key=lambda r: _counts(r, "significant").total)
        scores = [r["expert_score"] for r in ordered]
        assert scores == sorted(scores, reverse=True), key
        assert len(set(scores)) == len(scores), key


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_reports_are_short_and_candidate_differs_from_reference(row: dict[str, Any]) -> None:
    assert len(row["reference"]) <= MAX_REPORT_CHARS
    assert len(row["candidate"]) <= MAX_REPORT_CHARS
    assert row["candidate"] != row["reference"]
    assert 3 <= len(_sentences(row["reference"])) <= 8


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_qa_pairs_exist_exactly_for_ct_rows(row: dict[str, Any]) -> None:
    if row["modality"] == "CT":
        assert 3 <= len(row["qa"]) <= 6
    else:
        assert "qa" not in row


def test_rows_sharing_a_reference_share_its_qa() -> None:
    for key, rows in _by_reference().items():
        assert all(r.get("qa") == rows[0].get("qa") for r in rows), key


@pytest.mark.parametrize("row", [r for r in ROWS if r["modality"] == "CT"], ids=lambda r: r["id"])
def test_qa_answers_are_grounded_in_the_reference(row: dict[str, Any]) -> None:
    reference = row["reference"].lower()
    for qa in row["qa"]:
        assert qa["answer"].lower() in reference, qa["answer"]
        assert qa["question"].rstrip().endswith("?")
        assert qa["finding"] and qa["attribute"] and qa["attribute_type"]


def test_system_b_copies_a_worse_candidate_of_the_same_reference():
    demo = {row["id"]: row for row in (json.loads(line) for line in DEMO_PATH.read_text().splitlines())}
    system_b = [json.loads(line) for line in (DEMO_PATH.parent / "demo_system_b.jsonl").read_text().splitlines()]
    assert [row["id"] for row in system_b] == list(demo)
    worse = {"para": "err", "err": "multi", "multi": "multi"}
    for row in system_b:
        reference, kind = row["id"].rsplit("-", 1)
        wanted = f"{reference}-{worse[kind]}"
        source = wanted if wanted in demo else row["id"]
        assert row["copied_from"] == source, row["id"]
        assert row["candidate"] == demo[source]["candidate"]
    assert sum(row["copied_from"] != row["id"] for row in system_b) == 27
