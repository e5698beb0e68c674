"""What the Ran Score scorer records about each sample, as one typed record.

The `finding_agreement` scorer writes a `RanRecord` into `Score.metadata` (`RanRecord.written` refuses a key the
record does not declare); the corpus metrics, the re-scoring and the run report read the fields it names here
(`side_field` builds a side's field name, so each is spelled once). The metadata holds exactly the keys every
release wrote; every field has a default, so a log that lacks one still reads.
"""

from __future__ import annotations

from typing import Literal

from pydantic import JsonValue

from radiology_tasks.scorers.score_record import JudgeCalls, UnscoredFields

Side = Literal["reference", "candidate"]
"""The two reports of a sample whose labels are compared."""

SidePart = Literal["labels", "source", "evidence", "unscored", "evidence_not_in_report"]
"""What the record keeps of each side."""


class RanRecord(JudgeCalls, UnscoredFields):
    """What the `finding_agreement` scorer records about one sample (labels keyed by label column): the judge's calls
    and the reasons of missing scores (`JudgeCalls`, `UnscoredFields`), and these.

    Attributes:
        reference_labels, candidate_labels: Each side's labels: 0, 1, or None where unknown.
        label_outcomes: ``tp``, ``fp``, ``fn`` or ``tn`` per label (None where a side is unknown).
        gold_labels: The radiologists' labels of the reference, where known.
        reference_source, candidate_source: Where each side's labels came from: ``judge``, ``cache`` or ``file``.
        reference_evidence, candidate_evidence: The passage quoted for each label read as 1.
        reference_unscored, candidate_unscored: ``reason code: detail`` for each unknown label.
        reference_evidence_not_in_report, candidate_evidence_not_in_report: Labels whose evidence is not found in
            the report.
        judge_attempts: Every judge call made for the sample, each with the report it read.
        unscored_policy: The ``-T unscored`` policy the sample was scored under (the corpus F1 applies it too).
        parsed_answers: What a redacted log keeps of the reasons instead of their text (the reason codes by side).
    """

    reference_labels: dict[str, int | None] | None = None
    candidate_labels: dict[str, int | None] | None = None
    label_outcomes: dict[str, str | None] = {}
    gold_labels: dict[str, int] | None = None
    reference_source: str | None = None
    candidate_source: str | None = None
    reference_evidence: dict[str, str] = {}
    candidate_evidence: dict[str, str] = {}
    reference_unscored: dict[str, str] = {}
    candidate_unscored: dict[str, str] = {}
    reference_evidence_not_in_report: list[str] = []
    candidate_evidence_not_in_report: list[str] = []
    judge_attempts: list[dict[str, JsonValue]] = []
    unscored_policy: str | None = None
    parsed_answers: dict[str, JsonValue] | None = None


def side_field(side: Side, part: SidePart) -> str:
    """The record's field holding `part` of `side` (``reference_labels``)."""
    return f"{side}_{part}"


REFERENCE_LABELS = side_field("reference", "labels")
CANDIDATE_LABELS = side_field("candidate", "labels")
GOLD_LABELS = "gold_labels"
UNSCORED_POLICY = "unscored_policy"
"""The ``-T unscored`` policy the sample was scored under (the corpus F1 applies it too)."""
