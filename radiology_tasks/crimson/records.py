"""What the CRIMSON scorer records about each sample, as one typed record.

The scorer writes a `CrimsonRecord` into `Score.metadata` (`CrimsonRecord.written` refuses a key the record does not
declare) and its re-scoring reads it back with `CrimsonRecord.read`, so each key is named once, here. The metadata
holds exactly the fields the scorer set for that sample (a sample left unscored before the judge was asked has no
judge fields), the keys every release wrote; each field has a default, so a log that lacks one still reads.
"""

from __future__ import annotations

from pydantic import JsonValue, StrictInt

from radiology_tasks.scorers.score_record import ScoreRecord


class CrimsonRecord(ScoreRecord):
    """What the `crimson_judge` scorer records about one sample.

    Attributes:
        guidelines: The prompt included the rating guidelines.
        patient_context: The age, sex and indication the judge was shown, and the columns they were read from.
        expert_score, expert_significant, expert_insignificant, expert_raters, expert_group: What the experts said
            about the candidate (`radiology_tasks.core.metrics.expert_metadata`; None where they did not rate it).
        generation: The generation outcome, where the candidate was generated in the run.
        judge: The judge model.
        constraint: How the judge's answer was constrained.
        judge_answer: The answer the score was read from (None when no call gave one).
        judge_answer_attempt: Its index in `judge_attempts`.
        judge_attempts: Every call, in order (`radiology_tasks.core.judge.Attempt.as_dict`).
        judge_retried, judge_truncated, judge_calls, judge_input_tokens, judge_output_tokens: The judge's cost.
        at_grammar_bound: Under a grammar, a list of the answer is as long as the grammar allows.
        crimson: How the score came about (`radiology_tasks.scorers.crimson.score.CrimsonOutcome.as_dict`).
        parsed_answers: The answer as read, its texts hashed, which a redacted log is re-scored from (the field is
            named `radiology_tasks.leaderboard.rules.PARSED_ANSWERS`).
        reading_problem: Where an answer that did not read breaks the contract.
        unscored, unscored_detail, filled_in: The reason code and detail of a missing score, and whether
            ``-T unscored=worst`` filled it in (`radiology_tasks.core.unscored.judged_score`).
    """

    guidelines: bool = True
    patient_context: dict[str, str | None] = {}
    expert_score: float | None = None
    expert_significant: dict[str, int | float] | None = None
    expert_insignificant: dict[str, int | float] | None = None
    expert_raters: int | None = None
    expert_group: str | None = None
    generation: dict[str, JsonValue] | None = None
    judge: str | None = None
    constraint: str | None = None
    judge_answer: str | None = None
    judge_answer_attempt: StrictInt | None = None
    judge_attempts: list[dict[str, JsonValue]] = []
    judge_retried: bool = False
    judge_truncated: bool = False
    judge_calls: int = 0
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0
    at_grammar_bound: bool | None = None
    crimson: dict[str, JsonValue] | None = None
    parsed_answers: dict[str, JsonValue] | None = None
    reading_problem: str | None = None
    unscored: dict[str, str] = {}
    unscored_detail: dict[str, str] = {}
    filled_in: list[str] = []
