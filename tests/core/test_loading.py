"""Local JSONL/CSV loading, the registered demo set, candidate joins and every bad-data case."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.rows import DataError
from radiology_tasks.core.task_data import REPLAYED_INPUT, DataOptions, report_dataset
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
        (
            {"id": "x", "reference": "Normal.", "expert_score": 7},
            "expert_score",
            "7.0 lies outside the scale [0.0, 1.0] (set expert_score_min / expert_score_max)",
        ),
        ({"id": " ", "reference": "Normal."}, "id", "missing or empty"),
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
    assert (caught.value.source, caught.value.row, caught.value.field, caught.value.problem) == (
        str(path),
        2,
        field,
        message,
    )
    assert str(caught.value) == f"{path}, row 2, field '{field}': {message}"


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
    with pytest.raises(ValueError, match="^-T on_bad_rows must be one of error, skip; got 'ignore'$"):
        load_pairs(None, on_bad_rows="ignore")  # type: ignore[arg-type]
    with pytest.raises(ValueError) as caught:
        load_pairs("no-such-dataset")
    assert str(caught.value) == (
        "'no-such-dataset' is neither a registered dataset nor an existing file or folder; "
        "run `radiology-tasks list` to see the registered datasets and layouts"
    )


def test_candidates_file_joined_by_id(pairs_file, tmp_path):
    refs = [{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS]
    data = pairs_file(refs)
    cands = tmp_path / "cands.csv"
    cands.write_text("id,candidate\nr2,Generated two.\nr1,Generated one.\n", encoding="utf-8")
    loaded = load_pairs(str(data), candidates=str(cands), require_candidate=True)
    assert [(p.id, p.candidate) for p in loaded.pairs] == [("r1", "Generated one."), ("r2", "Generated two.")]
    # The data has no candidates of its own: its expert scores are about these, and are kept.
    assert [p.expert.normalized_score for p in loaded.pairs] == [pytest.approx(0.8), pytest.approx(0.4)]


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
    with pytest.raises(DataError) as caught:
        load_pairs(str(data), require_candidate=True)
    assert str(caught.value) == (
        f"{data}, row 2, field 'candidate': no candidate report; add the column, pass -T candidates=FILE, "
        "or use -T generate=true"
    )
    assert len(load_pairs(str(data)).pairs) == 2


def test_limit_and_seed(pairs_file):
    rows = [dict(GOOD_ROWS[0], id=f"r{i}") for i in range(10)]
    path = str(pairs_file(rows))
    dataset, summary, _ = report_dataset(DataOptions(path, limit=3), require_candidate=True)
    assert [s.id for s in dataset] == ["r0", "r1", "r2"] and summary["samples"] == 3
    first, _, _ = report_dataset(DataOptions(path, limit=4, seed=7), require_candidate=True)
    again, _, _ = report_dataset(DataOptions(path, limit=4, seed=7), require_candidate=True)
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


def test_empty_csv_cells_are_missing_values(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text(
        "id,reference,candidate,expert_score,modality,site,significant_a\n"
        "r1,Normal chest.,,,,,\n"
        "r2,Normal chest.,Clear lungs.,0.5,,B,\n",
        encoding="utf-8",
    )
    first, second = load_pairs(str(path)).pairs
    # Read as "" instead, the empty score and count would be refused and the empty candidate judged.
    assert (first.candidate, first.expert, first.modality, first.metadata) == (None, None, None, {})
    assert (second.candidate, second.modality, second.metadata) == ("Clear lungs.", None, {"site": "B"})
    assert second.expert is not None and second.expert.significant is None and second.expert.score == 0.5


def _with_counts(row: dict, prefix: str = "significant", **given) -> dict:
    return dict(row, **{f"{prefix}_{c}": given.get(c, 0) for c in "abcdef"})


@pytest.mark.parametrize("name", ["pairs.jsonl", "pairs.csv"])
@pytest.mark.parametrize("count", [1.5, "1.5", 0.999, -1, "-2", "two", True])
def test_a_count_that_is_not_a_non_negative_whole_number_is_refused(pairs_file, name, count):
    if name.endswith(".csv") and count is True:
        count = "True"
    path = pairs_file([_with_counts(GOOD_ROWS[0], "insignificant", d=count)], name)
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.row, caught.value.field) == (1, "insignificant_d")
    assert caught.value.problem.startswith("expected a")


@pytest.mark.parametrize(
    ("count", "read"),
    [(2.0, 2), ("3", 3), (" 4 ", 4), ("5.0", 5), (10**20 + 1, 10**20 + 1), (str(10**20 + 1), 10**20 + 1)],
)
def test_whole_counts_are_read_exactly(pairs_file, count, read):
    (pair,) = load_pairs(str(pairs_file([_with_counts(GOOD_ROWS[0], b=count)]))).pairs
    assert pair.expert.significant.as_dict() == {"a": 0, "b": read, "c": 0, "d": 0, "e": 0, "f": 0}


def test_a_count_too_large_for_a_float_is_one_clear_error(tmp_path):
    path = tmp_path / "pairs.jsonl"
    path.write_text('{"id": "a", "reference": "x", "expert_score": 10' + "0" * 400 + "}\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert str(caught.value).startswith(f"{path}, row 1, field 'expert_score': expected a finite number, got 1000")


@pytest.mark.parametrize(
    ("score", "low", "high", "normalised"),
    # (score - min) / (max - min), worked out by hand.
    [(3, 1, 5, 0.5), (1, 1, 5, 0.0), (5, 1, 5, 1.0), (2, 1, 3, 0.5), (-1, -2, 2, 0.25), (4, None, 5, 0.8)],
)
def test_expert_scores_are_normalised_from_the_scale_minimum(pairs_file, score, low, high, normalised):
    row = {"id": "a", "reference": "Normal.", "candidate": "Normal.", "expert_score": score, "expert_score_max": high}
    if low is not None:
        row["expert_score_min"] = low
    (pair,) = load_pairs(str(pairs_file([row]))).pairs
    assert pair.expert.normalized_score == pytest.approx(normalised, abs=1e-12)


@pytest.mark.parametrize(
    ("scale", "field", "shown"),
    [
        ({"expert_score_min": 5, "expert_score_max": 1}, "expert_score_max", "[5.0, 1.0]"),
        ({"expert_score_min": 5, "expert_score_max": 5}, "expert_score_max", "[5.0, 5.0]"),
        ({"expert_score_min": 2}, "expert_score_min", "[2.0, 1.0]"),
    ],
)
def test_an_empty_scale_names_the_users_column(pairs_file, scale, field, shown):
    path = pairs_file([_with_counts({"id": "a", "reference": "Normal.", **scale})])
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert str(caught.value) == (
        f"{path}, row 1, field '{field}': the scale {shown} is empty: expert_score_max must exceed expert_score_min"
    )


def test_jsonl_rows_are_numbered_by_data_row_with_blank_lines_left_out(tmp_path):
    path = tmp_path / "pairs.jsonl"
    lines = ['{"id": "a", "reference": "x"}', "", "   ", '{"id": "b", "reference": "y"}', "", '{"id": "c"}', ""]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.row, caught.value.field) == (3, "reference")
    loaded = load_pairs(str(path), on_bad_rows="skip")
    assert (loaded.rows_read, [s.row for s in loaded.skipped]) == (3, [3])


def test_csv_rows_are_numbered_by_data_row_with_blank_lines_left_out(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("id,reference\n\na,x\n\n\nb,\nc,z\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.row, caught.value.field) == (2, "reference")


def test_validation_errors_name_the_users_column():
    from pydantic import ValidationError

    from radiology_tasks.core.records import ReportPair
    from radiology_tasks.core.rows import column_of

    cases = {
        "significant_a": {"expert": {"significant": {"a": -1}}},
        "insignificant_f": {"expert": {"insignificant": {"f": "many"}}},
        "expert_score": {"expert": {"score": "high"}},
        "expert_score_min": {"expert": {"scale_min": "low"}},
        "expert_score_max": {"expert": {"scale_max": "top"}},
        "qa": {"qa": [{"question": "Size?"}]},
        "modality": {"modality": 3},
    }
    for column, bad in cases.items():
        with pytest.raises(ValidationError) as caught:
            ReportPair(id="x", reference="Normal.", **bad)
        assert column_of(caught.value.errors()[0]["loc"])[0] == column
    assert column_of(("expert", "significant", "a")) == ("significant_a", "")
    assert column_of(("qa", 1, "answer")) == ("qa", "item 2, 'answer': ")
    assert column_of(("qa", 0)) == ("qa", "item 1: ")
    assert column_of(("qa",)) == ("qa", "")
    assert column_of(("images", 0)) == ("images", "")
    assert column_of(("expert",)) == ("expert_score", "")
    assert column_of(("expert", "other")) == ("expert_score", "")
    assert column_of(()) == (None, "")


@pytest.mark.parametrize(
    ("qa", "problem"),
    [
        ([{"question": "Size?"}], "item 1, 'answer': Field required"),
        (
            [{"question": "Size?", "answer": "6 mm"}, "Where?"],
            "item 2: Input should be a valid dictionary or instance of QAPair",
        ),
        ({"question": "Size?"}, "Input should be a valid list"),
    ],
)
def test_bad_qa_names_the_qa_column_and_the_item(pairs_file, qa, problem):
    path = pairs_file([dict(GOOD_ROWS[0], qa=qa)])
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.field, caught.value.problem.split(" [")[0]) == ("qa", problem)
    assert str(caught.value).startswith(f"{path}, row 1, field 'qa': {problem}")


@pytest.mark.parametrize("images", [5, [1, 2], {"front": "a.png"}])
def test_images_must_be_file_names(pairs_file, images):
    with pytest.raises(DataError) as caught:
        load_pairs(str(pairs_file([dict(GOOD_ROWS[0], images=images)])))
    assert (caught.value.field, caught.value.problem) == (
        "images",
        f"expected a list of file names (or names separated by ';'), got {images!r}",
    )


def test_image_names_resolve_against_the_data_file(pairs_file, tmp_path):
    rows = [
        dict(GOOD_ROWS[0], images=["a.png", "/abs/b.png", "https://x.org/c.png"]),
        dict(GOOD_ROWS[1], images=" d.png ;; e.png"),
    ]
    first, second = load_pairs(str(pairs_file(rows))).pairs
    assert first.images == [str(tmp_path / "a.png"), "/abs/b.png", "https://x.org/c.png"]
    assert second.images == [str(tmp_path / "d.png"), str(tmp_path / "e.png")]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"limit": "abc"}, "-T limit must be a whole number, got 'abc'"),
        ({"limit": 1.5}, "-T limit must be a whole number, got 1.5"),
        ({"limit": True}, "-T limit must be a whole number, got True"),
        ({"limit": 0}, "-T limit must be at least 1, got 0"),
        ({"seed": "x"}, "-T seed must be a whole number, got 'x'"),
        ({"on_bad_rows": "ignore"}, "-T on_bad_rows must be one of error, skip; got 'ignore'"),
        ({"data": ["a", "b.jsonl"]}, "-T data must be one value, got the list ['a', 'b.jsonl']"),
        ({"candidates": 2.5}, "-T candidates must be text, got 2.5"),
        ({"reports": False}, "-T reports must be text, got False"),
        ({"revision": 1.1}, "-T revision must be text, got 1.1"),
    ],
)
def test_bad_data_parameters_are_one_line_errors(options, message):
    from radiology_tasks.core.errors import InputError

    with pytest.raises(InputError) as caught:
        DataOptions(**options)
    assert str(caught.value).startswith(message)
    assert "\n" not in str(caught.value)


def test_data_parameters_as_yaml_reads_them(pairs_file):
    rows = [dict(GOOD_ROWS[0], id=f"r{i}") for i in range(10)]
    options = DataOptions(str(pairs_file(rows)), limit="3", seed=" 7 ", revision=None)
    assert (options.limit, options.seed) == (3, 7)
    assert DataOptions(revision=4370268).revision == "4370268"
    dataset, _, _ = report_dataset(options, require_candidate=True)
    assert len(dataset) == 3


def test_summary_lists_each_skipped_row_with_its_reason(pairs_file, caplog):
    rows = [GOOD_ROWS[0], {"id": "bad", "reference": ""}, dict(GOOD_ROWS[0])]
    path = pairs_file(rows)
    with caplog.at_level("WARNING", logger="radiology_tasks.core.loading"):
        loaded = load_pairs(str(path), on_bad_rows="skip")
    assert loaded.summary() == {
        "source": str(path),
        "layout": "flat",
        "layout_recognised_by": "default",
        "track": None,
        "expert_scale": None,
        "rows_left_out": 0,
        "left_out": [],
        "annotations_unreadable": 0,
        "unreadable_annotations": [],
        "rows_read": 3,
        "rows_used": 1,
        "rows_skipped": 2,
        "skipped": [
            {"source": str(path), "row": 2, "field": "reference", "reason": "missing or empty reference report"},
            {"source": str(path), "row": 3, "field": "id", "reason": "duplicate id 'r1' (first seen in row 1)"},
        ],
    }
    assert caplog.messages == [
        f"skipping bad row: {path}, row 2, field 'reference': missing or empty reference report",
        f"skipping bad row: {path}, row 3, field 'id': duplicate id 'r1' (first seen in row 1)",
    ]


@pytest.mark.parametrize(
    ("candidates", "row", "field", "problem"),
    [
        ('{"candidate": "a"}\n', 1, "id", "missing or empty"),
        ('{"id": " ", "candidate": "a"}\n', 1, "id", "missing or empty"),
        ('{"id": "r1"}\n', 1, "candidate", "missing or empty candidate report"),
        ('{"id": "r1", "candidate": "  "}\n', 1, "candidate", "missing or empty candidate report"),
        ('{"id": "r1", "candidate": 5}\n', 1, "candidate", "missing or empty candidate report"),
        (
            '{"id": "r1", "candidate": "a"}\n{"id": " r1 ", "candidate": "b"}\n',
            2,
            "id",
            "duplicate id 'r1' (first seen in row 1)",
        ),
    ],
)
def test_bad_candidate_rows_name_file_row_and_field(pairs_file, tmp_path, candidates, row, field, problem):
    data = pairs_file([{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS])
    cands = tmp_path / "cands.jsonl"
    cands.write_text(candidates, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(data), candidates=str(cands))
    assert (caught.value.source, caught.value.row, caught.value.field, caught.value.problem) == (
        str(cands),
        row,
        field,
        problem,
    )


def test_candidates_join_by_stripped_id_and_skip_keeps_the_rest(pairs_file, tmp_path):
    data = pairs_file([{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS])
    cands = tmp_path / "cands.jsonl"
    cands.write_text('{"id": " r2 ", "candidate": "Two."}\n{"id": "r9", "candidate": "Nine."}\n', encoding="utf-8")
    loaded = load_pairs(str(data), candidates=str(cands), on_bad_rows="skip", require_candidate=True)
    assert [(p.id, p.candidate) for p in loaded.pairs] == [("r2", "Two.")]
    assert [(s.row, s.field) for s in loaded.skipped] == [(2, "id"), (None, "id")]
    assert loaded.skipped[1].reason == "no candidate for report id 'r1'"
    assert loaded.rows_read == 2


def test_a_candidates_file_replaces_the_datas_own_candidates(pairs_file, tmp_path):
    cands = tmp_path / "cands.csv"
    cands.write_text("id,candidate\nr1,New one.\nr2,New two.\n", encoding="utf-8")
    loaded = load_pairs(str(pairs_file(GOOD_ROWS)), candidates=str(cands))
    assert [p.candidate for p in loaded.pairs] == ["New one.", "New two."]
    # The rest of each pair is kept, but for the experts' annotation: it rated the data's own candidate (0.8 here),
    # and no agreement statistic may hold it against a report the experts never saw.
    assert (loaded.pairs[0].reference, loaded.pairs[0].modality) == (GOOD_ROWS[0]["reference"], "XR")
    assert load_pairs(str(pairs_file(GOOD_ROWS))).pairs[0].expert.normalized_score == pytest.approx(0.8)
    assert loaded.pairs[0].expert is None


def test_reports_apply_only_to_question_datasets(pairs_file):
    path = pairs_file(GOOD_ROWS)
    with pytest.raises(ValueError) as caught:
        load_pairs(str(path), reports="reports.jsonl")
    assert str(caught.value) == (
        f"-T reports=... applies only to question datasets such as ct-finebench, not to {path} (flat layout)"
    )
    with pytest.raises(ValueError, match=r"ct-finebench, not to demo \(flat layout\)$"):
        load_pairs("demo", reports="reports.jsonl")


def test_a_layout_applies_to_files_and_folders_only():
    with pytest.raises(ValueError, match=r"^-T layout applies to your own files and folders, not to the bundled"):
        load_pairs("demo", layout="rexval")
    with pytest.raises(ValueError, match=r"^-T data=radeval-expert is read with its own layout; -T layout=flat does"):
        load_pairs("radeval-expert", layout="flat")


def test_a_file_without_usable_rows(pairs_file):
    path = pairs_file([{"id": "a", "reference": ""}])
    with pytest.raises(DataError) as caught:
        load_pairs(str(path), on_bad_rows="skip")
    assert (caught.value.source, caught.value.row, caught.value.field) == (str(path), None, None)
    assert str(caught.value) == f"{path}: no usable rows"


def test_a_home_relative_path_is_expanded(pairs_file, monkeypatch, tmp_path):
    path = pairs_file(GOOD_ROWS)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert [p.id for p in load_pairs(f"~/{path.name}").pairs] == ["r1", "r2"]


def test_samples_carry_the_pair(pairs_file):
    from radiology_tasks.core.records import ReportPair
    from radiology_tasks.core.report_input import generation_prompt
    from radiology_tasks.core.task_data import pair_to_sample

    path = str(pairs_file(GOOD_ROWS))
    dataset, summary, _ = report_dataset(DataOptions(path), require_candidate=True)
    assert dataset.name == path
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    fingerprint = {
        "layout": "flat",
        "origin": "local",
        "recognised_by": "default",
        "data_sha256": digest,
        "files": {Path(path).name: digest},
        "revision": None,
        "candidates_sha256": None,
        "reports_sha256": None,
    }
    assert summary == {**load_pairs(path).summary(), "samples": 2, "fingerprint": fingerprint}
    pair = load_pairs(path).pairs[0]
    sample = pair_to_sample(pair)
    # What is judged is what the viewer shows: the replayed candidate, labelled; the prompt only when there is none.
    assert (sample.id, sample.target, sample.input) == ("r1", pair.reference, f"{REPLAYED_INPUT}\n{pair.candidate}")
    without = pair.model_copy(update={"candidate": None})
    assert pair_to_sample(without).input == generation_prompt(without)
    assert ReportPair.model_validate(sample.metadata) == pair
    assert [s.metadata for s in dataset][0] == sample.metadata


def test_limit_takes_the_first_samples_after_the_seeded_shuffle(pairs_file):
    rows = [dict(GOOD_ROWS[0], id=f"r{i}") for i in range(10)]
    path = str(pairs_file(rows))
    everything, _, _ = report_dataset(DataOptions(path, seed=3), require_candidate=True)
    limited, summary, _ = report_dataset(DataOptions(path, seed=3, limit=4), require_candidate=True)
    assert sorted(s.id for s in everything) == sorted(r["id"] for r in rows)
    assert [s.id for s in limited] == [s.id for s in everything][:4]
    assert (summary["samples"], summary["rows_used"], limited.name) == (4, 10, path)
    unlimited, _, _ = report_dataset(DataOptions(path, limit=20), require_candidate=True)
    assert [s.id for s in unlimited] == [r["id"] for r in rows]


def test_generated_runs_need_no_candidate(pairs_file):
    rows = [{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS]
    dataset, _, _ = report_dataset(DataOptions(str(pairs_file(rows))), require_candidate=False)
    assert len(dataset) == 2
    with pytest.raises(DataError, match="no candidate report"):
        report_dataset(DataOptions(str(pairs_file(rows))), require_candidate=True)


def test_a_bad_candidate_row_is_skipped_and_the_rows_after_it_are_read(pairs_file, tmp_path):
    data = pairs_file([{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS])
    cands = tmp_path / "cands.jsonl"
    cands.write_text('{"id": "r1"}\n{"id": "r1", "candidate": "One."}\n{"id": "r2", "candidate": "Two."}\n')
    loaded = load_pairs(str(data), candidates=str(cands), on_bad_rows="skip")
    assert [(p.id, p.candidate) for p in loaded.pairs] == [("r1", "One."), ("r2", "Two.")]
    assert [(s.row, s.field) for s in loaded.skipped] == [(1, "candidate")]


def test_report_dataset_passes_every_data_parameter_on(pairs_file, tmp_path):
    rows = [{k: v for k, v in r.items() if k != "candidate"} for r in GOOD_ROWS] + [{"id": "bad", "reference": ""}]
    data = str(pairs_file(rows))
    cands = tmp_path / "cands.csv"
    cands.write_text("id,candidate\nr1,One.\nr2,Two.\n", encoding="utf-8")
    dataset, summary, _ = report_dataset(
        DataOptions(data, candidates=str(cands), on_bad_rows="skip"), require_candidate=True
    )
    assert [s.metadata["candidate"] for s in dataset] == ["One.", "Two."]
    assert summary["rows_skipped"] == 1
    with pytest.raises(ValueError, match="applies only to question datasets"):
        report_dataset(DataOptions(data, reports=str(cands)), require_candidate=False)
    with pytest.raises(ValueError, match="^-T revision applies to hub datasets, not to the bundled dataset demo$"):
        report_dataset(DataOptions("demo", revision="v1"), require_candidate=False)


@pytest.mark.parametrize("name", ["pairs.JSONL", "pairs.ndjson", "pairs.CSV"])
def test_file_types_by_suffix_in_any_case(pairs_file, name):
    written = pairs_file(GOOD_ROWS, "pairs.csv" if name.lower().endswith(".csv") else "pairs.jsonl")
    path = written.rename(written.with_name(name))
    assert [p.id for p in load_pairs(str(path)).pairs] == ["r1", "r2"]


def test_a_byte_order_mark_is_not_part_of_the_first_column(tmp_path):
    csv_path = tmp_path / "excel.csv"
    csv_path.write_text("\ufeffid,reference,candidate\nr1,Normal.,Normal.\n", encoding="utf-8")
    jsonl_path = tmp_path / "bom.jsonl"
    jsonl_path.write_text('\ufeff{"id": "r1", "reference": "Normal."}\n', encoding="utf-8")
    assert [p.id for p in load_pairs(str(csv_path)).pairs] == ["r1"]
    assert [p.id for p in load_pairs(str(jsonl_path)).pairs] == ["r1"]


def test_csv_rows_with_more_values_than_columns(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_text("id,reference\nr1,Normal.,,\nr2,Clear lungs,no effusion\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert str(caught.value) == f"{path}, row 2: 1 more values than the header has columns"
    # Missing trailing values are missing, like empty cells.
    path.write_text("id,reference,candidate\nr1,Normal.\n", encoding="utf-8")
    assert load_pairs(str(path)).pairs[0].candidate is None


@pytest.mark.parametrize(
    ("text", "row", "problem"),
    [
        ('{"id": "a", "reference": "x"}\n[1, 2]\n', 2, "a JSONL row must be a JSON object"),
        ('"just text"\n', 1, "a JSONL row must be a JSON object"),
        (
            '{"id": "a", "reference": "x"}\n{"id": "b",\n',
            2,
            "not valid JSON (Expecting property name enclosed in double quotes)",
        ),
    ],
)
def test_jsonl_rows_must_be_json_objects(tmp_path, text, row, problem):
    path = tmp_path / "pairs.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.row, caught.value.field, caught.value.problem) == (row, None, problem)
    assert str(caught.value) == f"{path}, row {row}: {problem}"


def test_unsupported_file_type_in_full(tmp_path):
    path = tmp_path / "pairs.tsv"
    path.write_text("id\treference\n", encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert str(caught.value) == f"{path}: unsupported file type; use one of .csv, .jsonl, .ndjson, .json"


@pytest.mark.parametrize(
    ("row", "field", "problem"),
    [
        ({"id": True}, "id", "expected text, got bool"),
        ({"id": ["a"]}, "id", "expected text, got list"),
        ({"modality": 3}, "modality", "expected text, got int"),
        ({"reference": 5}, "reference", "expected text, got int"),
        ({"expert_score": True}, "expert_score", "expected a number, got True"),
        ({"expert_score": [1]}, "expert_score", "expected a number, got [1]"),
        ({"expert_score": "inf"}, "expert_score", "expected a finite number, got 'inf'"),
        ({"expert_score": 0.5, "expert_score_max": "-inf"}, "expert_score_max", "expected a finite number, got '-inf'"),
        ({"qa": "not json"}, "qa", "expected a JSON list of question/answer objects"),
        ({"candidate": 5}, "candidate", "expected text, got int"),
        ({"anatomy": 1}, "anatomy", "expected text, got int"),
        ({"language": ["en"]}, "language", "expected text, got list"),
        ({"indication": {"text": "cough"}}, "indication", "expected text, got dict"),
        ({"expert_score": 0.5, "expert_score_min": "low"}, "expert_score_min", "expected a number, got 'low'"),
        ({"expert_score": 0.5, "expert_score_max": "top"}, "expert_score_max", "expected a number, got 'top'"),
        ({"images": 5}, "images", "expected a list of file names (or names separated by ';'), got 5"),
        (_with_counts({}, b="x"), "significant_b", "expected a number, got 'x'"),
        (_with_counts({}, b=-1), "significant_b", "expected a non-negative whole number, got -1"),
        (_with_counts({}, c="inf"), "significant_c", "expected a finite number, got 'inf'"),
        (
            {"expert_score": 1.5},
            "expert_score",
            "1.5 lies outside the scale [0.0, 1.0] (set expert_score_min / expert_score_max)",
        ),
    ],
)
def test_each_bad_value_names_its_column(pairs_file, row, field, problem):
    path = pairs_file([GOOD_ROWS[1], dict(GOOD_ROWS[0], expert_score=None, expert_score_max=None) | row])
    with pytest.raises(DataError) as caught:
        load_pairs(str(path))
    assert (caught.value.row, caught.value.field, caught.value.problem) == (2, field, problem)
    assert str(caught.value) == f"{path}, row 2, field '{field}': {problem}"


def test_values_that_read_as_given(pairs_file):
    rows = [
        {"id": 7, "reference": "Normal.", "candidate": "Normal.", "expert_score": "nan", "language": "", "note": None},
        {"id": 8.5, "reference": "Normal.", "language": "de", "qa": '[{"question": "Size?", "answer": "6 mm"}]'},
    ]
    first, second = load_pairs(str(pairs_file(rows))).pairs
    # A NaN score is a missing score; an empty language is English; None cells are no metadata.
    assert (first.id, first.expert, first.language, first.metadata) == ("7", None, "en", {})
    assert (second.id, second.language, [q.answer for q in second.qa]) == ("8.5", "de", ["6 mm"])


def test_study_information_is_read(pairs_file):
    row = dict(GOOD_ROWS[0], anatomy="chest", language="fr", indication="Cough for two weeks.")
    (pair,) = load_pairs(str(pairs_file([row]))).pairs
    assert (pair.modality, pair.anatomy, pair.language, pair.indication) == (
        "XR",
        "chest",
        "fr",
        "Cough for two weeks.",
    )


def test_csv_cells_keep_their_line_breaks_as_written(tmp_path):
    path = tmp_path / "pairs.csv"
    path.write_bytes(b'id,reference\r\nr1,"Line one.\r\nLine two."\r\n')
    assert load_pairs(str(path)).pairs[0].reference == "Line one.\r\nLine two."


def test_sample_metadata_is_plain_json(pairs_file):
    import datetime
    import json

    from radiology_tasks.core.task_data import pair_to_sample

    pair = load_pairs(str(pairs_file(GOOD_ROWS))).pairs[0]
    # Hub rows can carry values JSON has no type for, such as dates; Inspect logs need plain JSON.
    dated = pair.model_copy(update={"metadata": {"read_on": datetime.date(2024, 5, 1)}})
    metadata = pair_to_sample(dated).metadata
    assert metadata["metadata"] == {"read_on": "2024-05-01"}
    assert json.loads(json.dumps(metadata)) == metadata


def test_the_fingerprint_pins_data_candidates_and_hub_revision(pairs_file, tmp_path):
    from radiology_tasks.core.catalog import bundled_path
    from radiology_tasks.core.task_data import data_fingerprint

    def sha(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    candidates = tmp_path / "system_b.jsonl"
    candidates.write_text('{"id": "r1", "candidate": "No acute findings."}\n')
    demo = data_fingerprint(DataOptions(candidates=str(candidates)))
    demo_sha = sha(bundled_path("demo_reports.jsonl"))
    assert demo == {
        "layout": "flat",
        "origin": "bundled",
        "recognised_by": "name",
        "data_sha256": demo_sha,
        "files": {"demo_reports.jsonl": demo_sha},
        "revision": None,
        "candidates_sha256": sha(candidates),
        "reports_sha256": None,
    }
    edited = pairs_file(GOOD_ROWS)
    before = data_fingerprint(DataOptions(str(edited)))["data_sha256"]
    edited.write_text(edited.read_text() + "\n")
    assert data_fingerprint(DataOptions(str(edited)))["data_sha256"] not in (None, before)


def test_report_dataset_hands_back_the_pairs_in_sample_order(pairs_file):
    """A task reads the pairs behind its samples from here: shuffled and limited like the samples, and equal to
    what each sample carries, so no task turns samples back into pairs."""
    rows = [{"id": f"r{i}", "reference": f"Reference {i}.", "candidate": f"Candidate {i}."} for i in range(12)]
    path = str(pairs_file(rows))
    dataset, _, pairs = report_dataset(DataOptions(path, seed=5, limit=7), require_candidate=True)
    assert [pair.id for pair in pairs] == [str(sample.id) for sample in dataset]
    assert [pair.id for pair in pairs] != [f"r{i}" for i in range(7)]  # the seed did reorder them
    assert [pair.model_dump(mode="json") for pair in pairs] == [sample.metadata for sample in dataset]
