"""``radiology-tasks ctfb-qa`` against the local stub: the questions of each report, as a data file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import QAPair
from tests.conftest import write_jsonl
from tests.ct_finebench.construction_stub import (
    MODEL,
    cli,
    findings_in,
    kind,
    questions_in,
    read_jsonl,
    report_in,
    serving,
)

SCHEMA = """\
# edited by hand
version: 1
findings:
- finding: lung nodule
  existence_question: Is there any lung nodule?
  aliases: [pulmonary nodule]
  attributes:
  - attribute: size
    type: numeric
    question: What is the size of the lung nodule?
    description: The longest diameter.
    examples: [8 mm]
  - attribute: location
    type: location
    question: Where is the lung nodule?
  - attribute: margin
    type: categorical
    question: What are the margins of the lung nodule?
- finding: pleural effusion
  existence_question: Is there any pleural effusion?
  attributes:
  - attribute: amount
    type: categorical
    question: How much pleural fluid is there?
- finding: atelectasis
  existence_question: Is there any atelectasis?
"""

R1 = "A solid 8 mm nodule in the right upper lobe. Small left pleural effusion."
R2 = "A 5 mm nodule in the left lower lobe. No pleural effusion."
# U+2028 is a line separator to str.splitlines but not to JSONL: r3's line must survive a resume whole.
R3 = "No acute abnormality.\u2028Lungs clear."
REPORTS = [
    {
        "id": "r1",
        "reference": R1,
        "candidate": "Nodule.",
        "expert_score": 4,
        "expert_score_max": 5,
        "site": "A",
        "qa": [{"question": "old?", "answer": "old"}],
    },
    {"id": "r2", "reference": R2, "site": "B"},
    {"id": "r3", "reference": R3, "site": "A"},
]
STATUS = {
    R1: {"lung nodule": "present", "pleural effusion": "present", "atelectasis": "not_mentioned"},
    R2: {"lung nodule": "present", "pleural effusion": "absent", "atelectasis": "not_mentioned"},
    R3: {"lung nodule": "not_mentioned", "pleural effusion": "not_mentioned", "atelectasis": "not_mentioned"},
}
ANSWER = {
    R1: {
        ("lung nodule", "size"): "8 mm",
        ("lung nodule", "location"): "right upper lobe",
        ("lung nodule", "margin"): None,
        ("pleural effusion", "amount"): "small",
    },
    R2: {
        ("lung nodule", "size"): "5 mm",
        ("lung nodule", "location"): "left lower lobe",
        ("lung nodule", "margin"): None,
    },
}


def fixed(body: dict[str, Any]) -> str:
    report = report_in(body)
    if kind(body) == "existence":
        return json.dumps({key: STATUS[report][name] for key, name in findings_in(body).items()})
    return json.dumps({key: ANSWER[report][pair] for key, pair in questions_in(body).items()})


def pair(question: str, answer: str, finding: str, attribute: str, attribute_type: str) -> dict[str, str]:
    return QAPair(
        question=question, answer=answer, finding=finding, attribute=attribute, attribute_type=attribute_type
    ).model_dump()


EXPECTED = {
    # r1: the nodule and the effusion are present; the margin is not stated, so it has no question.
    "r1": [
        pair("Is there any lung nodule?", "present", "lung nodule", "existence", "existence"),
        pair("What is the size of the lung nodule?", "8 mm", "lung nodule", "size", "numeric"),
        pair("Where is the lung nodule?", "right upper lobe", "lung nodule", "location", "location"),
        pair("Is there any pleural effusion?", "present", "pleural effusion", "existence", "existence"),
        pair("How much pleural fluid is there?", "small", "pleural effusion", "amount", "categorical"),
    ],
    # r2: the effusion is stated absent: an existence question, no attribute questions.
    "r2": [
        pair("Is there any lung nodule?", "present", "lung nodule", "existence", "existence"),
        pair("What is the size of the lung nodule?", "5 mm", "lung nodule", "size", "numeric"),
        pair("Where is the lung nodule?", "left lower lobe", "lung nodule", "location", "location"),
        pair("Is there any pleural effusion?", "absent", "pleural effusion", "existence", "existence"),
    ],
    "r3": [],
}


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    schema = tmp_path / "schema.yaml"
    schema.write_text(SCHEMA, encoding="utf-8")
    return write_jsonl(tmp_path / "reports.jsonl", REPORTS), schema


def run(files: tuple[Path, Path], out: Path, *extra: str) -> int:
    reports, schema = files
    return cli("ctfb-qa", "--data", reports, "--schema", schema, "--model", MODEL, "--out", out, *extra)


def test_questions_per_report_in_the_data_file_layout(monkeypatch, files, tmp_path, capsys):
    out = tmp_path / "qa.jsonl"
    with serving(monkeypatch, fixed) as server:
        assert run(files, out) == 0
    rows = {row["id"]: row for row in read_jsonl(out)}
    assert {key: row["qa"] for key, row in rows.items()} == EXPECTED
    # Every input column is kept; the old questions are replaced.
    assert {k: v for k, v in rows["r1"].items() if k not in ("qa", "construction")} == {
        k: v for k, v in REPORTS[0].items() if k != "qa"
    }
    assert rows["r1"]["construction"]["status"] == "ok"
    assert [row["construction"]["judge"]["calls"] for row in (rows["r1"], rows["r2"], rows["r3"])] == [2, 2, 1]
    assert len(server.requests) == 5  # r3 states no finding: no attribute call

    attribute_call = next(b for b in server.requests if kind(b) == "attributes" and report_in(b) == R1)
    assert questions_in(attribute_call) == {
        "a1": ("lung nodule", "size"),
        "a2": ("lung nodule", "location"),
        "a3": ("lung nodule", "margin"),
        "a4": ("pleural effusion", "amount"),
    }
    assert "meaning: The longest diameter.; typical answers: 8 mm" in attribute_call["messages"][-1]["content"]
    assert attribute_call["response_format"]["json_schema"]["name"] == "ct_finebench_extraction"
    existence_call = next(b for b in server.requests if kind(b) == "existence")
    assert "f1: lung nodule (also written as: pulmonary nodule)" in existence_call["messages"][-1]["content"]
    assert existence_call["response_format"]["json_schema"]["name"] == "ct_finebench_existence"

    loaded = {p.id: p for p in load_pairs(str(out)).pairs}
    assert [q.model_dump() for q in loaded["r1"].qa] == EXPECTED["r1"]
    assert loaded["r1"].metadata["site"] == "A" and loaded["r1"].expert.score == 4
    assert capsys.readouterr().out == f"ctfb-qa: 3 reports in {out}: 0 done earlier, 3 done now, 0 failed\n"


def test_an_id_left_out_is_asked_again_on_its_own(monkeypatch, files, tmp_path):
    asked: list[dict[str, str]] = []

    def forgets_atelectasis_once(body: dict[str, Any]) -> str:
        answer = json.loads(fixed(body))
        if kind(body) == "existence" and report_in(body) == R1:
            asked.append(findings_in(body))
            if len(asked) == 1:
                del answer["f3"]
        return json.dumps(answer)

    out = tmp_path / "qa.jsonl"
    with serving(monkeypatch, forgets_atelectasis_once):
        assert run(files, out, "--limit", "1") == 0
    assert asked == [{"f1": "lung nodule", "f2": "pleural effusion", "f3": "atelectasis"}, {"f3": "atelectasis"}]
    (row,) = read_jsonl(out)
    assert row["qa"] == EXPECTED["r1"] and row["construction"]["judge"]["follow_ups"] == 1


def test_unreadable_answers_make_a_failure_line_redone_by_the_next_run(monkeypatch, files, tmp_path, capsys):
    def rambles_about_r2(body: dict[str, Any]) -> str:
        return "The nodule measures 5 mm." if kind(body) == "attributes" and report_in(body) == R2 else fixed(body)

    out = tmp_path / "qa.jsonl"
    with serving(monkeypatch, rambles_about_r2) as server:
        assert run(files, out, "--retries", "0") == 1
    assert len(server.requests) == 5  # no re-ask with --retries 0
    rows = {row["id"]: row for row in read_jsonl(out)}
    failed = rows["r2"]["construction"]
    assert rows["r2"]["qa"] == [] and failed["status"] == "failed"
    assert (failed["reason"], failed["detail"]) == (
        "invalid_response_format",
        "a1: invalid_json: Expecting value at character 0",
    )
    assert [a["answer"] for a in failed["attempts"]][-1] == "The nodule measures 5 mm."
    assert "  failed r2: invalid_response_format: a1: invalid_json: Expecting value at character 0" in (
        capsys.readouterr().out.splitlines()
    )
    # A failure line still loads (with no questions); the next run redoes that report only.
    # (Lines are in input order once a run finishes.)
    assert [p.id for p in load_pairs(str(out)).pairs if not p.qa] == ["r2", "r3"]
    with serving(monkeypatch, fixed) as server:
        assert run(files, out) == 0
    assert {report_in(b) for b in server.requests} == {R2}
    assert {row["id"]: row["qa"] for row in read_jsonl(out)} == EXPECTED


def test_an_edited_schema_or_existence_setting_redoes_every_report(monkeypatch, files, tmp_path, capsys):
    out = tmp_path / "qa.jsonl"
    with serving(monkeypatch, fixed):
        assert run(files, out) == 0
    reports, schema = files
    schema.write_text(SCHEMA.replace("How much pleural fluid is there?", "How large is the effusion?"), "utf-8")
    capsys.readouterr()
    with serving(monkeypatch, fixed) as server:
        assert run(files, out) == 0
    assert len(server.requests) == 5
    assert "3 lines of edited reports (or of another schema) redone" in capsys.readouterr().out
    r1 = next(row for row in read_jsonl(out) if row["id"] == "r1")
    assert r1["qa"][-1]["question"] == "How large is the effusion?"

    with serving(monkeypatch, fixed) as server:
        assert run(files, out, "--existence", "present") == 0
    assert len(server.requests) == 5
    r2 = next(row for row in read_jsonl(out) if row["id"] == "r2")
    assert r2["qa"] == EXPECTED["r2"][:3]  # no question about the absent effusion


def test_a_bad_schema_stops_before_any_call(monkeypatch, files, tmp_path, capsys):
    reports, schema = files
    schema.write_text(SCHEMA.replace("type: location", "type: place"), "utf-8")
    with serving(monkeypatch, fixed) as server:
        assert run(files, tmp_path / "qa.jsonl") == 2
    assert server.requests == []
    assert capsys.readouterr().err == (
        f"radiology-tasks ctfb-qa: {schema}: finding 1 (lung nodule), attribute 2 (location), field 'type': "
        "Input should be 'numeric', 'categorical', 'location' or 'other'\n"
    )
