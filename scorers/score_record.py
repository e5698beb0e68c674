"""The base of a family's typed score record: what its scorer writes into `Score.metadata`, read back by name.

A family's record declares every key its scorer writes as a field with a default; the scorer writes through
`ScoreRecord.written` (a key the record does not declare is refused) and its readers go through `ScoreRecord.read`
(a key a later release adds, or one a redacted log keeps, is ignored; a field an older log lacks reads as its default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, StrictInt

R = TypeVar("R", bound="ScoreRecord")

PARSED_ANSWERS = "parsed_answers"
"""The score metadata key under which a record keeps what its scorer read from the judge's answers, which a redacted
log is re-scored from (the leaderboard's `radiology_tasks.leaderboard.rules.PARSED_ANSWERS` is this one)."""


class ScoreRecord(BaseModel):
    """Frozen, and lenient about keys it does not know when read."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    @classmethod
    def read(cls: type[R], metadata: Mapping[str, Any] | None) -> R:
        """The record a score's metadata holds (as a log stores it).

        Raises:
            ValueError: naming the field a log holds in a form the scorer never writes.
        """
        return cls.model_validate(dict(metadata or {}))

    @classmethod
    def written(cls, metadata: Mapping[str, Any]) -> dict[str, Any]:
        """`metadata` as the scorer writes it into `Score.metadata`: the fields it sets, each checked, no other.

        Raises:
            TypeError: for a key that is not one of the record's fields (nothing the scorer writes goes unnamed).
        """
        unknown = sorted(set(metadata) - set(cls.model_fields))
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {', '.join(unknown)}")
        return cls.model_validate(dict(metadata)).model_dump(exclude_unset=True)


class ExpertFields(ScoreRecord):
    """What the experts said about the candidate, as `radiology_tasks.core.metrics.expert_metadata` writes it (the
    field names are its keys; every field is None for a candidate the experts did not rate)."""

    expert_score: float | None = None
    expert_significant: dict[str, int | float] | None = None
    expert_insignificant: dict[str, int | float] | None = None
    expert_raters: int | None = None
    expert_group: str | None = None


class JudgeCalls(ScoreRecord):
    """How a sample's judge calls were made and what they cost, as every judged family's record keeps it.

    Attributes:
        constraint: How the judge's output was constrained.
        judge_retried: The judge was asked more than once.
        judge_truncated: Some answer was cut at its budget.
        judge_calls: Calls made.
        judge_input_tokens: Prompt tokens over the calls.
        judge_output_tokens: Answer tokens over the calls.
    """

    constraint: str | None = None
    judge_retried: bool = False
    judge_truncated: bool = False
    judge_calls: int = 0
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0


class KeptAnswer(JudgeCalls):
    """`JudgeCalls` of a record whose score is read from one kept answer of a named judge.

    Attributes:
        judge: The judge model.
        judge_answer: The answer the scores were read from (None when no call gave one).
        judge_answer_attempt: Its index in the record's ``judge_attempts``.
    """

    judge: str | None = None
    judge_answer: str | None = None
    judge_answer_attempt: StrictInt | None = None


class UnscoredFields(ScoreRecord):
    """Why scores are missing, as `radiology_tasks.core.unscored.judged_score` records it.

    Attributes:
        unscored: Reason code of each score not given.
        unscored_detail: What exactly was wrong, per such score.
        filled_in: Scores ``-T unscored=worst`` set to the bottom of their range.
    """

    unscored: dict[str, str] = {}
    unscored_detail: dict[str, str] = {}
    filled_in: list[str] = []
