"""What the CRIMSON scorer records about each sample, as one typed record.

The scorer writes a `CrimsonRecord` into `Score.metadata` (`CrimsonRecord.written` refuses a key the record does not
declare) and its re-scoring reads it back with `CrimsonRecord.read`, so each key is named once, here. The metadata
holds exactly the fields the scorer set for that sample (a sample left unscored before the judge was asked has no
judge fields), the keys every release wrote; each field has a default, so a log that lacks one still reads.
"""

from __future__ import annotations

from pydantic import JsonValue

from radiology_tasks.scorers.score_record import ExpertFields, KeptAnswer, UnscoredFields


class CrimsonRecord(ExpertFields, KeptAnswer, UnscoredFields):
    """What the `crimson_judge` scorer records about one sample: the experts' fields, the kept answer and the judge's
    calls, the reasons of missing scores (`ExpertFields`, `KeptAnswer`, `UnscoredFields`), and these.

    Attributes:
        guidelines: The prompt included the rating guidelines.
        patient_context: The age, sex and indication the judge was shown, and the columns they were read from.
        generation: The generation outcome, where the candidate was generated in the run.
        judge_attempts: Every call, in order (`radiology_tasks.core.judge.Attempt.as_dict`).
        at_grammar_bound: Under a grammar, a list of the answer is as long as the grammar allows.
        crimson: How the score came about (`radiology_tasks.scorers.crimson.score.CrimsonOutcome.as_dict`).
        parsed_answers: The answer as read, its texts hashed, which a redacted log is re-scored from (the field is
            named `radiology_tasks.leaderboard.rules.PARSED_ANSWERS`).
        reading_problem: Where an answer that did not read breaks the contract.
    """

    guidelines: bool = True
    patient_context: dict[str, str | None] = {}
    generation: dict[str, JsonValue] | None = None
    judge_attempts: list[dict[str, JsonValue]] = []
    at_grammar_bound: bool | None = None
    crimson: dict[str, JsonValue] | None = None
    parsed_answers: dict[str, JsonValue] | None = None
    reading_problem: str | None = None
