"""Hub loaders, run offline on small files written in each hub dataset's layout (see radiology_tasks/hub.py)."""

from __future__ import annotations

import csv
import functools
import json
import logging
import sys
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core import hub
from radiology_tasks.core.hub import (
    HubDependencyError,
    HubLayoutError,
    HubUnavailableError,
    QALayout,
    ct_finebench_rows,
    radeval_expert_rows,
    rate_eval_rows,
)
from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ErrorCounts, QAPair, ReportPair
from radiology_tasks.core.rows import DataError, pair_from_row

datasets = pytest.importorskip("datasets")


@pytest.fixture(autouse=True)
def _private_datasets_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the Arrow files `datasets` builds out of the user's cache."""
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path_factory.mktemp("hf-cache"))


def write_csv(path: Path, header: list[str], records: list[list[Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(header)
        writer.writerows(records)


def to_pairs(rows: Any, source: str = "hub") -> list[ReportPair]:
    return [pair_from_row(row, source=source, row_number=number) for number, row in rows]


# --- RaTE-Eval -------------------------------------------------------------------------------

RATE_HEADER = ["gt_report", "similar_report", "Score", "rater_note"]


def rate_eval_folder(tmp_path: Path, split: str = "test", records: list[list[Any]] | None = None) -> Path:
    records = records or [
        ["No acute cardiopulmonary process.", "No acute findings in the chest.", 4.5, "near match"],
        ["Small left pleural effusion.", "Large right pleural effusion.", 1.25, "side and size wrong"],
    ]
    write_csv(tmp_path / "Task2_paragraph_rate" / f"rate_{split}.csv", RATE_HEADER, records)
    return tmp_path


def test_rate_eval_rows_become_scored_pairs(tmp_path: Path) -> None:
    pairs = to_pairs(rate_eval_rows(repo_id=str(rate_eval_folder(tmp_path))))

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


def test_rate_eval_paragraph_test_file_in_its_real_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The real file: columns gt_report, similar_report, Score; 370 rows scored 0 to 4.5 in steps of 0.25,
    # written the way pandas writes floats (4.0 as "4.0", 0.25 as "0.25").
    scores = [0.25 * (i % 19) for i in range(370)]
    records = [[f"Reference {i}.", f"Candidate {i}.", score] for i, score in enumerate(scores)]
    write_csv(tmp_path / "Task2_paragraph_rate" / "rate_test.csv", ["gt_report", "similar_report", "Score"], records)
    monkeypatch.setattr(hub, "rate_eval_rows", functools.partial(rate_eval_rows, repo_id=str(tmp_path)))

    loaded = load_pairs("rate-eval")
    assert (loaded.rows_read, len(loaded.pairs), loaded.skipped) == (370, 370, [])
    assert [p.id for p in loaded.pairs[:2]] == ["test-1", "test-2"] and loaded.pairs[-1].id == "test-370"
    assert {p.expert.score for p in loaded.pairs} == {0.25 * k for k in range(19)}
    # On the 0-5 scale the normalised score is the raw score / 5: 4.5 -> 0.9, 0.25 -> 0.05.
    for pair, score in zip(loaded.pairs, scores):
        assert pair.expert.normalized_score == pytest.approx(score / 5, abs=1e-12)
        assert pair.metadata == {}


def test_rate_eval_reads_the_train_file_for_the_train_split(tmp_path: Path) -> None:
    rate_eval_folder(tmp_path, "train", [["Clear lungs.", "Lungs are clear.", 5, "same"]])
    pairs = to_pairs(rate_eval_rows(repo_id=str(tmp_path), split="train"))
    assert [(p.id, p.reference, p.expert.normalized_score) for p in pairs] == [("train-1", "Clear lungs.", 1.0)]


def test_rate_eval_empty_candidate_is_rejected_not_read_as_reference_only(tmp_path: Path) -> None:
    rows = list(rate_eval_rows(repo_id=str(rate_eval_folder(tmp_path, records=[["Clear lungs.", None, 3, "x"]]))))
    with pytest.raises(DataError) as error:
        to_pairs(rows)
    assert (error.value.row, error.value.field) == (1, "candidate")


def test_rate_eval_missing_column_names_dataset_revision_and_column(tmp_path: Path) -> None:
    write_csv(tmp_path / "Task2_paragraph_rate" / "rate_test.csv", ["gt_report", "similar_report"], [["a", "b"]])
    with pytest.raises(HubLayoutError) as error:
        list(rate_eval_rows(repo_id=str(tmp_path), revision="v-test"))
    message = str(error.value)
    assert f"{tmp_path} (revision v-test, split 'test') has no column 'Score'" in message
    assert "RATE_EVAL_COLUMNS" in message and "\n" not in message


def test_rate_eval_missing_data_file_is_a_layout_error(tmp_path: Path) -> None:
    rate_eval_folder(tmp_path, "test")
    with pytest.raises(HubLayoutError, match="has no data file matching 'Task2_paragraph_rate/rate_train.csv'"):
        list(rate_eval_rows(repo_id=str(tmp_path), split="train"))


def test_rate_eval_rejects_reports_and_unknown_splits() -> None:
    with pytest.raises(ValueError, match="applies only to ct-finebench"):
        rate_eval_rows(reports="reports.jsonl")
    with pytest.raises(ValueError, match="not 'validation'"):
        rate_eval_rows(split="validation")


def test_default_revision_is_pinned_for_the_hub_repository() -> None:
    assert hub._source(hub.RATE_EVAL_REPO, None, "test").revision == hub.PINNED_REVISIONS[hub.RATE_EVAL_REPO]
    assert hub._source(hub.RATE_EVAL_REPO, "main", "test").revision == "main"
    assert hub._source("/some/local/copy", None, "test").revision is None


# --- RadEval expert set ---------------------------------------------------------------------

RADEVAL_HEADER = [
    "annotator",
    "type",
    "ground_truth",
    "images_path",
    "prediction1",
    "prediction2",
    "prediction3",
    "annotation1",
    "annotation2",
    "annotation3",
]
LABELS = [
    "False prediction of finding",
    "Omission of finding",
    "Incorrect location/position of finding",
    "Incorrect severity of finding",
    "Mention of comparison that is not present in the reference",
    "Omission of a change from a previous study",
    "Inarticulate report (grammar and readability issues)",
]


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


GOOD = annotation([0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0])


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


def radeval_folder(tmp_path: Path, records: list[list[Any]]) -> Path:
    write_csv(tmp_path / "reader_study_final_with_annotationsv3.csv", RADEVAL_HEADER, records)
    return tmp_path


def test_radeval_rows_become_three_candidates_per_study_with_counts(tmp_path: Path) -> None:
    decorated = annotation(
        [0, 1, 0, 0, 0, 0, 1], [2, 0, 0, 1, 0, 0, 0], ("**Significant:**", "Clinically insignificant errors:")
    )
    decorated = decorated.replace(": 2", ": 2.") + "\nComment: reader hesitated on the effusion."
    records = [
        radeval_record([annotation([1, 0, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0, 0]), GOOD, decorated], 1),
        radeval_record([annotation([0, 0, 0, 2, 0, 1, 0], [0, 0, 0, 0, 1, 0, 3]), GOOD, GOOD], 2),
    ]
    rows = list(radeval_expert_rows(repo_id=str(radeval_folder(tmp_path, records))))
    pairs = to_pairs(rows)

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


def test_radeval_file_in_its_real_layout(tmp_path: Path) -> None:
    # Most real cells head their sections without a colon; `type` is finding, findings or impression.
    bare = ("Significant", "Insignificant")
    cells = [
        [
            annotation([1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 2], bare),
            annotation([0, 2, 0, 0, 0, 0, 0], [0] * 7, bare),
            annotation([0] * 7, [0, 0, 0, 0, 0, 1, 0], bare),
        ],
        [
            annotation([0, 0, 3, 0, 0, 0, 0], [0] * 7),
            annotation([0, 0, 0, 1, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0], bare, "{n}. {label} = {count}"),
            annotation([0, 0, 0, 0, 1, 0, 0], [0, 1, 0, 0, 0, 0, 0], bare, "{n}) {count}"),
        ],
        [
            annotation([0, 0, 0, 0, 0, 1, 0], [0] * 7, ("Significant errors", "Insignificant errors")),
            "\n" + annotation([0] * 7, [0, 0, 1, 0, 0, 0, 0], bare).replace("\n", "\r\n\r\n") + "\n",
            annotation([2, 0, 0, 0, 0, 0, 0], [0, 0, 0, 4, 0, 0, 0], ("**Significant**", "**Insignificant**"))
            + "\nComments:\n1. Reader unsure about the effusion\n2) lateral view limited",
        ],
    ]
    records = [radeval_record(row, i) for i, row in enumerate(cells, start=1)]
    for record, section in zip(records, ("finding", "findings", "impression")):
        record[1] = section
    pairs = to_pairs(radeval_expert_rows(repo_id=str(radeval_folder(tmp_path, records))))

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


@pytest.mark.parametrize(
    ("cell", "field", "reason"),
    [
        ("", "significant_a", "the annotation is blank"),
        (
            annotation([0] * 7, [0, 0, "none", 0, 0, 0, 0]),
            "insignificant_c",
            "the count of category 3 'none' is not a whole number",
        ),
        (
            GOOD.replace("2. Omission of finding", "2. Incorrect severity of finding", 1),
            "significant_b",
            "the label of category 2 ('Incorrect severity of finding') does not match",
        ),
        (
            GOOD.rsplit("\n6. ", 1)[0] + "\n7. Inarticulate report: 0",
            "insignificant_f",
            "no 'insignificant' count for category 6",
        ),
        (GOOD.replace("Insignificant:", "Significant:"), "significant_a", "the 'significant' section appears twice"),
        (
            annotation([0, 0, 0, 0, 0, 0, "-1"], [0] * 7),
            "significant_a",
            "the count of category 7 '-1' is not a whole number",
        ),
        (
            annotation([0, 0, 0, "", 0, 0, 0], [0] * 7),
            "significant_d",
            "the count of category 4 is missing",
        ),
        (
            annotation([0] * 7, [0, 0, 0, "2X", 0, 0, 0]),
            "insignificant_d",
            "the count of category 4 '2X' is not a whole number",
        ),
        (
            '{"significant": 0, "insignificant": 0}',
            "significant_a",
            "no 'Significant' or 'Insignificant' header (first line '{\"significant\": 0, \"insignificant\": 0}')",
        ),
        (
            "\n  Reader: no errors seen.\n",
            "significant_a",
            "no 'Significant' or 'Insignificant' header (first line 'Reader: no errors seen.')",
        ),
        (
            GOOD.replace("Significant:\n", ""),
            "significant_a",
            "category 1 comes before any severity header",
        ),
        (
            annotation([0] * 7, [0] * 7, line="{n}. {label}: {count} errors"),
            "significant_a",
            "the count of category 1 '0 errors' is not a whole number",
        ),
        (
            GOOD.replace("1. False prediction of finding: 0", "8. Other: 0", 1),
            "significant_a",
            "there is no category 8",
        ),
        ("8. Other: 0\n" + GOOD, "significant_a", "there is no category 8"),
        ("Insignificant\n8. Other: 0\n" + GOOD, "insignificant_a", "there is no category 8"),
        (
            GOOD.replace("3. Incorrect location", "2. Omission of finding: 0\n3. Incorrect location", 1),
            "significant_b",
            "category 2 is given twice under 'significant'",
        ),
    ],
)
def test_radeval_unreadable_annotation_rejects_that_candidate(
    tmp_path: Path, cell: str, field: str, reason: str
) -> None:
    rows = list(radeval_expert_rows(repo_id=str(radeval_folder(tmp_path, [radeval_record([GOOD, cell, GOOD])]))))
    first, second, third = rows
    assert [p.id for p in to_pairs([first, third])] == ["001-c1", "001-c3"]
    with pytest.raises(DataError) as error:
        to_pairs([second], source="radeval-expert")
    assert (error.value.row, error.value.field) == (1, field)
    marker = f"unreadable annotation2: {reason}"
    assert str(error.value) == f"radeval-expert, row 1, field '{field}': expected a number, got {marker!r}"


def test_radeval_unreadable_annotation_follows_the_bad_row_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = radeval_folder(tmp_path, [radeval_record([GOOD, "", GOOD], 1), radeval_record([GOOD, GOOD, GOOD], 2)])
    monkeypatch.setattr(hub, "radeval_expert_rows", functools.partial(radeval_expert_rows, repo_id=str(folder)))

    loaded = load_pairs("radeval-expert", on_bad_rows="skip")
    assert [p.id for p in loaded.pairs] == ["001-c1", "001-c3", "002-c1", "002-c2", "002-c3"]
    assert (loaded.rows_read, len(loaded.skipped)) == (6, 1)
    assert (loaded.skipped[0].row, loaded.skipped[0].field) == (1, "significant_a")
    assert loaded.skipped[0].reason == "expected a number, got 'unreadable annotation2: the annotation is blank'"
    with pytest.raises(DataError, match="unreadable annotation2"):
        load_pairs("radeval-expert")


def test_radeval_missing_column_is_a_layout_error(tmp_path: Path) -> None:
    header = [c for c in RADEVAL_HEADER if c != "annotation3"]
    write_csv(tmp_path / "reader_study_final_with_annotationsv3.csv", header, [radeval_record([GOOD, GOOD])])
    with pytest.raises(HubLayoutError, match=r"\(revision latest, split 'train'\) has no column 'annotation3'"):
        list(radeval_expert_rows(repo_id=str(tmp_path)))


# --- CT-FineBench ---------------------------------------------------------------------------


def qa(report_id: str, finding: str, attribute: str, question: str, answer: str) -> dict[str, str]:
    return {"report_id": report_id, "finding": finding, "attribute": attribute, "question": question, "answer": answer}


HUB_CTRATE = [
    qa("valid_1_a_1", "lung nodule", "size", "What is the size of the lung nodule?", "6 mm"),
    qa("valid_2_a_1", "pleural effusion", "laterality", "Which side is the pleural effusion on?", "left"),
    qa("valid_1_a_1", "lung nodule", "location", "Where is the lung nodule?", "right upper lobe"),
]
HUB_MERLIN = [qa("AC4f2e1", "hepatic cyst", "size", "How large is the hepatic cyst?", "2 cm")]

USER_REPORTS = [
    {
        "id": "valid_1_a_1",
        "reference": "A 6 mm nodule in the right upper lobe.",
        "candidate": "A 9 mm nodule in the right upper lobe.",
    },
    {
        "id": "valid_2_a_1",
        "reference": "Small left pleural effusion.",
        "candidate": "Small left effusion.",
        "anatomy": "chest",
    },
]


def write_json(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(records), encoding="utf-8")


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def ct_finebench_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "hub"
    write_json(folder / "ctrate_qa_test.json", HUB_CTRATE)
    write_json(folder / "merlin_qa_test.json", HUB_MERLIN)
    return folder


def expected_qa(record: dict[str, str], attribute_type: str | None = None) -> QAPair:
    return QAPair(
        question=record["question"],
        answer=record["answer"],
        finding=record["finding"],
        attribute=record["attribute"],
        attribute_type=attribute_type,
    )


def test_ct_finebench_joins_questions_onto_the_users_reports(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS)
    with caplog.at_level(logging.WARNING, logger="radiology_tasks.core.hub"):
        rows = list(ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path))))
    pairs = to_pairs(rows)

    assert [number for number, _ in rows] == [1, 2]
    assert [(p.id, p.reference, p.candidate) for p in pairs] == [
        (r["id"], r["reference"], r["candidate"]) for r in USER_REPORTS
    ]
    assert pairs[0].qa == [expected_qa(HUB_CTRATE[0]), expected_qa(HUB_CTRATE[2])]
    assert pairs[1].qa == [expected_qa(HUB_CTRATE[1])]
    assert [(p.modality, p.anatomy) for p in pairs] == [("CT", None), ("CT", "chest")]
    assert rows[0][1]["qa"][0] == {
        "question": "What is the size of the lung nodule?",
        "answer": "6 mm",
        "finding": "lung nodule",
        "attribute": "size",
        "attribute_type": None,
    }
    assert caplog.messages == [
        f"ct-finebench: 1 of 3 benchmark reports (1 questions) have no report in {reports} and are not evaluated"
    ]


def test_ct_finebench_report_without_questions_is_an_error(tmp_path: Path) -> None:
    extra = {"id": "valid_9_b_2", "reference": "Normal chest CT."}
    reports = write_jsonl(tmp_path / "reports.jsonl", [*USER_REPORTS, extra])
    with pytest.raises(DataError) as error:
        list(ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path))))
    assert (error.value.source, error.value.row, error.value.field) == (str(reports), 3, "id")
    assert error.value.problem == (
        "no ct-finebench questions for report id 'valid_9_b_2' (1 of 3 reports have none); "
        "ids must match the benchmark's report ids (split 'test')"
    )


def test_ct_finebench_rows_without_id_pass_through_to_row_validation(tmp_path: Path) -> None:
    reports = tmp_path / "reports.csv"
    write_csv(reports, ["id", "reference"], [["valid_1_a_1", "A nodule."], ["", "No id here."]])
    rows = list(ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path))))
    assert "qa" not in rows[1][1]
    with pytest.raises(DataError) as error:
        to_pairs(rows[1:])
    assert (error.value.row, error.value.field) == (2, "id")


def test_ct_finebench_needs_a_reports_file(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"pass your reports with -T reports=FILE") as error:
        ct_finebench_rows()
    assert "\n" not in str(error.value)
    with pytest.raises(ValueError, match="no such file"):
        ct_finebench_rows(reports=str(tmp_path / "missing.jsonl"))


def test_ct_finebench_rejects_a_qa_column_in_the_reports(tmp_path: Path) -> None:
    reports = write_jsonl(tmp_path / "reports.jsonl", [{**USER_REPORTS[0], "qa": [{"question": "q", "answer": "a"}]}])
    with pytest.raises(DataError) as error:
        list(ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path))))
    assert (error.value.row, error.value.field) == (1, "qa")


def test_ct_finebench_one_row_per_report_layout(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    item = {
        "finding": "lung nodule",
        "attribute": "size",
        "question": "Size?",
        "answer": 6,
        "attribute_type": "Numeric",
    }
    write_json(folder / "ctrate_qa_test.json", [{"volume_name": "valid_1_a_1", "qa_pairs": [item]}])
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS[:1])
    layout = QALayout(
        report_id="volume_name",
        question="question",
        answer="answer",
        finding="finding",
        attribute="attribute",
        attribute_type="attribute_type",
        qa_list="qa_pairs",
    )

    pairs = to_pairs(ct_finebench_rows(reports=str(reports), repo_id=str(folder), layout=layout))
    assert pairs[0].qa == [
        QAPair(question="Size?", answer="6", finding="lung nodule", attribute="size", attribute_type="numeric")
    ]


def test_ct_finebench_hub_row_without_report_id(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    write_json(folder / "ctrate_qa_test.json", [{**HUB_CTRATE[0]}, {**HUB_CTRATE[1], "report_id": " "}])
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS[:1])
    with pytest.raises(HubLayoutError, match=r"split 'test'\), row 2: no report id in column 'report_id'$"):
        list(ct_finebench_rows(reports=str(reports), repo_id=str(folder)))


# --- failures shared by all three loaders -------------------------------------------------------


def all_loaders(tmp_path: Path) -> list[functools.partial[Any]]:
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS)
    return [
        functools.partial(rate_eval_rows),
        functools.partial(radeval_expert_rows),
        functools.partial(ct_finebench_rows, reports=str(reports)),
    ]


@pytest.mark.parametrize("loader", [0, 1, 2], ids=["rate-eval", "radeval-expert", "ct-finebench"])
def test_missing_datasets_package_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: int
) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(HubDependencyError) as error:
        list(all_loaders(tmp_path)[loader]())
    assert (
        str(error.value) == "the Hugging Face datasets need the 'datasets' package: pip install 'radiology-tasks[hf]'"
    )
    assert error.value.__suppress_context__


@pytest.mark.parametrize("loader", [0, 1, 2], ids=["rate-eval", "radeval-expert", "ct-finebench"])
def test_unreachable_hub_suggests_local_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, loader: int) -> None:
    # datasets and huggingface_hub read these variables at import, so set the imported values too.
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr("huggingface_hub.constants.HF_HUB_OFFLINE", True)

    repo = "radiology-tasks-tests/no-such-dataset"
    with pytest.raises(HubUnavailableError) as error:
        list(all_loaders(tmp_path)[loader](repo_id=repo, revision="v1"))
    message = str(error.value)
    assert message.startswith(f"could not reach the Hugging Face Hub for {repo} (revision v1, split ")
    assert message.endswith(
        "download the dataset files and pass -T data=FILE.jsonl, "
        "or set HF_DATASETS_OFFLINE=1 with the dataset already in the local cache"
    )
    assert "\n" not in message and error.value.__suppress_context__


# --- smaller contracts ------------------------------------------------------------------------------


def test_hub_columns_named_like_flat_columns_are_kept_under_a_hub_prefix(tmp_path: Path) -> None:
    header = ["gt_report", "similar_report", "Score", "id", "modality", "note"]
    write_csv(tmp_path / "Task2_paragraph_rate" / "rate_test.csv", header, [["Ref.", "Cand.", 2, "x7", "CXR", "n"]])
    (row,) = [r for _, r in rate_eval_rows(repo_id=str(tmp_path))]
    assert (row["id"], row["hub_id"], row["hub_modality"], row["note"]) == ("test-1", "x7", "CXR", "n")
    assert "modality" not in row


def test_radeval_empty_prediction_is_rejected_not_read_as_reference_only(tmp_path: Path) -> None:
    record = radeval_record([GOOD, GOOD, GOOD])
    record[5] = ""
    rows = list(radeval_expert_rows(repo_id=str(radeval_folder(tmp_path, [record]))))
    assert rows[1][1]["candidate"] == ""
    with pytest.raises(DataError) as error:
        to_pairs(rows[1:2])
    assert (error.value.row, error.value.field) == (1, "candidate")


def test_radeval_and_ct_finebench_refuse_unknown_splits_and_misplaced_reports(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"^radeval-expert has the splits train, not 'test'$"):
        radeval_expert_rows(split="test")
    with pytest.raises(ValueError, match=r"^-T reports=\.\.\. applies only to ct-finebench, not to radeval-expert$"):
        radeval_expert_rows(reports="reports.jsonl")
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS)
    with pytest.raises(ValueError, match=r"^ct-finebench has the splits test, train, not 'dev'$"):
        ct_finebench_rows(reports=str(reports), split="dev")


def test_unknown_split_message_lists_every_split(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(hub.RADEVAL_EXPERT_DATA_FILES, "validation", "validation.csv")
    with pytest.raises(ValueError) as error:
        radeval_expert_rows(split="test")
    assert str(error.value) == "radeval-expert has the splits train, validation, not 'test'"


def test_files_that_are_not_one_table_are_a_layout_error(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    write_json(folder / "ctrate_qa_test.json", [qa("a", "f", "size", "q", "x")])
    write_json(folder / "merlin_qa_test.json", [{**qa("b", "f", "size", "q", "x"), "answer": {"value": 3}}])
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS[:1])
    with pytest.raises(HubLayoutError) as error:
        list(ct_finebench_rows(reports=str(reports), repo_id=str(folder)))
    assert str(error.value).startswith(
        f"{folder} (revision latest, split 'test'): '*qa_test.json' could not be read as one table ("
    )
    assert "\n" not in str(error.value)


def test_pinned_revisions_name_each_hub_dataset() -> None:
    assert hub._source(hub.RADEVAL_EXPERT_REPO, None, "train").label == (
        "IAMJB/RadEvalExpertDataset (revision b4bd9d6ee75fcd155b6de466f1b7b7bd774408be, split 'train')"
    )
    assert hub._source(hub.CT_FINEBENCH_REPO, None, "test").revision == "2b06156ec7f5dd51041ea0af249e57014ca3eb45"
    assert hub._source(hub.RATE_EVAL_REPO, None, "test").revision == "43702688ab0297f8cde91611cb60dbab53fe1903"


def test_load_asks_datasets_for_the_pinned_revision_and_one_split(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []

    def load_dataset(*args: Any, **kwargs: Any) -> Any:
        calls.append((args, kwargs))
        return datasets.Dataset.from_list([{"gt_report": "Ref.", "similar_report": "Cand.", "Score": 1.0}])

    monkeypatch.setattr(datasets, "load_dataset", load_dataset)
    assert len(list(rate_eval_rows())) == 1
    assert calls == [
        (
            (hub.RATE_EVAL_REPO,),
            {
                "revision": hub.PINNED_REVISIONS[hub.RATE_EVAL_REPO],
                "data_files": {"test": "Task2_paragraph_rate/rate_test.csv"},
                "split": "test",
            },
        )
    ]


def _failing_load(error: BaseException) -> Any:
    def load_dataset(*args: Any, **kwargs: Any) -> Any:
        raise error

    return load_dataset


def test_generation_errors_show_the_first_line_of_their_cause(monkeypatch: pytest.MonkeyPatch) -> None:
    from datasets.exceptions import DatasetGenerationError

    def generation_error(cause: str) -> DatasetGenerationError:
        error = DatasetGenerationError("An error occurred while generating the dataset")
        error.__cause__ = ValueError(cause)
        return error

    label = f"{hub.RATE_EVAL_REPO} (revision {hub.PINNED_REVISIONS[hub.RATE_EVAL_REPO]}, split 'test')"
    for cause, shown in (
        ("  column Score: bad value\nmore detail", "column Score: bad value"),
        ("", "DatasetGenerationError"),
    ):
        monkeypatch.setattr(datasets, "load_dataset", _failing_load(generation_error(cause)))
        with pytest.raises(HubLayoutError) as error:
            list(rate_eval_rows())
        assert str(error.value) == (
            f"{label}: 'Task2_paragraph_rate/rate_test.csv' could not be read as one table ({shown})"
        )


def test_an_unknown_dataset_or_revision_says_what_to_check(monkeypatch: pytest.MonkeyPatch) -> None:
    from datasets.exceptions import DatasetNotFoundError

    monkeypatch.setattr(datasets, "load_dataset", _failing_load(DatasetNotFoundError("No such revision.")))
    with pytest.raises(HubUnavailableError) as error:
        list(radeval_expert_rows(revision="v9"))
    assert str(error.value) == (
        f"{hub.RADEVAL_EXPERT_REPO} (revision v9, split 'train'): No such revision. Check the repository id "
        "and -T revision, or load a local copy with -T data=FILE.jsonl"
    )
    assert error.value.__suppress_context__


def test_loader_messages_in_full(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as error:
        rate_eval_rows(reports="reports.jsonl")
    assert str(error.value) == "-T reports=... applies only to ct-finebench, not to rate-eval"
    with pytest.raises(ValueError) as error:
        rate_eval_rows(split="validation")
    assert str(error.value) == "rate-eval has the splits test, train, not 'validation'"
    with pytest.raises(ValueError) as error:
        ct_finebench_rows()
    assert str(error.value) == (
        "ct-finebench has questions only, no reports: pass your reports with -T reports=FILE "
        "(JSONL or CSV with id, reference and optionally candidate)"
    )
    with pytest.raises(ValueError) as error:
        ct_finebench_rows(reports=str(tmp_path / "missing.jsonl"))
    assert str(error.value) == f"-T reports={tmp_path / 'missing.jsonl'}: no such file"


def test_missing_columns_are_named_with_the_columns_found(tmp_path: Path) -> None:
    write_csv(tmp_path / "Task2_paragraph_rate" / "rate_test.csv", ["gt_report", "similar_report"], [["a", "b"]])
    with pytest.raises(HubLayoutError) as error:
        list(rate_eval_rows(repo_id=str(tmp_path)))
    assert str(error.value) == (
        f"{tmp_path} (revision latest, split 'test') has no column 'Score' (it has: gt_report, similar_report); "
        "if the layout changed, update RATE_EVAL_COLUMNS in radiology_tasks/core/hub.py"
    )
    radeval = tmp_path / "radeval"
    header = [c for c in RADEVAL_HEADER if c != "prediction2"]
    record = radeval_record([GOOD, GOOD, GOOD])
    write_csv(radeval / "reader_study_final_with_annotationsv3.csv", header, [record[:5] + record[6:]])
    with pytest.raises(HubLayoutError) as error:
        list(radeval_expert_rows(repo_id=str(radeval)))
    assert str(error.value).endswith(
        "has no column 'prediction2' (it has: annotator, type, ground_truth, images_path, prediction1, prediction3, "
        "annotation1, annotation2, annotation3); if the layout changed, update RADEVAL_REFERENCE_COLUMN / "
        "RADEVAL_CANDIDATE_SLOTS in radiology_tasks/core/hub.py"
    )


def test_ct_finebench_keeps_a_given_modality_and_refuses_a_qa_column_in_full(tmp_path: Path) -> None:
    reports = write_jsonl(tmp_path / "reports.jsonl", [{**USER_REPORTS[0], "modality": "PET-CT"}])
    (row,) = [r for _, r in ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path)))]
    assert row["modality"] == "PET-CT"
    reports = write_jsonl(tmp_path / "qa.jsonl", [USER_REPORTS[1], {**USER_REPORTS[0], "qa": []}])
    with pytest.raises(DataError) as error:
        list(ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path))))
    assert str(error.value) == f"{reports}, row 2, field 'qa': the questions come from ct-finebench; remove this column"


def test_ct_finebench_blank_report_ids_pass_through_to_row_validation(tmp_path: Path) -> None:
    reports = write_jsonl(tmp_path / "reports.jsonl", [USER_REPORTS[0], {"id": "   ", "reference": "No id here."}])
    rows = list(ct_finebench_rows(reports=str(reports), repo_id=str(ct_finebench_folder(tmp_path))))
    assert "qa" not in rows[1][1]
    with pytest.raises(DataError) as error:
        to_pairs(rows[1:])
    assert (error.value.row, error.value.field) == (2, "id")


def test_ct_finebench_recognised_layout_reads_attributes_and_their_type(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    item = {"question": "Size?", "answer": 6, "finding": "nodule", "attribute": "size", "attribute_type": " Numeric"}
    write_json(folder / "ctrate_qa_test.json", [{"volume_name": "valid_1_a_1", "qa_pairs": [item]}])
    reports = write_jsonl(tmp_path / "reports.jsonl", USER_REPORTS[:1])
    (pair,) = to_pairs(ct_finebench_rows(reports=str(reports), repo_id=str(folder)))
    assert pair.qa == [
        QAPair(question="Size?", answer="6", finding="nodule", attribute="size", attribute_type="numeric")
    ]
