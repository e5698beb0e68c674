"""What the judge-sensitivity scorer records about each variant: the GREEN/VERT judge's record, the variant it judged
and, for a two-pass judge, the first pass.

Written by `radiology_tasks.judge_sensitivity.scorer`, read by the task's metrics, its run report and its re-scoring
through `SensitivityRecord.read`.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict

from radiology_tasks.report_judge.records import JudgeRecord, StoredAttempt
from radiology_tasks.scorers.judge_sensitivity.sensitivity import VariantKind


class VariantSummary(BaseModel):
    """The variant a score is about (the sample's variant outcome without its text and attempts).

    Attributes:
        kind: ``error`` or ``paraphrase``.
        category: The injected error type (``a``-``f``), None for a paraphrase.
        n_errors: Injected errors (0 for a paraphrase).
        source_id: The reference it was made from.
        excluded: Why the variant could not be made (its exclusion group), None when it was made.
        exclusion_detail: The last attempt's problem, for an excluded variant.
        injector_calls: Calls to the injector and its checker for this variant.
    """

    model_config = ConfigDict(frozen=True, extra="ignore")

    kind: VariantKind
    category: str | None = None
    n_errors: int = 0
    source_id: str
    excluded: str | None = None
    exclusion_detail: str | None = None
    injector_calls: int = 0

    @classmethod
    def of(cls, outcome: Mapping[str, object]) -> VariantSummary:
        """The summary of a variant outcome as the solvers keep it (`VariantOutcome.metadata`)."""
        return cls.model_validate(outcome)


class SensitivityRecord(JudgeRecord):
    """The GREEN/VERT judge's record of one variant, with the variant and the task's settings.

    Attributes:
        passes: 1: the GREEN/VERT prompt alone; 2: the differences listed first.
        variant: The variant judged (None only in the empty record of a sample the scorer never scored).
        differences: The differences the first pass listed (None: none could be read).
        differences_constraint: How the first pass's answer was constrained.
        differences_attempts: Every call of the first pass.
    """

    passes: int = 1
    variant: VariantSummary | None = None
    differences: list[str] | None = None
    differences_constraint: str | None = None
    differences_attempts: list[StoredAttempt] = []

    @property
    def excluded(self) -> bool:
        """Whether the variant could not be made (so the judge was never asked about it)."""
        return self.variant is not None and self.variant.excluded is not None

    def answers(self) -> list[str]:
        """Every judge answer kept: the one the scores were read from, then each attempt's of both passes (a call
        the provider rejected holds its message, not an answer)."""
        kept = [self.judge_answer] if self.judge_answer is not None else []
        attempts = [*self.differences_attempts, *self.judge_attempts]
        return kept + [a.answer for a in attempts if a.answer is not None and a.stop_reason != "error"]
