"""How the leaderboard checks and ranks a stored CT-FineBench log.

Every value is worked out again from the judge answers the log stores, with the scorer's own code: each extracted
answer and each judge grade is read again (`read_extraction`, `read_grades`) from the stored attempt that
``read_from`` names, numeric answers are graded again in code (`graded_without_judge`), and the report score and
its value dict come from `report_outcome` and `judged_score` as in the scorer. The logged questions, scores and
run-level means are then compared with what follows from those answers, never trusted.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from inspect_ai.scorer import MetricProtocol, SampleScore, Score

from radiology_tasks.core.loading import load_options
from radiology_tasks.core.metrics import parse_failure_rate
from radiology_tasks.core.records import QAPair
from radiology_tasks.core.studies import as_run_used
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy, judged_score
from radiology_tasks.ct_finebench.asking import INVALID_RESPONSE_FORMAT
from radiology_tasks.ct_finebench.metrics import question_breakdown
from radiology_tasks.ct_finebench.scorer import (
    NO_RESPONSE,
    SCORE_KEY,
    graded_question,
    graded_without_judge,
    report_missing,
    unscored_question,
)
from radiology_tasks.leaderboard.rules import PARSED_ANSWERS, FunctionRescoring, RankedScore
from radiology_tasks.scorers.ct_finebench.answers import IdReading, read_extraction, read_grades
from radiology_tasks.scorers.ct_finebench.questions import ANSWER_TYPES, Question, answer_type, metric_name
from radiology_tasks.scorers.ct_finebench.report import GradedQuestion, report_outcome

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence

_TOLERANCE = 1e-9
_COMPARED_FIELDS = ("id", "extracted_answer", "answered", "grade", "graded_by")
_PROVIDER_ERROR = "error"


def ranked(run: RunEvidence) -> RankedScore:
    """CT-FineBench runs are ranked on the report's mean grade, a score in [0, 1]."""
    return RankedScore(SCORE_KEY)


def _attempts(step: Any) -> list[dict[str, Any]]:
    attempts = step.get("attempts") if isinstance(step, dict) else None
    return [a for a in attempts if isinstance(a, dict)] if isinstance(attempts, list) else []


def _answered(attempt: dict[str, Any]) -> bool:
    """Whether the attempt holds a judge's answer (not the message of a request the provider rejected)."""
    return attempt.get("stop_reason") != _PROVIDER_ERROR and isinstance(attempt.get("answer"), str)


def _accepted(attempt: dict[str, Any]) -> bool:
    """Whether the scorer read values from this attempt: an answer that read as a whole."""
    return _answered(attempt) and attempt.get("problem") is None


def _steps(sample: SampleEvidence) -> list[Any]:
    return [sample.metadata.get("extraction_judge"), sample.metadata.get("comparison_judge")]


def stored_answers(sample: SampleEvidence) -> list[str]:
    """Every judge answer the sample stores, from both steps (extraction, comparison), retries included."""
    return [a["answer"] for step in _steps(sample) for a in _attempts(step) if _answered(a)]


@dataclass(frozen=True)
class _Step:
    """One judge step as the log stores it: its attempts, and which attempt each id's value was read from."""

    attempts: list[dict[str, Any]]
    read_from: dict[str, Any]

    @classmethod
    def of(cls, step: Any) -> _Step:
        sources = step.get("read_from") if isinstance(step, dict) else None
        return cls(_attempts(step), sources if isinstance(sources, dict) else {})

    def value(self, key: str, read: Callable[[str, Sequence[str]], IdReading[Any]]) -> tuple[bool, Any]:
        """(True, value) when the attempt ``read_from`` names gives `key` a value read again with `read`."""
        index = self.read_from.get(key)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.attempts):
            return False, None
        attempt = self.attempts[index]
        if not _accepted(attempt):
            return False, None
        reading = read(attempt["answer"], [key])
        return (True, reading.values[key]) if key in reading.values else (False, None)

    def first_accepted_gives(self, key: str, read: Callable[[str, Sequence[str]], IdReading[Any]]) -> bool:
        """Whether the step's first answer read as a whole gives `key` a value.

        In ``batch`` mode that answer is the one to the first call, which asked about every id of the step.
        """
        first = next((a for a in self.attempts if _accepted(a)), None)
        return first is not None and key in read(first["answer"], [key]).values


@dataclass(frozen=True)
class Rescored:
    """A sample worked out again from its stored judge answers.

    Attributes:
        questions: Each question's outcome as the scorer would give it.
        score: The scorer's `Score` for those outcomes (value and unscored reasons).
        problems: What the stored answers contradict in the log, one line each (without the sample id).
    """

    questions: list[GradedQuestion]
    score: Score
    problems: list[str]


def _question(logged: dict[str, Any], number: int) -> Question:
    """The question a logged outcome was about, with the answer type the scorer used for it."""
    kind = logged.get("answer_type")
    qa = QAPair(
        question=str(logged.get("question") or ""),
        answer=str(logged.get("reference_answer") or ""),
        finding=_text(logged.get("finding")),
        attribute=_text(logged.get("attribute")),
        attribute_type=kind if kind in ANSWER_TYPES else None,
    )
    return Question(f"q{number}", qa, answer_type(qa))


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def _reason(logged: dict[str, Any]) -> str:
    return str(logged.get("unscored_reason") or INVALID_RESPONSE_FORMAT)


def _empty_candidate(sample: SampleEvidence, policy: UnscoredPolicy) -> Rescored:
    """An empty candidate: nothing was asked, and the score is missing with ``no_response``."""
    score = judged_score({SCORE_KEY: None}, NO_RESPONSE, policy=policy, bounded={SCORE_KEY})
    problems = []
    if sample.judge_calls or (sample.candidate or "").strip():
        problems.append(
            "logged as an empty candidate report with no questions asked, yet it has a report or judge calls"
        )
    return Rescored([], score, problems)


def _dropped_sources(
    questions: list[Question], step: _Step, without: set[str], read: Callable[[str, Sequence[str]], IdReading[Any]]
) -> list[str]:
    return [
        f"question {q.id} is logged without an answer, but the judge's first answer gives one"
        for q in questions
        if q.id in without and step.first_accepted_gives(q.id, read)
    ]


def _event_problems(sample: SampleEvidence) -> list[str]:
    """Whether the stored answers are exactly the judge's answers in this sample (none dropped or repeated)."""
    if not sample.has_events:
        return []
    returned = Counter(call.completion for call in sample.judge_calls if call.completion)
    stored = Counter(answer for answer in stored_answers(sample) if answer)
    if returned == stored:
        return []
    dropped, extra = sum((returned - stored).values()), sum((stored - returned).values())
    return [
        f"stores {sum(stored.values())} judge answers but the judge returned {sum(returned.values())} "
        f"({dropped} not stored, {extra} not returned)"
    ]


def rescore_sample(run: RunEvidence, sample: SampleEvidence) -> Rescored:
    """Work out a sample's question outcomes and score again from the judge answers it stores.

    A redacted run keeps hashes of the answers, not their text: its score is worked out from the outcomes it
    logs as read from them, and its answers are checked against the judge's returns by hash only.
    """
    policy = check_policy(str(run.task_args.get("unscored") or "worst"))
    logged = sample.metadata.get("questions")
    if not isinstance(logged, list):
        return _empty_candidate(sample, policy)
    entries = [entry if isinstance(entry, dict) else {} for entry in logged]
    questions = [_question(entry, number) for number, entry in enumerate(entries, start=1)]
    if run.redacted:
        named = _parsed_attributes(sample)
        entries = [{**entry, "attribute": named.get(str(entry.get("id")), entry.get("attribute"))} for entry in entries]
        questions = [_question(entry, number) for number, entry in enumerate(entries, start=1)]
        logged_outcomes = [_logged_outcome(question, entry) for question, entry in zip(questions, entries)]
        return Rescored(logged_outcomes, _report_score(logged_outcomes, policy), _event_problems(sample))
    extraction = _Step.of(sample.metadata.get("extraction_judge"))
    comparison = _Step.of(sample.metadata.get("comparison_judge"))

    answers: dict[str, str | None] = {}
    unscored: dict[str, tuple[str, str]] = {}
    for question, entry in zip(questions, entries):
        found, value = extraction.value(question.id, read_extraction)
        if found:
            answers[question.id] = value
        else:
            unscored[question.id] = (_reason(entry), "")

    outcomes: list[GradedQuestion] = []
    judged: list[Question] = []
    for question, entry in zip(questions, entries):
        outcome = graded_without_judge(question, answers, unscored)
        if outcome is None:
            judged.append(question)
            found, grade = comparison.value(question.id, read_grades)
            extracted = answers[question.id]
            outcome = (
                graded_question(question, extracted, answered=True, grade=grade, graded_by="judge")
                if found
                else unscored_question(question, extracted, _reason(entry), "")
            )
        outcomes.append(outcome)

    score = _report_score(outcomes, policy)
    problems = _question_problems(entries, outcomes) + _event_problems(sample)
    if (run.task_args.get("qa_mode") or "batch") == "batch":
        problems += _dropped_sources(questions, extraction, set(unscored), read_extraction)
        ungraded = {o.id for o in outcomes if o.graded_by is None and o.answered is True}
        problems += _dropped_sources(judged, comparison, ungraded, read_grades)
    return Rescored(outcomes, score, problems)


def _report_score(outcomes: list[GradedQuestion], policy: UnscoredPolicy) -> Score:
    """The scorer's `Score` for a report's question outcomes."""
    report = report_outcome(outcomes)
    return judged_score(
        {SCORE_KEY: report.score},
        report_missing(report),
        policy=policy,
        bounded={SCORE_KEY},
        metadata={"questions": [outcome.as_dict() for outcome in outcomes]},
    )


def parsed_answers(run: RunEvidence, sample: SampleEvidence) -> dict[str, Any]:
    """Each question's attribute by id, in the form the run's metrics name it (``interval_change``), which a
    redacted log keeps in place of the attribute's text; each question's outcome (whether the candidate answers,
    its grade, who graded it) is in the score metadata already."""
    logged = sample.metadata.get("questions")
    entries = [entry for entry in logged if isinstance(entry, dict)] if isinstance(logged, list) else []
    return {
        "attribute": {str(e.get("id")): metric_name(e["attribute"]) for e in entries if e.get("attribute") is not None}
    }


def _parsed_attributes(sample: SampleEvidence) -> dict[str, str]:
    parsed = sample.metadata.get(PARSED_ANSWERS)
    named = parsed.get("attribute") if isinstance(parsed, dict) else None
    return {str(k): str(v) for k, v in named.items()} if isinstance(named, dict) else {}


def _logged_outcome(question: Question, entry: dict[str, Any]) -> GradedQuestion:
    """A question's outcome as a redacted log keeps it: what the scorer read from the judge answers (whether the
    candidate answers, the grade, who graded it, the reason when unscored), whose texts are hashes."""
    grade = entry.get("grade")
    graded_by = entry.get("graded_by")
    return graded_question(
        question,
        _text(entry.get("extracted_answer")),
        answered=entry.get("answered"),
        grade=float(grade) if isinstance(grade, int | float) and not isinstance(grade, bool) else None,
        graded_by=graded_by if graded_by in ("code", "judge") else None,
        unscored_reason=_text(entry.get("unscored_reason")),
    )


def _question_problems(entries: list[dict[str, Any]], outcomes: list[GradedQuestion]) -> list[str]:
    """One line per logged question field the stored judge answers contradict."""
    lines = []
    for entry, outcome in zip(entries, outcomes):
        recomputed = outcome.as_dict()
        for name in _COMPARED_FIELDS:
            if entry.get(name) != recomputed[name]:
                lines.append(
                    f"question {outcome.id} logged {name} {entry.get(name)!r} but its stored judge answers give "
                    f"{recomputed[name]!r}"
                )
    return lines


def expected_values(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict the `qa_comparison` scorer gives for the sample's stored judge answers, under the run's
    ``-T`` settings."""
    # The scorer's value is a dict of numbers (`judged_score`), never a scalar.
    return dict(cast(dict[str, float], rescore_sample(run, sample).score.value))


def _scored(run: RunEvidence) -> list[tuple[SampleEvidence, Rescored]]:
    return [(sample, rescore_sample(run, sample)) for sample in run.samples if sample.error is None]


def _same(logged: float | None, expected: float) -> bool:
    if logged is None or (isinstance(logged, float) and math.isnan(logged)):
        return math.isnan(expected)
    return not math.isnan(expected) and abs(logged - expected) <= _TOLERANCE


def _shown(value: float | None) -> str:
    return "missing" if value is None or math.isnan(value) else f"{value:.6g}"


def run_level_values(rescored: list[Rescored]) -> dict[str, float]:
    """The task's question breakdown and unscored counts, computed by its own metrics over the rescored samples."""
    scores = [SampleScore(score=r.score, sample_id=str(n)) for n, r in enumerate(rescored)]
    values: dict[str, float] = {}
    for metric in (question_breakdown(), parse_failure_rate(SCORE_KEY)):
        computed = cast(MetricProtocol, metric)(scores)
        values |= {str(key): float(value) for key, value in cast(dict[str, float], computed).items()}
    return values


def run_checks(run: RunEvidence) -> list[str]:
    """Lines for logged question outcomes and run-level means that the stored judge answers do not give.

    Per sample: each logged question's extracted answer, grade and how it was graded, that no stored answer is
    missing or added, and (``batch`` mode) that no question was left without the answer the judge gave it. Per
    run: each mean of the question breakdown (by answer type, by attribute, unanswered share, counts) and each
    unscored count the log holds, when each sample was scored once (one epoch).
    """
    scored = _scored(run)
    lines = [f"sample {sample.id}: {problem}" for sample, rescored in scored for problem in rescored.problems]
    if len({sample.id for sample, _ in scored}) < len(scored):
        return lines
    for key, expected in run_level_values([rescored for _, rescored in scored]).items():
        # From version 1.4.0 these figures are the report's (`radiology-tasks report`), not the log's: a figure a
        # log holds (an older run's) is compared, one it does not hold claims nothing.
        if key in run.results and not _same(run.results[key], expected):
            logged = run.results[key]
            lines.append(
                f"run: logged {key} {_shown(logged)} but the samples' stored judge answers give {_shown(expected)}"
            )
    return lines


def breakdown(run: RunEvidence) -> dict[str, dict[str, float]] | None:
    """Mean grade of every graded question in the run, by answer type and by attribute."""
    by_type: dict[str, list[float]] = defaultdict(list)
    by_attribute: dict[str, list[float]] = defaultdict(list)
    for _, rescored in _scored(run):
        for outcome in rescored.questions:
            if outcome.grade is not None:
                by_type[outcome.answer_type].append(outcome.grade)
                by_attribute[outcome.attribute or "unspecified"].append(outcome.grade)
    if not by_type:
        return None
    return {
        "Mean grade by answer type": {name: sum(g) / len(g) for name, g in sorted(by_type.items())},
        "Mean grade by attribute": {name: sum(g) / len(g) for name, g in sorted(by_attribute.items())},
    }


def sample_ids(run: RunEvidence) -> list[str]:
    """The ids of the run's data rows (its studies, when it folded them) that have questions: the task leaves the
    others out before it scores."""
    from radiology_tasks.leaderboard.checks import run_data_options  # the leaderboard imports this module

    options = run_data_options(run)
    loaded = load_options(DataOptions(**{**options.__dict__, "candidates": None}))
    return [pair.id for pair in as_run_used(loaded.pairs, run.metadata.get("data") or {}) if pair.qa]


RESCORING = FunctionRescoring.of_module(__name__, expected=expected_values, answers=stored_answers)
