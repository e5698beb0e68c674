"""The GREEN/VERT judge's score record: old logs read through it and back unchanged, its field names are the keys
the shared code writes and reads, and nothing is written under a name it does not declare."""

from __future__ import annotations

import pytest

from radiology_tasks.core.metrics import (
    EXPERT_GROUP,
    EXPERT_INSIGNIFICANT,
    EXPERT_RATERS,
    EXPERT_SCORE,
    EXPERT_SIGNIFICANT,
    PREDICTED_SIGNIFICANT,
    expert_metadata,
)
from radiology_tasks.core.records import ReportPair
from radiology_tasks.judge_sensitivity.records import SensitivityRecord
from radiology_tasks.leaderboard.rules import PARSED_ANSWERS
from radiology_tasks.report_judge.records import JudgeRecord
from radiology_tasks.scorers.score_record import ExpertFields
from tests.old_logs import old_score_metadata


@pytest.mark.parametrize(
    ("name", "record", "scorer"),
    [
        ("green.eval", JudgeRecord, "report_judge"),
        ("vert.eval", JudgeRecord, "report_judge"),
        ("vert_over_generation.eval", JudgeRecord, "report_judge"),
        ("judge_sensitivity.eval", SensitivityRecord, "sensitivity_judge"),
    ],
)
def test_an_old_log_reads_through_the_record_and_back_unchanged(name: str, record: type[JudgeRecord], scorer: str):
    for metadata in old_score_metadata(name, scorer):
        read = record.read(metadata)
        assert read.metadata() == metadata
        assert read.prompt == metadata["prompt"] and read.judge_answer == metadata["judge_answer"]
        # The study key was added after these logs were written: it reads as its default.
        assert EXPERT_GROUP not in metadata and read.expert_group is None


def test_the_record_names_the_keys_the_shared_code_writes_and_reads():
    pair = ReportPair(id="p", reference="Clear lungs.", candidate="Lungs clear.", expert={"score": 0.5})
    assert set(expert_metadata(pair)) == set(ExpertFields.model_fields)
    shared = {EXPERT_SCORE, EXPERT_SIGNIFICANT, EXPERT_INSIGNIFICANT, EXPERT_RATERS, EXPERT_GROUP}
    assert shared | {PREDICTED_SIGNIFICANT, PARSED_ANSWERS} <= set(JudgeRecord.model_fields)
    record = JudgeRecord(prompt="vert").extended(**expert_metadata(pair))
    assert record.expert_score == 0.5 and record.metadata() == {"prompt": "vert", **expert_metadata(pair)}


def test_nothing_is_written_under_a_name_the_record_does_not_declare():
    with pytest.raises(TypeError, match="JudgeRecord has no field judge_answr"):
        JudgeRecord(prompt="vert").extended(judge_answr="[Explanation]: ...")
    with pytest.raises(TypeError, match="SensitivityRecord has no field variants"):
        SensitivityRecord(prompt="vert").extended(variants=[])


def test_a_field_in_a_form_the_scorer_never_writes_is_refused_naming_it():
    with pytest.raises(ValueError, match="matched"):
        JudgeRecord.read({"prompt": "vert", "matched": "three"})
    with pytest.raises(ValueError, match="judge_answer_attempt"):
        JudgeRecord.read({"prompt": "vert", "judge_answer_attempt": True})


def _attempt(stop_reason: str, **more: object) -> dict[str, object]:
    return {"answer": None, "stop_reason": stop_reason, "max_tokens": 10, "temperature": 0.0, "seed": None, **more}


@pytest.mark.parametrize(
    ("attempts", "kept", "reason"),
    [
        ([_attempt("max_tokens")], 0, "truncated"),
        ([_attempt("unknown", truncated_by_tokens=True)], 0, "truncated"),
        # An attempt logged before `truncated_by_tokens` existed is judged by its stop reason alone.
        ([_attempt("stop")], 0, "invalid_response_format"),
        ([_attempt("max_tokens"), _attempt("stop")], 1, "invalid_response_format"),
        ([_attempt("max_tokens")], 3, "invalid_response_format"),
        ([_attempt("max_tokens")], None, "invalid_response_format"),
    ],
)
def test_the_reason_of_a_score_the_kept_answer_lacks(attempts: list, kept: int | None, reason: str):
    record = JudgeRecord.read({"prompt": "vert", "judge_attempts": attempts, "judge_answer_attempt": kept})
    assert record.unreadable_reason == reason


def test_a_sensitivity_record_keeps_every_answer_of_both_passes_and_says_whether_the_variant_was_made():
    variant = {"kind": "error", "category": "a", "n_errors": 1, "source_id": "R1", "excluded": None}
    record = SensitivityRecord.read(
        {
            "prompt": "vert",
            "variant": variant,
            "judge_answer": "kept",
            "judge_attempts": [_attempt("stop"), _attempt("stop", answer="second")],
            "differences_attempts": [_attempt("stop", answer="listed"), _attempt("error", answer="HTTP 400")],
        }
    )
    assert record.answers() == ["kept", "listed", "second"]
    assert not record.excluded
    assert SensitivityRecord.read({"prompt": "vert", "variant": {**variant, "excluded": "implausible"}}).excluded
    assert not SensitivityRecord.read({}).excluded  # a sample never scored records nothing
