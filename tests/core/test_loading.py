"""Local JSONL/CSV loading, the registered demo set, candidate joins and every bad-data case."""

from __future__ import annotations

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.rows import DataError
from radiology_tasks.core.task_data import DataOptions, report_dataset
from tests.conftest import GOOD_ROWS


@pytest.mark.parametrize("name", ["pairs.jsonl", "pairs.csv"])
def test_local_file_maps_columns(pairs_file, name):
    loaded = load_pairs(str(pairs_file(GOOD_ROWS, name)))
    first, second = loaded.pairs
    assert (first.id, first.candidate, first.modality) == ("r1", "Small left pleural effusion.", "XR")
    assert first.expert is not None and first.expert.normalized_score == pytest.approx(0.8)
    assert second.expert is not None and second.expert.normalized_score == pytest.approx(0.4)
    assert first.metadata == {"site": "A"}
    assert loaded.rows_read == 2 and loaded.skipped == []


def test_per_category_counts_are_read(pairs_file):
    row = dict(GOOD_ROWS[1], **{f"significant_{c}": 0 for c in "abcdef"}, **{f"insignificant_{c}": 0 for c in "abcdef"})
    row["significant_c"] = 1
    (pair,) = load_pairs(str(pairs_file([row]))).pairs
    assert pair.expert.significant.as_dict() == {"a": 0, "b": 0, "c": 1, "d": 0, "e": 0, "f": 0}
    assert pair.expert.insignificant.total == 0


def test_demo_set_is_the_default():
    loaded = load_pairs(None)
    assert loaded.source == "demo"
    assert len(loaded.pairs) >= 12
    assert all(p.candidate for p in loaded.pairs)


@pytest.mark.parametrize(
    ("row", "field", "message"),
    [
        ({"id": "x", "candidate": "Normal."}, "reference", "missing or empty reference report"),
        ({"id": "x", "reference": "   ", "candidate": "Normal."}, "reference", "missing or empty reference report"),
        ({"id": "x", "reference": "Normal.", "candidate": ""}, "candidate", "empty candidate report"),
        ({"reference": "Normal."}, "id", "missing or empty"),
        ({"id": "x", "reference": "Normal.", "expert_score": "good"}, "expert_score", "expected a number, got 'good'"),
        ({"id": "x", "reference": "Normal.", "expert_score": 7}, "expert_score", "lies outside the scale [0.0, 1.0]"),
        (
            {"id": "x", "reference": "Normal.", "significant_a": 1},
            "significant_b",
            "error counts must be given for all of (a)-(f)",
        ),
    ],
)
def test_bad_row_names_file_row_and_field(pairs_file, row, field, message):
    path = pairs_file([GOOD_ROWS[0], row])
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.source, caught.value.row, caught.value.field) == (str(path), 2, field)
    assert message in caught.value.problem
    assert f"{path}, row 2, field '{field}'" in str(caught.value)


def test_non_numeric_expert_score_in_csv(pairs_file):
    path = pairs_file([GOOD_ROWS[0], dict(GOOD_ROWS[1], expert_score="n/a")], "pairs.csv")
    with pytest.raises(DataError, match=r"row 2, field 'expert_score': expected a number, got 'n/a'"):
        load_pairs(str(path))


def test_duplicate_id(pairs_file):
    path = pairs_file([GOOD_ROWS[0], GOOD_ROWS[1], dict(GOOD_ROWS[1])])
    with pytest.raises(DataError, match=r"row 3, field 'id': duplicate id 'r2' \(first seen in row 2\)"):
        load_pairs(str(path))


def test_skip_counts_every_bad_row(pairs_file):
    rows = [GOOD_ROWS[0], {"id": "bad", "reference": ""}, GOOD_ROWS[1], dict(GOOD_ROWS[1])]
    loaded = load_pairs(str(pairs_file(rows)), on_bad_rows="skip")
    assert [p.id for p in loaded.pairs] == ["r1", "r2"]
    assert [(s.row, s.field) for s in loaded.skipped] == [(2, "reference"), (4, "id")]
    summary = loaded.summary()
    assert (summary["rows_read"], summary["rows_used"], summary["rows_skipped"]) == (4, 2, 2)


def test_unknown_policy_and_unknown_name():
    with pytest.raises(ValueError, match="on_bad_rows must be 'error' or 'skip'"):
        load_pairs(None, on_bad_rows="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="neither a registered dataset nor an existing file"):
        load_pairs("no-such-dataset")


def test_candidates_file_joined_by_id(pairs_file, tmp_path):
    refs = [{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS]
    data = pairs_file(refs)
    cands = tmp_path / "cands.csv"
    cands.write_text("id,candidate\nr2,Generated two.\nr1,Generated one.\n", encoding="utf-8")
    loaded = load_pairs(str(data), candidates=str(cands), require_candidate=True)
    assert [(p.id, p.candidate) for p in loaded.pairs] == [("r1", "Generated one."), ("r2", "Generated two.")]


def test_candidates_file_with_unknown_id(pairs_file, tmp_path):
    data = pairs_file(GOOD_ROWS)
    cands = tmp_path / "cands.jsonl"
    cands.write_text('{"id": "r1", "candidate": "a"}\n{"id": "r9", "candidate": "b"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"cands.jsonl, row 2, field 'id': id 'r9' does not match any report"):
        load_pairs(str(data), candidates=str(cands))


def test_candidates_file_missing_an_id(pairs_file, tmp_path):
    data = pairs_file(GOOD_ROWS)
    cands = tmp_path / "cands.jsonl"
    cands.write_text('{"id": "r1", "candidate": "a"}\n', encoding="utf-8")
    with pytest.raises(DataError, match=r"field 'id': no candidate for report id 'r2'"):
        load_pairs(str(data), candidates=str(cands))
    loaded = load_pairs(str(data), candidates=str(cands), on_bad_rows="skip")
    assert [p.id for p in loaded.pairs] == ["r1"] and len(loaded.skipped) == 1


def test_replay_requires_a_candidate(pairs_file):
    data = pairs_file([GOOD_ROWS[0], {"id": "r3", "reference": "Normal chest."}])
    with pytest.raises(DataError, match=r"row 2, field 'candidate': no candidate report"):
        load_pairs(str(data), require_candidate=True)
    assert len(load_pairs(str(data)).pairs) == 2


def test_limit_and_seed(pairs_file):
    rows = [dict(GOOD_ROWS[0], id=f"r{i}") for i in range(10)]
    path = str(pairs_file(rows))
    dataset, summary = report_dataset(DataOptions(path, limit=3), require_candidate=True)
    assert [s.id for s in dataset] == ["r0", "r1", "r2"] and summary["samples"] == 3
    first, _ = report_dataset(DataOptions(path, limit=4, seed=7), require_candidate=True)
    again, _ = report_dataset(DataOptions(path, limit=4, seed=7), require_candidate=True)
    assert [s.id for s in first] == [s.id for s in again] != ["r0", "r1", "r2", "r3"]
    with pytest.raises(ValueError, match="limit must be at least 1"):
        report_dataset(DataOptions(path, limit=0), require_candidate=True)


def test_unsupported_extension(tmp_path):
    path = tmp_path / "pairs.txt"
    path.write_text("id,reference\n", encoding="utf-8")
    with pytest.raises(DataError, match="unsupported file type"):
        load_pairs(str(path))


def test_broken_jsonl_line(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "a", "reference": "x"}\n{"id": \n', encoding="utf-8")
    with pytest.raises(DataError, match=r"row 2: not valid JSON"):
        load_pairs(str(path))
