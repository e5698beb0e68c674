"""Reports -> triplets -> schema (edited as a person would) -> questions -> the ct_finebench task.

Every judge answer is fixed per report; the counts and scores below are worked out by hand in the comments.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.scorers.ct_finebench.construction_schema import load_schema
from tests.conftest import write_jsonl
from tests.ct_finebench import stub_judge
from tests.ct_finebench.construction_stub import (
    MODEL,
    cli,
    findings_in,
    kind,
    questions_in,
    read_jsonl,
    report_in,
    serving,
    triplets,
)

E1 = "A solid 8 mm nodule in the right upper lobe. Small left pleural effusion."
E2 = "A 6 mm nodule in the left lower lobe. Moderate right pleural effusion."
E3 = "Pulmonary nodule of 4 mm in the right middle lobe."
C1 = "An 8 mm nodule in the right upper lobe. Small left pleural effusion."
C2 = "A 9 mm nodule in the left lower lobe. No pleural effusion."
C3 = "Right middle lobe nodule measuring 4 mm."
REPORTS = [
    {"id": "e1", "reference": E1, "candidate": C1, "expert_score": 5, "expert_score_max": 5},
    {"id": "e2", "reference": E2, "candidate": C2, "expert_score": 2, "expert_score_max": 5},
    {"id": "e3", "reference": E3, "candidate": C3, "expert_score": 5, "expert_score_max": 5},
]

TRIPLETS = {
    E1: triplets(
        ("Lung nodules", "size", "8 mm"),
        ("lung nodule", "location", "right upper lobe"),
        ("lung nodule", "density", "solid"),
        ("pleural effusion", "amount", "small"),
        ("pleural effusion", "laterality", "left"),
    ),
    E2: triplets(
        ("lung nodule", "Size", "6 mm"),
        ("lung nodule", "location", "left lower lobe"),
        ("pleural effusion", "amount", "moderate"),
        ("pleural effusion", "side", "right"),
    ),
    E3: triplets(("pulmonary nodule", "size", "4 mm"), ("pulmonary nodule", "location", "right middle lobe")),
}
# What the reports state, for the schema as edited below.
STATUS = {
    E1: {"lung nodule": "present", "pleural effusion": "present"},
    E2: {"lung nodule": "present", "pleural effusion": "present"},
    E3: {"lung nodule": "present", "pleural effusion": "not_mentioned"},  # written "pulmonary nodule": an alias
}
ANSWER = {
    E1: {
        ("lung nodule", "location"): "right upper lobe",
        ("lung nodule", "size"): "8 mm",
        ("pleural effusion", "laterality"): "left",
    },
    E2: {
        ("lung nodule", "location"): "left lower lobe",
        ("lung nodule", "size"): "6 mm",
        ("pleural effusion", "laterality"): "right",
    },
    E3: {("lung nodule", "location"): "right middle lobe", ("lung nodule", "size"): "4 mm"},
}


def construction_judge(body: dict[str, Any]) -> str:
    report = report_in(body)
    if kind(body) == "triplets":
        return TRIPLETS[report]
    if kind(body) == "existence":
        return json.dumps({key: STATUS[report][name] for key, name in findings_in(body).items()})
    return json.dumps({key: ANSWER[report][pair] for key, pair in questions_in(body).items()})


# The draft's pleural effusion entry (amount in e1 and e2; laterality and side once each, below the threshold).
DRAFT_AMOUNT = """\
  - attribute: amount
    type: categorical
    count: 2
    question: What is the amount of the pleural effusion?
    description: ''
    examples: [small, moderate]
"""
# The person merges side into laterality, which the draft left below the threshold, and removes amount.
EDITED_LATERALITY = """\
  - attribute: laterality
    type: location
    question: Which side is the pleural effusion on?
    description: Left, right or both sides.
"""

# The ct_finebench task's judge: the answer it extracts from each candidate for each question, and its grades.
EXTRACTED = {
    C1: {
        "Is there any lung nodule?": "nodule",
        "Where is the lung nodule?": "right upper lobe",
        "What is the size of the lung nodule?": "8 mm",
        "Is there any pleural effusion?": "pleural effusion",
        "Which side is the pleural effusion on?": "left",
    },
    C2: {
        "Is there any lung nodule?": "nodule",
        "Where is the lung nodule?": "left lower lobe",
        "What is the size of the lung nodule?": "9 mm",
        "Is there any pleural effusion?": "No pleural effusion",
        "Which side is the pleural effusion on?": None,
    },
    C3: {
        "Is there any lung nodule?": "nodule",
        "Where is the lung nodule?": "Right middle lobe",
        "What is the size of the lung nodule?": "4 mm",
    },
}
GRADES = {
    "nodule": 1,
    "right upper lobe": 1,
    "left lower lobe": 1,
    "Right middle lobe": 1,
    "pleural effusion": 1,
    "left": 1,
    "No pleural effusion": 0,
}
TASK_QUESTION = re.compile(r"^(q\d+): (.*)$", re.M)


def task_judge(body: dict[str, Any]) -> str:
    if stub_judge.is_extraction(body):
        extracted = EXTRACTED[stub_judge.candidate_in(body)]
        return json.dumps({key: extracted[text] for key, text in TASK_QUESTION.findall(stub_judge.prompt_of(body))})
    return json.dumps({key: GRADES[answer] for key, (_, _, answer) in stub_judge.items_in(body).items()})


def test_reports_to_questions_to_scores(monkeypatch, tmp_path, capsys):
    reports = write_jsonl(tmp_path / "reports.jsonl", REPORTS)
    triplet_file, schema_file, qa_file = tmp_path / "triplets.jsonl", tmp_path / "schema.yaml", tmp_path / "qa.jsonl"
    with serving(monkeypatch, construction_judge) as server:
        assert cli("ctfb-triplets", "--data", reports, "--model", MODEL, "--out", triplet_file) == 0
        # lung nodule: e1, e2 (2; "Lung nodules" is the same name), its location and size 2 each, density 1;
        # pleural effusion: e1, e2 (2), amount 2, laterality 1, side 1; pulmonary nodule: e3 only (1).
        assert cli("ctfb-schema", triplet_file, "--min-count", "2", "--out", schema_file) == 0
        draft = load_schema(schema_file)
        assert [(f.finding, [a.attribute for a in f.attributes]) for f in draft.findings] == [
            ("lung nodule", ["location", "size"]),
            ("pleural effusion", ["amount"]),
        ]
        text = schema_file.read_text(encoding="utf-8")
        assert "#   pulmonary nodule: 1 reports\n" in text
        # The person's edits: merge pulmonary nodule into lung nodule, reword the location question, describe size,
        # and replace amount by laterality.
        assert DRAFT_AMOUNT in text and text.count("  aliases: []\n") == 2
        text = text.replace("  aliases: []\n", "  aliases: [pulmonary nodule]\n", 1)
        text = text.replace("What is the location of the lung nodule?", "Where is the lung nodule?")
        text = text.replace(
            "    question: What is the size of the lung nodule?\n    description: ''\n",
            "    question: What is the size of the lung nodule?\n    description: The longest diameter.\n",
        )
        schema_file.write_text(text.replace(DRAFT_AMOUNT, EDITED_LATERALITY), encoding="utf-8")
        assert cli("ctfb-qa", "--data", reports, "--schema", schema_file, "--model", MODEL, "--out", qa_file) == 0
    # 3 triplet calls; e1 and e2 state both findings, e3 the nodule: 3 existence and 3 attribute calls.
    assert len(server.requests) == 9
    assert "ctfb-qa: 3 reports in" in capsys.readouterr().out

    loaded = {pair.id: pair for pair in load_pairs(str(qa_file)).pairs}
    assert [(q.question, q.answer, q.attribute_type) for q in loaded["e1"].qa] == [
        ("Is there any lung nodule?", "present", "existence"),
        ("Where is the lung nodule?", "right upper lobe", "location"),
        ("What is the size of the lung nodule?", "8 mm", "numeric"),
        ("Is there any pleural effusion?", "present", "existence"),
        ("Which side is the pleural effusion on?", "left", "location"),
    ]
    assert [q.answer for q in loaded["e3"].qa] == ["present", "right middle lobe", "4 mm"]
    assert all(row["construction"]["status"] == "ok" for row in read_jsonl(qa_file))

    log, _ = stub_judge.run(ct_finebench(data=str(qa_file)), task_judge, monkeypatch)
    scores = {key: score.value["ct_finebench"] for key, score in stub_judge.scores(log).items()}
    # e1: five answers graded 1 (8 mm against 8 mm in code) -> 1.0.
    # e2: nodule 1, location 1, 9 mm against 6 mm is 50% off -> 0, "No pleural effusion" 0, side unanswered 0 -> 0.4.
    # e3: nodule 1, location 1, 4 mm -> 1 -> 1.0.
    assert scores == {"e1": 1.0, "e2": 0.4, "e3": 1.0}
    assert stub_judge.metrics(log)["ct_finebench_mean"] == pytest.approx(0.8)
