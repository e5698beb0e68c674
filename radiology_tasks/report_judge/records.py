"""What the GREEN/VERT judge scorer records about each sample, as one typed record.

The scorer writes a `JudgeRecord` into `Score.metadata` (`JudgeRecord.metadata`); its re-scoring, the run report and
the leaderboard read it back with `JudgeRecord.read`, so each key is named once, here. The metadata holds exactly the
fields the scorer set for that sample (a sample left unscored before the judge was asked has no judge fields), which
are the keys earlier releases wrote; every field a later release added has a default, so older logs read too.
"""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, ConfigDict, JsonValue

from radiology_tasks.core.judge import StoredAttempt as StoredAttempt
from radiology_tasks.core.judge import unreadable_reason
from radiology_tasks.scorers.report_judge.grammar import Detail
from radiology_tasks.scorers.report_judge.reading import JudgePrompt
from radiology_tasks.scorers.score_record import ExpertFields, KeptAnswer, UnscoredFields

R = TypeVar("R", bound="JudgeRecord")

CategoryCounts = dict[str, int]
"""Error counts keyed by category letter (a)-(f)."""


class _Record(BaseModel):
    """Frozen, and lenient about keys it does not know (a key a later release adds, or a redacted log's)."""

    model_config = ConfigDict(frozen=True, extra="ignore")


class ParsedAnswers(_Record):
    """What the scorer read from the kept answer, kept by a redacted log in place of the answer's text (under
    `radiology_tasks.leaderboard.rules.PARSED_ANSWERS`)."""

    values: dict[str, float | None] = {}
    problems: dict[str, str] = {}


class JudgeRecord(ExpertFields, KeptAnswer, UnscoredFields):
    """What the GREEN/VERT judge scorer records about one sample: the experts' fields, the kept answer and the
    judge's calls, the reasons of missing scores (`ExpertFields`, `KeptAnswer`, `UnscoredFields`), and these.

    Attributes:
        prompt: The judge prompt asked (None only in the empty record of a sample the scorer never scored).
        detail: `full` or `brief` answers.
        generation: The generation outcome, where the candidate was generated in the run.
        judge_attempts: Every call, in order.
        matched: Matched findings as the judge counted them (None: unreadable).
        predicted_significant: The judge's clinically significant errors per category (None: unreadable).
        predicted_insignificant: The judge's clinically insignificant errors per category (None: unreadable).
        formula_check: M / (M + 2S + 0.5I) from the judge's own counts, when all three read.
        filled_categories: Categories an error section left out, read as 0 (`-T missing_categories=zero`).
        quoted_sections: Sections ignored as quotations of the candidate.
        parsed_answers: What a redacted log keeps of the answer instead of its text.
    """

    prompt: JudgePrompt | None = None
    detail: Detail = "full"
    generation: dict[str, JsonValue] | None = None
    judge_attempts: list[StoredAttempt] = []
    matched: int | None = None
    predicted_significant: CategoryCounts | None = None
    predicted_insignificant: CategoryCounts | None = None
    formula_check: float | None = None
    filled_categories: dict[str, list[str]] = {}
    quoted_sections: list[str] = []
    parsed_answers: ParsedAnswers | None = None

    def metadata(self) -> dict[str, object]:
        """The fields set for this sample, as `Score.metadata` holds them."""
        return self.model_dump(exclude_unset=True)

    def extended(self: R, **fields: object) -> R:
        """This record with `fields` set as well, each checked as the record's fields are.

        Raises:
            TypeError: for a name that is not one of the record's fields (nothing the scorer writes goes unnamed).
        """
        unknown = sorted(set(fields) - set(type(self).model_fields))
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field {', '.join(unknown)}")
        return self.model_validate({**self.metadata(), **fields})

    @property
    def unreadable_reason(self) -> str:
        """The scorer's reason for each score the kept answer does not give: ``truncated`` when that answer was
        counted as cut at its budget (`radiology_tasks.core.judge.unreadable_reason`)."""
        kept, attempts = self.judge_answer_attempt, self.judge_attempts
        return unreadable_reason(kept is not None and 0 <= kept < len(attempts) and attempts[kept].truncated)
