"""What the CT-FineBench scorer records about each sample, as one typed record.

The `qa_comparison` scorer writes a `QARecord` into `Score.metadata` (`QARecord.written` refuses a key the record
does not declare), so each key is named once, here. The metadata holds exactly the keys every release wrote (a
report with an empty candidate has no question or judge fields); every field has a default, so a log that lacks
one (a release before the experts' error counts were recorded) still reads.
"""

from __future__ import annotations

from pydantic import JsonValue

from radiology_tasks.scorers.score_record import ScoreRecord


class QARecord(ScoreRecord):
    """What the `qa_comparison` scorer records about one report.

    Attributes:
        qa_mode: ``batch`` or ``per_question``.
        expert_score, expert_significant, expert_insignificant, expert_raters, expert_group: What the experts said
            about the candidate (`radiology_tasks.core.metrics.expert_metadata`; None where they did not rate it).
        questions_total, questions_graded, questions_unanswered, questions_unscored: The report's question counts
            (`radiology_tasks.scorers.ct_finebench.report.ReportOutcome.counts`).
        questions: Each question's outcome (`radiology_tasks.scorers.ct_finebench.report.GradedQuestion.as_dict`).
        judge_calls, judge_input_tokens, judge_output_tokens, judge_retried, judge_truncated: The judge's cost over
            both steps.
        extraction_judge: The extraction step's calls, attempts and which answer each value was read from.
        comparison_judge: The comparison step's, None when no answer needed the judge.
        unscored, unscored_detail, filled_in: The reason code and detail of a missing score, and whether
            ``-T unscored=worst`` filled it in (`radiology_tasks.core.unscored.judged_score`).
        parsed_answers: What a redacted log keeps of the answers instead of their text.
    """

    qa_mode: str = "batch"
    expert_score: float | None = None
    expert_significant: dict[str, int | float] | None = None
    expert_insignificant: dict[str, int | float] | None = None
    expert_raters: int | None = None
    expert_group: str | None = None
    questions_total: int = 0
    questions_graded: int = 0
    questions_unanswered: int = 0
    questions_unscored: int = 0
    questions: list[dict[str, JsonValue]] = []
    judge_calls: int = 0
    judge_input_tokens: int = 0
    judge_output_tokens: int = 0
    judge_retried: bool = False
    judge_truncated: bool = False
    extraction_judge: dict[str, JsonValue] = {}
    comparison_judge: dict[str, JsonValue] | None = None
    unscored: dict[str, str] = {}
    unscored_detail: dict[str, str] = {}
    filled_in: list[str] = []
    parsed_answers: dict[str, JsonValue] | None = None
