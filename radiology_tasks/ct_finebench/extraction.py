"""The `qa_extraction` solver: the judge answers the reference's questions from the candidate report alone."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel
from pydantic import Field

from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.records import ReportPair
from radiology_tasks.ct_finebench.asking import IdOutcome, QAJudge
from radiology_tasks.scorers.ct_finebench.answers import read_extraction
from radiology_tasks.scorers.ct_finebench.contracts import ANSWER_MAX_CHARS, extraction_contract
from radiology_tasks.scorers.ct_finebench.questions import Question, numbered_questions
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render


class QAExtraction(StoreModel):
    """What the extraction step left in the sample's store for the scorer.

    Attributes:
        done: The solver ran for this sample.
        no_response: The candidate report was empty, so nothing was asked.
        answers: ``question id -> answer span``, or None when the candidate does not state it.
        unscored: ``question id -> [reason code, detail]`` for questions the judge gave no usable answer to.
        judge: Calls, tokens and attempts of the extraction judge (`IdOutcome.judge_metadata`), and under
            ``read_from`` which attempt each answer was read from (`answer_sources`).
    """

    done: bool = False
    no_response: bool = False
    answers: dict[str, str | None] = Field(default_factory=dict)
    unscored: dict[str, list[str]] = Field(default_factory=dict)
    judge: dict[str, Any] = Field(default_factory=dict)


def answer_sources(outcome: IdOutcome[Any]) -> dict[str, int]:
    """For each id the judge gave a value for, the index of the answer it was read from in the step's attempts.

    The index counts the attempts in the order `IdOutcome.judge_metadata` lists them, so a stored log says which
    of its stored answers each value came from, and the value can be read again from that answer alone.
    """
    sources: dict[str, int] = {}
    offset = 0
    for result in outcome.results:
        if result.reading is not None and result.reading_attempt is not None:
            for key in result.reading.values:
                if key in outcome.values:
                    sources[key] = offset + result.reading_attempt
        offset += len(result.attempts)
    return sources


def step_metadata(outcome: IdOutcome[Any]) -> dict[str, Any]:
    """A judge step's metadata for the log: `IdOutcome.judge_metadata` with ``read_from`` (`answer_sources`)."""
    return outcome.judge_metadata() | {"read_from": answer_sources(outcome)}


def extraction_prompt(questions: Sequence[Question], candidate: str) -> str:
    """The answer-extraction prompt asking `questions` about the `candidate` report (the lm-eval task uses it too).

    Every text is neutralised here: the candidate and the questions are data, not instructions.
    """
    return render(
        "ct_finebench/extract",
        questions=[{"id": question.id, "text": neutralize_candidate(question.qa.question)} for question in questions],
        candidate=neutralize_candidate(candidate),
        answer_max_chars=ANSWER_MAX_CHARS,
    )


def _prompt(questions: dict[str, Question], candidate: str, ids: Sequence[str]) -> str:
    return extraction_prompt([questions[key] for key in ids], candidate)


async def extract_answers(questions: list[Question], candidate: str, judge: QAJudge) -> IdOutcome[str | None]:
    """Ask the grader to answer `questions` from `candidate`: all at once, or one call per question.

    Returns:
        The answer (or None for "not stated") per question id, and the reason for each id without one.
    """
    by_id = {question.id: question for question in questions}
    return await judge.ask(partial(_prompt, by_id, candidate), extraction_contract, read_extraction, list(by_id))


@solver
def qa_extraction(judge: QAJudge | None = None) -> Solver:
    """Answer each of the reference's questions from the candidate report with the `grader` model.

    Run it after the solver that puts the candidate into the state (`replay_candidate`, `generate_report`).
    The answers go to the sample's store (`QAExtraction`) for the `qa_comparison` scorer.

    Args:
        judge: The question mode (``batch`` asks once per report, JSON keyed by question id; ``per_question``
            once per question, as the paper does) and the task's judge options, whole (constraint, answer budget,
            re-asks of an answer that cannot be read as a whole); None: batch mode and the default options.
    """
    judge = judge or QAJudge("batch", JudgeOptions())

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        pair = state.metadata_as(ReportPair)
        extraction = state.store_as(QAExtraction)
        candidate = state.output.completion if state.output else ""
        if not candidate.strip():
            extraction.no_response = True
        elif pair.qa:
            outcome = await extract_answers(numbered_questions(pair.qa), candidate, judge)
            extraction.answers = outcome.values
            extraction.unscored = {key: list(reason) for key, reason in outcome.missing.items()}
            extraction.judge = step_metadata(outcome)
        extraction.done = True
        return state

    return solve
