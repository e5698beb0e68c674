"""Label tables in the authors' layout: scoring without a judge, clear errors, and writing them from a log."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log

from radiology_tasks.cli import main
from radiology_tasks.core.errors import InputError
from radiology_tasks.ran_score.label_files import read_label_file
from radiology_tasks.ran_score.tasks import ran_score
from tests.conftest import write_jsonl
from tests.ran_score.helpers import COLUMNS, TAXONOMY, batch_answer, report_in, write_labels
from tests.ran_score.test_task import metrics, run
from tests.report_values import report_values

REPO = Path(__file__).resolve().parents[2]

# The studies of test_task.STUDIES, by column: reference and candidate 1s; No Finding as a labeler writes it.
REFERENCE = {
    "s1": {"Pleural Effusion": 1, "Cardiomegaly": 1},
    "s2": {"Cardiomegaly": 1},
    "s3": {"Pleural Effusion": 1, "Pneumothorax": 1},
    "s4": {"No Finding": 1},
}
CANDIDATE = {
    "s1": {"Pleural Effusion": 1},
    "s2": {"Pleural Effusion": 1, "Cardiomegaly": 1},
    "s3": {"Pleural Effusion": 1},
    "s4": {"No Finding": 1},
}


def test_two_label_files_need_no_judge_and_no_reports(tmp_path):
    reference = write_labels(tmp_path / "ref.csv", REFERENCE)
    candidate = write_labels(tmp_path / "cand.csv", dict(reversed(CANDIDATE.items())))  # row order is free
    (log,) = inspect_eval(
        ran_score(reference_labels=str(reference), candidate_labels=str(candidate)), model="none", display="none"
    )
    assert log.status == "success", log.error
    assert sorted(s.id for s in log.samples) == ["s1", "s2", "s3", "s4"]
    values = metrics(log)
    # Effusion F1 4/5, Cardiomegaly 2/3, Pneumothorax 0, No Finding 1, the other 17 labels no positive: 0.
    assert values["ran_score"] == pytest.approx((4 / 5 + 2 / 3 + 1) / 21)
    assert values["micro_f1"] == pytest.approx(8 / 11)
    assert values["judge_calls_per_sample"] == 0.0
    first = next(s for s in log.samples if s.id == "s1").scores["finding_agreement"]
    assert first.metadata["reference_source"] == "file" and first.metadata["candidate_source"] == "file"


@pytest.mark.slow
def test_label_files_join_the_data_by_id_through_the_inspect_cli(tmp_path):
    reference = write_labels(tmp_path / "a.csv", REFERENCE)
    candidate = write_labels(tmp_path / "b.csv", CANDIDATE)
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [{"id": i, "reference": f"Report {i}."} for i in ("s2", "s4")])
    command = [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/ran_score", "--model", "none"]
    command += ["-T", f"reference_labels={reference}", "-T", f"candidate_labels={candidate}", "-T", f"data={pairs}"]
    command += ["--log-dir", str(tmp_path / "logs"), "--display", "plain"]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
    log = read_eval_log(list_eval_logs(str(tmp_path / "logs"))[0])
    assert log.status == "success" and sorted(s.id for s in log.samples) == ["s2", "s4"]
    values = report_values(log)
    # s2 and s4 only: effusion 0,0 vs 1,0 -> 0; cardiomegaly 1,0 vs 1,0 -> 1; No Finding 0,1 vs 0,1 -> 1.
    assert values["ran_score"] == pytest.approx(2 / 21)


def _table(tmp_path: Path, rows: list[list[str]], header: list[str] | None = None) -> Path:
    path = tmp_path / "labels.csv"
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header or ["study_id", *COLUMNS])
        writer.writerows(rows)
    return path


ZEROS = ["0"] * len(COLUMNS)


def _with_cell(column: str, value: str) -> list[str]:
    row = list(ZEROS)
    row[COLUMNS.index(column)] = value
    return row


@pytest.mark.parametrize(
    ("header", "rows", "message"),
    [
        (["study_id", *COLUMNS[:-1]], [["s1", *ZEROS[:-1]]], "field 'pulmonary vascular abnormal': missing column"),
        ([*COLUMNS], [ZEROS], "field 'study_id': missing column"),
        (None, [["s1", *_with_cell("Edema", "2")]], "row 1, field 'Edema': expected 0 or 1, got '2'"),
        (None, [["s1", *ZEROS], ["s2", *_with_cell("Fracture", "")]], "row 2, field 'Fracture': missing value"),
        (None, [["s1", *_with_cell("Pneumonia", "-1")]], "row 1, field 'Pneumonia': expected 0 or 1, got '-1' (map"),
        (None, [["s1", *_with_cell("emphysema", "yes")]], "row 1, field 'emphysema': expected 0 or 1, got 'yes'"),
        (None, [["s1", *ZEROS], ["s1", *ZEROS]], "row 2, field 'study_id': duplicate id 's1' (first in row 1)"),
        (None, [["", *ZEROS]], "row 1, field 'study_id': missing or empty"),
    ],
)
def test_a_bad_label_file_names_file_row_and_column(tmp_path, header, rows, message):
    path = _table(tmp_path, rows, header)
    with pytest.raises(InputError) as error:
        read_label_file(str(path), TAXONOMY)
    assert str(error.value).startswith(f"{path}, {message}"), str(error.value)


def test_a_missing_row_names_the_file_and_the_id(tmp_path):
    reference = write_labels(tmp_path / "ref.csv", REFERENCE)
    candidate = write_labels(tmp_path / "cand.csv", {k: v for k, v in CANDIDATE.items() if k != "s3"})
    with pytest.raises(InputError, match=f"^{candidate}, field 'study_id': no row for id 's3'$"):
        ran_score(reference_labels=str(reference), candidate_labels=str(candidate))
    pairs = write_jsonl(tmp_path / "pairs.jsonl", [{"id": "s9", "reference": "Normal.", "candidate": "Normal."}])
    with pytest.raises(InputError, match=f"^{reference}, field 'study_id': no row for id 's9'$"):
        ran_score(data=str(pairs), reference_labels=str(reference))
    assert read_label_file(str(reference), TAXONOMY)["s4"]["No Finding"] == 1
    with pytest.raises(InputError, match="label files are CSV"):
        read_label_file(str(pairs), TAXONOMY)


def test_inspect_eval_prints_a_bad_label_file_in_one_line(tmp_path):
    path = _table(tmp_path, [["s1", *_with_cell("Edema", "2")]])
    command = [sys.executable, "-m", "inspect_ai", "eval", "radiology_tasks/ran_score", "--model", "none"]
    command += ["-T", f"reference_labels={path}", "-T", f"candidate_labels={path}"]
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=300)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert f"{path}, row 1, field 'Edema': expected 0 or 1, got '2'" in " ".join(output.split())
    assert "Traceback" not in output


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"candidate_labels": "CAND", "generate": True}, "-T candidate_labels gives the candidates' labels"),
        ({"reference_labels": "REF", "gold_labels": "REF"}, "-T gold_labels checks the judge's reading"),
        ({"extraction": "all"}, "-T extraction must be one of batch, per_label; got 'all'"),
        ({"constrain": "json"}, "-T constrain must be one of auto, off, grammar"),
        ({"judge_retries": -1}, "-T judge_retries must be at least 0, got -1"),
        ({"judge_retries": "two"}, "-T judge_retries must be a whole number, got 'two'"),
        ({"judge_max_tokens": 0}, "-T judge_max_tokens must be at least 1"),
        ({"unscored": "zero"}, "-T unscored must be one of worst, exclude"),
    ],
)
def test_parameters_are_checked_when_the_task_is_built(tmp_path, kwargs, message):
    path = str(write_labels(tmp_path / "labels.csv", REFERENCE))
    kwargs = {k: path if v in ("REF", "CAND") else v for k, v in kwargs.items()}
    with pytest.raises(InputError, match=f"^{message}"):
        ran_score(**kwargs)


def test_gold_labels_in_the_data_are_checked_when_the_task_is_built(tmp_path):
    gold = {column: 0 for column in COLUMNS} | {"Edema": "1"}
    pairs = write_jsonl(
        tmp_path / "pairs.jsonl", [{"id": "x", "reference": "R.", "candidate": "C.", "gold_labels": gold}]
    )
    with pytest.raises(InputError, match=r"id 'x', field 'gold_labels.Edema': expected 0 or 1, got '1'"):
        ran_score(data=str(pairs))


def test_ran_labels_writes_tables_that_score_the_same_again(monkeypatch, tmp_path, capsys):
    rows = [{"id": study, "reference": f"reference {study}", "candidate": f"candidate {study}"} for study in REFERENCE]
    rows.append({"id": "bad", "reference": "reference s4", "candidate": "candidate bad"})
    data = write_jsonl(tmp_path / "pairs.jsonl", rows)
    labels = {"reference": REFERENCE, "candidate": CANDIDATE | {"bad": {}}}

    def reply(body: dict) -> str:
        side, study = report_in(body).split()
        if study == "bad":
            return "no idea"
        ones = labels[side][study]
        return batch_answer({TAXONOMY.keys[COLUMNS.index(c)]: study for c in ones if c != "No Finding"})

    log, _ = run(ran_score(data=str(data), label_cache="off"), reply, monkeypatch)
    out = tmp_path / "labels"
    assert main(["ran-labels", log.location, "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"wrote 5 reference label rows to {out / 'reference_labels.csv'}" in printed
    assert (
        "wrote 4 candidate label rows" in printed and "skipped bad: unknown candidate labels: Atelectasis," in printed
    )
    with (out / "reference_labels.csv").open(encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == ["study_id", *COLUMNS]
    table = read_label_file(str(out / "candidate_labels.csv"), TAXONOMY)
    assert table["s2"] == {c: int(c in ("Pleural Effusion", "Cardiomegaly")) for c in COLUMNS}
    exported = read_label_file(str(out / "reference_labels.csv"), TAXONOMY)
    assert {k: exported[k] for k in REFERENCE} == read_label_file(
        str(write_labels(tmp_path / "r.csv", REFERENCE)), TAXONOMY
    )
    # Scored again from the two tables alone, on the four studies both have: the hand values of the judged run
    # without the unreadable report (which counted as all wrong under worst).
    four = write_jsonl(tmp_path / "four.jsonl", rows[:4])
    files = {
        "reference_labels": str(out / "reference_labels.csv"),
        "candidate_labels": str(out / "candidate_labels.csv"),
    }
    (again,) = inspect_eval(ran_score(data=str(four), **files), model="none", display="none")
    assert metrics(again)["ran_score"] == pytest.approx((4 / 5 + 2 / 3 + 1) / 21)
    assert metrics(log)["ran_score"] < metrics(again)["ran_score"]


def test_ran_labels_refuses_other_logs(tmp_path, capsys):
    assert main(["ran-labels", str(tmp_path / "missing.eval"), "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err.startswith("radiology-tasks ran-labels: cannot read eval log")
