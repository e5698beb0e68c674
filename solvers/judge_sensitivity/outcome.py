"""What became of one variant: every attempt with its raw answers and reason, and the variant or its exclusion."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, get_args

from radiology_tasks.scorers.judge_sensitivity.answers import AnswerProblem
from radiology_tasks.scorers.judge_sensitivity.checks import CheckProblem
from radiology_tasks.scorers.judge_sensitivity.preservation import PreservationProblem
from radiology_tasks.scorers.judge_sensitivity.sensitivity import ExclusionGroup
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec

INJECTOR_FAILURES = frozenset({"judge_context_exceeded", "judge_refused", "judge_request_rejected"})
"""Provider outcomes of an injector call that leave no answer (`radiology_tasks.core.judge.JudgeFailure`)."""

FINAL_FAILURES = frozenset({"judge_context_exceeded", "judge_request_rejected"})
"""Injector failures that another attempt with the same prompt cannot mend, so attempts stop there."""

_GROUPS: dict[str, ExclusionGroup] = {
    **{code: "invalid_answer" for code in (*get_args(AnswerProblem), "truncated")},
    **{code: "failed_check" for code in (*get_args(CheckProblem), *get_args(PreservationProblem))},
    **{code: "injector_failure" for code in INJECTOR_FAILURES},
    "implausible": "implausible",
    "unreadable_check": "unreadable_check",
    "check_failure": "unreadable_check",
    "too_few_sentences": "too_few_sentences",
}


def exclusion_group(problem: str) -> ExclusionGroup:
    """The `ExclusionGroup` of an attempt's problem code.

    Raises:
        KeyError: for a code no part of the pipeline produces.
    """
    return _GROUPS[problem]


@dataclass(frozen=True)
class AttemptRecord:
    """One attempt at a variant: the rewriting call, and the check call when the answer passed the code checks.

    Attributes:
        number: 1 for the first attempt.
        answer: The rewriting model's raw answer (the provider's message when the call failed).
        stop_reason: Inspect's stop reason of the call (``error`` when the provider rejected it).
        seed: Seed sent.
        temperature: Temperature sent.
        max_tokens: Token budget sent.
        output_tokens: Answer tokens the provider reported.
        problem: Why the attempt failed (an answer, check, checker or provider code), None if it succeeded.
        detail: What exactly was wrong.
        check_answers: The checker's raw answers (more than one when it was re-asked).
    """

    number: int
    answer: str
    stop_reason: str
    seed: int | None
    temperature: float | None
    max_tokens: int | None
    output_tokens: int | None = None
    problem: str | None = None
    detail: str = ""
    check_answers: tuple[str, ...] = ()


@dataclass
class VariantOutcome:
    """A variant, or why it could not be made, with every attempt.

    Attributes:
        spec: What was asked for.
        source_id: The reference's id.
        text: The variant report, None when excluded.
        excluded: The `ExclusionGroup` of the last attempt's problem when no attempt succeeded.
        detail: The last problem's code and detail.
        changes: The accepted answer's changes (injections: ``changes_detail``; paraphrases: the rewrites).
        attempts: Every attempt, in order.
        constraint: How the rewriting answers were constrained (`ConstrainedConfig.description`).
    """

    spec: VariantSpec
    source_id: str
    text: str | None = None
    excluded: ExclusionGroup | None = None
    detail: str = ""
    changes: list[dict[str, Any]] = field(default_factory=list)
    attempts: list[AttemptRecord] = field(default_factory=list)
    constraint: str | None = None

    def exclude(self, problem: str, detail: str) -> None:
        """Record that no attempt succeeded, the last one failing with `problem`."""
        self.excluded = exclusion_group(problem)
        self.detail = f"{problem}: {detail}"

    @classmethod
    def from_metadata(cls, record: dict[str, Any]) -> VariantOutcome:
        """The outcome back from its `metadata` form (as kept in an Inspect log)."""
        attempts = [AttemptRecord(**{**a, "check_answers": tuple(a["check_answers"])}) for a in record["attempts"]]
        return cls(
            spec=VariantSpec.from_metadata(record),
            source_id=record["source_id"],
            text=record["text"],
            excluded=record["excluded"],
            detail=record["exclusion_detail"] or "",
            changes=record["changes"],
            attempts=attempts,
            constraint=record["constraint"],
        )

    def metadata(self) -> dict[str, Any]:
        """JSON-able form for the sample's metadata and the log viewer."""
        return {
            **self.spec.metadata(self.source_id),
            "text": self.text,
            "excluded": self.excluded,
            "exclusion_detail": self.detail or None,
            "changes": self.changes,
            "attempts": [asdict(a) for a in self.attempts],
            "constraint": self.constraint,
            "injector_calls": len(self.attempts) + sum(len(a.check_answers) for a in self.attempts),
        }
