"""The radeval-expert layout (the RadEval expert set), read from small files written in the dataset's real layout.

The file has the columns `annotator,type,ground_truth,images_path,prediction1,prediction2,prediction3,
annotation1,annotation2,annotation3`; each annotation cell has a `Significant` and an `Insignificant` section
(with or without a colon) of seven lines `N. <label>: <count>`. The hub path reads the same file through the
same layout (tests/core/test_hub_fetch.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.layouts import Row, resolve_local
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ErrorCounts, ReportPair
from radiology_tasks.core.rows import pair_from_row
from radiology_tasks.core.tables import DataError
from radiology_tasks.core.task_data import DataOptions
from tests.real_layouts import RADEVAL_FILE as FILE_NAME
from tests.real_layouts import RADEVAL_HEADER, write_csv
from tests.real_layouts import RADEVAL_LABELS as LABELS

BARE = ("Significant", "Insignificant")


def annotation(
    significant: list[int | str],
    insignificant: list[int | str],
    headers: tuple[str, str] = ("Significant:", "Insignificant:"),
    line: str = "{n}. {label}: {count}",
) -> str:
    lines = []
    for header, counts in zip(headers, (significant, insignificant)):
        lines.append(header)
        lines += [line.format(n=n, label=label, count=count) for n, (label, count) in enumerate(zip(LABELS, counts), 1)]
    return "\n".join(lines)


GOOD = annotation([0] * 7, [0] * 7)
GOOD_BARE = annotation([0] * 7, [0] * 7, BARE)


def radeval_record(annotations: list[str], index: int = 1) -> list[Any]:
    return [
        f"reader_{index}",
        "findings",
        f"Reference report {index}.",
        f"/images/p{index}/s{index}/view.jpg",
        f"Candidate {index}.1.",
        f"Candidate {index}.2.",
        f"Candidate {index}.3.",
        *annotations,
    ]


def radeval_folder(tmp_path: Path, records: list[list[Any]], header: list[str] = RADEVAL_HEADER) -> Path:
    folder = tmp_path / "RadEvalExpertDataset"
    write_csv(folder / FILE_NAME, header, records)
    return folder


def rows_of(path: Path) -> list[Row]:
    return list(resolve_local(path).rows(DataOptions()))


def to_pairs(rows: list[Row], source: str = "radeval-expert") -> list[ReportPair]:
    return [pair_from_row(row, source=source, row_number=number) for number, row in rows]


def test_rows_become_three_candidates_per_study_with_counts(tmp_path: Path) -> None:
    decorated = annotation(
        [0, 1, 0, 0, 0, 0, 1], [2, 0, 0, 1, 0, 0, 0], ("**Significant:**", "Clinically insignificant errors:")
    )
    decorated = decorated.replace(": 2", ": 2.") + "\nComment: reader hesitated on the effusion."
    records = [
        radeval_record([annotation([1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0]), GOOD, decorated], 1),
        radeval_record([annotation([0, 0, 0, 2, 0, 1, 0], [0, 0, 0, 0, 1, 0, 3]), GOOD, GOOD], 2),
    ]
    folder = radeval_folder(tmp_path, records)
    rows = rows_of(folder)
    loaded = load_pairs(str(folder))
    pairs = loaded.pairs

    assert to_pairs(rows) == pairs
    assert [number for number, _ in rows] == [1, 1, 1, 2, 2, 2]
    assert [p.id for p in pairs] == ["001-c1", "001-c2", "001-c3", "002-c1", "002-c2", "002-c3"]
    assert [p.candidate for p in pairs] == [f"Candidate {i}.{s}." for i in (1, 2) for s in (1, 2, 3)]
    assert [p.reference for p in pairs] == ["Reference report 1."] * 3 + ["Reference report 2."] * 3
    assert [p.expert.significant for p in pairs] == [
        ErrorCounts(a=1),
        ErrorCounts(),
        ErrorCounts(b=1),
        ErrorCounts(d=2, f=1),
        ErrorCounts(),
        ErrorCounts(),
    ]
    assert [p.expert.insignificant for p in pairs] == [
        ErrorCounts(c=1),
        ErrorCounts(),
        ErrorCounts(a=2, d=1),
        ErrorCounts(e=1),
        ErrorCounts(),
        ErrorCounts(),
    ]
    assert all(p.expert.score is None for p in pairs)
    third = pairs[2].metadata
    assert {k: third[k] for k in ("annotator", "type", "images_path", "candidate_slot")} == {
        "annotator": "reader_1",
        "type": "findings",
        "images_path": "/images/p1/s1/view.jpg",
        "candidate_slot": 3,
    }
    assert (third["significant_inarticulate"], third["insignificant_inarticulate"]) == (1, 0)
    assert third["expert_annotation"] == decorated
    assert pairs[3].metadata["insignificant_inarticulate"] == 3
    summary = loaded.summary()
    assert (summary["layout"], summary["layout_recognised_by"], summary["expert_scale"]) == (
        "radeval-expert",
        "file names",
        None,
    )
    assert (summary["rows_read"], summary["rows_used"], summary["annotations_unreadable"]) == (6, 6, 0)


def test_the_file_in_its_real_layout(tmp_path: Path) -> None:
    # Most real cells head their sections without a colon; `type` is finding, findings or impression.
    cells = [
        [
            annotation([1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 2], BARE),
            annotation([0, 2, 0, 0, 0, 0, 0], [0] * 7, BARE),
            annotation([0] * 7, [0, 0, 0, 0, 0, 1, 0], BARE),
        ],
        [
            annotation([0, 0, 3, 0, 0, 0, 0], [0] * 7),
            annotation([0, 0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0], BARE, "{n}. {label} = {count}"),
            annotation([0, 0, 0, 0, 1, 0, 0], [0, 1, 0, 0, 0, 0, 0], BARE, "{n}) {count}"),
        ],
        [
            annotation([0, 0, 0, 0, 0, 1, 0], [0] * 7, ("Significant errors", "Insignificant errors")),
            "\n" + annotation([0] * 7, [0, 0, 1, 0, 0, 0, 0], BARE).replace("\n", "\r\n\r\n") + "\n",
            annotation([2, 0, 0, 0, 0, 0, 0], [0, 0, 0, 4, 0, 0, 0], ("**Significant**", "**Insignificant**"))
            + "\nComments:\n1. Reader unsure about the effusion\n2) lateral view limited",
        ],
    ]
    records = [radeval_record(row, i) for i, row in enumerate(cells, start=1)]
    for record, section in zip(records, ("finding", "findings", "impression")):
        record[1] = section
    pairs = load_pairs(str(radeval_folder(tmp_path, records))).pairs

    assert [p.metadata["type"] for p in pairs] == ["finding"] * 3 + ["findings"] * 3 + ["impression"] * 3
    assert [p.expert.significant for p in pairs] == [
        ErrorCounts(a=1),
        ErrorCounts(b=2),
        ErrorCounts(),
        ErrorCounts(c=3),
        ErrorCounts(d=1),
        ErrorCounts(e=1),
        ErrorCounts(f=1),
        ErrorCounts(),
        ErrorCounts(a=2),
    ]
    assert [p.expert.insignificant for p in pairs] == [
        ErrorCounts(),
        ErrorCounts(),
        ErrorCounts(f=1),
        ErrorCounts(),
        ErrorCounts(a=1),
        ErrorCounts(b=1),
        ErrorCounts(),
        ErrorCounts(c=1),
        ErrorCounts(d=4),
    ]
    assert pairs[0].metadata["insignificant_inarticulate"] == 2
    assert not any("expert_problem" in p.metadata for p in pairs)


def test_the_seventh_line_is_its_own_count_not_one_of_a_to_f(tmp_path: Path) -> None:
    cell = annotation([0, 0, 0, 0, 0, 0, 3], [0, 0, 0, 0, 0, 0, 1], BARE)
    (first, _, _) = load_pairs(str(radeval_folder(tmp_path, [radeval_record([cell, GOOD_BARE, GOOD])]))).pairs
    assert (first.expert.significant, first.expert.insignificant) == (ErrorCounts(), ErrorCounts())
    assert first.expert.significant.total == 0 and first.expert.insignificant.total == 0
    assert (first.metadata["significant_inarticulate"], first.metadata["insignificant_inarticulate"]) == (3, 1)


def test_both_broken_cells_of_the_real_file_leave_only_the_expert_annotation_missing(tmp_path: Path) -> None:
    # Seen in the real file: a category line whose count is missing, and one whose count is not a number.
    count_missing = GOOD_BARE.replace("2. Omission of finding: 0", "2. Omission of finding:", 1)
    not_a_number = annotation([0] * 7, [0, "n/a", 0, 0, 0, 0, 0])
    records = [
        radeval_record([GOOD_BARE, count_missing, annotation([1, 0, 0, 0, 0, 0, 0], [0] * 7, BARE)], 1),
        radeval_record([GOOD, GOOD_BARE, not_a_number], 2),
    ]
    folder = radeval_folder(tmp_path, records)
    loaded = load_pairs(str(folder))
    pairs = {p.id: p for p in loaded.pairs}

    # Every candidate is still judged, the two with a broken cell without an expert annotation.
    assert list(pairs) == ["001-c1", "001-c2", "001-c3", "002-c1", "002-c2", "002-c3"]
    assert (loaded.rows_read, loaded.skipped) == (6, [])
    assert (pairs["001-c2"].candidate, pairs["002-c3"].candidate) == ("Candidate 1.2.", "Candidate 2.3.")
    assert pairs["001-c2"].expert is None and pairs["002-c3"].expert is None
    assert pairs["001-c2"].metadata["expert_problem"] == {
        "row": 1,
        "annotation": "annotation2",
        "category": "2. Omission of finding",
        "problem": "the 'significant' count is missing",
    }
    assert pairs["002-c3"].metadata["expert_problem"] == {
        "row": 2,
        "annotation": "annotation3",
        "category": "2. Omission of finding",
        "problem": "the 'insignificant' count 'n/a' is not a whole number",
    }
    # The cell is kept as written, and no count of it leaks into the metadata as if read.
    assert pairs["001-c2"].metadata["expert_annotation"] == count_missing
    assert "significant_inarticulate" not in pairs["001-c2"].metadata
    # The other candidates of the same rows keep their counts.
    assert pairs["001-c3"].expert.significant == ErrorCounts(a=1)
    assert pairs["002-c2"].expert.insignificant == ErrorCounts()

    summary = loaded.summary()
    assert summary["annotations_unreadable"] == 2
    assert summary["unreadable_annotations"] == [
        {"id": "001-c2", **pairs["001-c2"].metadata["expert_problem"]},
        {"id": "002-c3", **pairs["002-c3"].metadata["expert_problem"]},
    ]
    assert (summary["rows_used"], summary["rows_skipped"]) == (6, 0)
    # The bad-row policy is not involved: skipping reads the same pairs.
    assert load_pairs(str(folder), on_bad_rows="skip").pairs == loaded.pairs


@pytest.mark.parametrize(
    ("cell", "category", "problem"),
    [
        ("", None, "the annotation is blank"),
        ("   ", None, "the annotation is blank"),
        (
            annotation([0] * 7, [0, 0, "none", 0, 0, 0, 0]),
            "3. Incorrect location/position of finding",
            "the 'insignificant' count 'none' is not a whole number",
        ),
        (
            GOOD.replace("2. Omission of finding", "2. Incorrect severity of finding", 1),
            "2. Incorrect severity of finding",
            "the label does not fit category 2",
        ),
        (GOOD.rsplit("\n6. ", 1)[0] + "\n7. Inarticulate report: 0", "6", "no 'insignificant' count"),
        (GOOD.replace("Insignificant:", "Significant:"), None, "the 'significant' section appears twice"),
        (
            annotation([0, 0, 0, 0, 0, 0, "-1"], [0] * 7),
            "7. Inarticulate report (grammar/readability issues)",
            "the 'significant' count '-1' is not a whole number",
        ),
        (
            annotation([0, 0, 0, "", 0, 0, 0], [0] * 7),
            "4. Incorrect severity of finding",
            "the 'significant' count is missing",
        ),
        (
            annotation([0] * 7, [0, 0, 0, "2X", 0, 0, 0]),
            "4. Incorrect severity of finding",
            "the 'insignificant' count '2X' is not a whole number",
        ),
        (
            annotation([0, "1.5", 0, 0, 0, 0, 0], [0] * 7, BARE),
            "2. Omission of finding",
            "the 'significant' count '1.5' is not a whole number",
        ),
        (
            '{"significant": 0, "insignificant": 0}',
            None,
            "no 'Significant' or 'Insignificant' header (first line '{\"significant\": 0, \"insignificant\": 0}')",
        ),
        (
            "\n  Reader: no errors seen.\n",
            None,
            "no 'Significant' or 'Insignificant' header (first line 'Reader: no errors seen.')",
        ),
        (
            GOOD.replace("Significant:\n", ""),
            "1. False prediction of finding",
            "the line comes before any severity header",
        ),
        (
            annotation([0] * 7, [0] * 7, line="{n}. {label}: {count} errors"),
            "1. False prediction of finding",
            "the 'significant' count '0 errors' is not a whole number",
        ),
        (
            GOOD.replace("1. False prediction of finding: 0", "8. Other: 0", 1),
            "8. Other",
            "there is no such category",
        ),
        ("8. Other: 0\n" + GOOD, "8. Other", "there is no such category"),
        ("Insignificant\n8. Other: 0\n" + GOOD, "8. Other", "there is no such category"),
        (
            GOOD.replace("3. Incorrect location", "2. Omission of finding: 0\n3. Incorrect location", 1),
            "2. Omission of finding",
            "given twice under 'significant'",
        ),
    ],
)
def test_an_unreadable_annotation_keeps_the_candidate_and_says_why(
    tmp_path: Path, cell: str, category: str | None, problem: str
) -> None:
    folder = radeval_folder(tmp_path, [radeval_record([GOOD, cell, GOOD])])
    first, second, third = load_pairs(str(folder)).pairs
    assert [p.id for p in (first, second, third)] == ["001-c1", "001-c2", "001-c3"]
    assert first.expert is not None and third.expert is not None
    assert (second.candidate, second.expert) == ("Candidate 1.2.", None)
    assert second.metadata["expert_problem"] == {
        "row": 1,
        "annotation": "annotation2",
        "category": category,
        "problem": problem,
    }
    assert not any(key.startswith(("significant_", "insignificant_")) for key in second.metadata)


def test_an_empty_prediction_is_rejected_not_read_as_reference_only(tmp_path: Path) -> None:
    record = radeval_record([GOOD, GOOD, GOOD])
    record[5] = ""
    folder = radeval_folder(tmp_path, [record])
    rows = rows_of(folder)
    assert rows[1][1]["candidate"] == ""
    with pytest.raises(DataError) as error:
        to_pairs(rows[1:2])
    assert (error.value.row, error.value.field) == (1, "candidate")
    with pytest.raises(DataError) as error:
        load_pairs(str(folder))
    assert str(error.value) == f"{folder}, row 1, field 'candidate': empty candidate report"
    skipped = load_pairs(str(folder), on_bad_rows="skip")
    assert [p.id for p in skipped.pairs] == ["001-c1", "001-c3"]
    assert [(s.row, s.field) for s in skipped.skipped] == [(1, "candidate")]


@pytest.mark.parametrize("missing", ["annotation3", "prediction2"])
def test_a_missing_column_names_the_file_the_layout_and_the_column(tmp_path: Path, missing: str) -> None:
    index = RADEVAL_HEADER.index(missing)
    record = radeval_record([GOOD, GOOD, GOOD])
    folder = radeval_folder(
        tmp_path, [record[:index] + record[index + 1 :]], [c for c in RADEVAL_HEADER if c != missing]
    )
    expected = f"{folder / FILE_NAME} looks like the radeval-expert layout's table file but lacks the column {missing}"
    for data in (folder, folder / FILE_NAME):
        with pytest.raises(InputError) as error:
            load_pairs(str(data))
        assert str(error.value) == expected


def test_reports_do_not_apply(tmp_path: Path) -> None:
    folder = radeval_folder(tmp_path, [radeval_record([GOOD, GOOD, GOOD])])
    with pytest.raises(InputError) as error:
        load_pairs(str(folder), reports="reports.jsonl")
    assert str(error.value) == (
        "-T reports=... applies only to question datasets such as ct-finebench, "
        f"not to {folder} (radeval-expert layout)"
    )
