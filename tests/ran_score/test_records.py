"""The Ran Score's typed score record: the keys the scorer writes are pinned, and old logs read through it."""

from __future__ import annotations

import pytest

from radiology_tasks.ran_score.extraction import ReportLabels
from radiology_tasks.ran_score.records import (
    CANDIDATE_LABELS,
    GOLD_LABELS,
    REFERENCE_LABELS,
    UNSCORED_POLICY,
    RanRecord,
)
from radiology_tasks.ran_score.scorer import agreement_score
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from tests.old_logs import old_score_metadata

TAXONOMY = load_taxonomy()

WRITTEN = {
    "reference_labels",
    "candidate_labels",
    "label_outcomes",
    "gold_labels",
    "reference_source",
    "candidate_source",
    "reference_evidence",
    "candidate_evidence",
    "reference_unscored",
    "candidate_unscored",
    "reference_evidence_not_in_report",
    "candidate_evidence_not_in_report",
    "constraint",
    "judge_attempts",
    "judge_calls",
    "judge_retried",
    "judge_truncated",
    "judge_input_tokens",
    "judge_output_tokens",
    "unscored_policy",
    "unscored",
    "unscored_detail",
    "filled_in",
}
"""Every key `finding_agreement` writes, whichever path a sample takes (ran_score 1.2.0 wrote the same)."""


def _side(positive: set[str]) -> ReportLabels:
    return ReportLabels(source="file", labels={x.key: int(x.key in positive) for x in TAXONOMY.labels})


def test_the_scorer_writes_exactly_the_pinned_keys_on_every_path():
    read = {"reference": _side({"cardiomegaly"}), "candidate": _side(set())}
    unread = ReportLabels(
        source="judge",
        labels=dict.fromkeys(TAXONOMY.keys),
        unscored={key: ("no_response", "the candidate is empty") for key in TAXONOMY.keys},
    )
    for sides in (read, {**read, "candidate": unread}):
        for policy in ("worst", "exclude"):
            score = agreement_score(TAXONOMY, sides, None, policy, "text")
            assert set(score.metadata or {}) == WRITTEN
            assert RanRecord.read(score.metadata).unscored_policy == policy


def test_every_name_the_readers_use_is_a_field_of_the_record():
    for name in (REFERENCE_LABELS, CANDIDATE_LABELS, GOLD_LABELS, UNSCORED_POLICY, *WRITTEN):
        assert name in RanRecord.model_fields, name
    with pytest.raises(TypeError, match="RanRecord has no field label_score"):
        RanRecord.written({"label_score": 1.0})


def test_an_old_log_reads_through_the_record_and_back_unchanged():
    for metadata in old_score_metadata("ran_score.eval", "finding_agreement"):
        assert set(metadata) == WRITTEN
        assert RanRecord.written(metadata) == metadata
        record = RanRecord.read(metadata)
        assert record.reference_labels == metadata[REFERENCE_LABELS] and record.parsed_answers is None
