"""CT-FineBench's typed score record: the keys the scorer writes are pinned, and old logs read through it."""

from __future__ import annotations

import pytest

from radiology_tasks.ct_finebench.records import QARecord
from tests.old_logs import old_score_metadata

EXPERT = {"expert_score", "expert_significant", "expert_insignificant", "expert_raters", "expert_group"}
MISSING = {"unscored", "unscored_detail", "filled_in"}
NOT_ASKED = {"qa_mode"} | EXPERT | MISSING
"""The keys of a report with an empty candidate, about which no judge is asked."""
GRADED = NOT_ASKED | {
    "questions_total",
    "questions_graded",
    "questions_unanswered",
    "questions_unscored",
    "questions",
    "judge_calls",
    "judge_input_tokens",
    "judge_output_tokens",
    "judge_retried",
    "judge_truncated",
    "extraction_judge",
    "comparison_judge",
}
"""The keys of a report whose questions were asked (the whole runs pin them on both paths)."""


def test_an_old_log_reads_through_the_record_and_back_unchanged():
    for metadata in old_score_metadata("ct_finebench.eval", "qa_comparison"):
        # Version 1.2.0 recorded the experts' score alone; a field it lacks reads as its default.
        assert set(metadata) == GRADED - EXPERT | {"expert_score"}
        assert QARecord.written(metadata) == metadata
        record = QARecord.read(metadata)
        assert record.expert_raters is None and record.questions_total == metadata["questions_total"]


def test_nothing_is_written_under_a_name_the_record_does_not_declare():
    assert GRADED <= set(QARecord.model_fields)
    with pytest.raises(TypeError, match="QARecord has no field report_grade"):
        QARecord.written({"report_grade": 1.0})
