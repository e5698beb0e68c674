"""How the leaderboard re-reads a stored GREEN/VERT judge answer, for every family that asks this judge.

The same reading under the same settings as the scorer (`radiology_tasks.report_judge.scorer`); for a redacted log,
which keeps no answer text, the values and problems the scorer read from the answer, kept beside its hash.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, cast

from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.task_options import logged_options
from radiology_tasks.core.unscored import judged_score
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.report_judge.records import JudgeRecord, ParsedAnswers
from radiology_tasks.scorers.report_judge.reading import (
    BOUNDED_KEYS,
    JUDGE_PROMPTS,
    JudgePrompt,
    ScoreReading,
    score_keys,
)

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence


def logged_prompt(task_args: Mapping[str, object]) -> JudgePrompt:
    """The judge prompt a run asked, as its log records ``-T prompt`` (``vert`` when it records none).

    Raises:
        ValueError: for a prompt the judge does not have.
    """
    prompt = task_args.get("prompt") or "vert"
    if prompt not in JUDGE_PROMPTS:
        raise ValueError(f"-T prompt={prompt!r} is not a judge prompt ({', '.join(JUDGE_PROMPTS)})")
    return prompt


def read_answer(run: RunEvidence, sample: SampleEvidence, answer: str, prompt: JudgePrompt) -> ScoreReading:
    """The scores the scorer reads from `answer` to `prompt`, under the run's reading options."""
    return logged_options(ReadingOptions, run.task_args).read(answer, prompt=prompt, candidate=sample.candidate)


def parsed_answer(run: RunEvidence, sample: SampleEvidence, prompt: JudgePrompt) -> dict[str, object]:
    """What the scorer read from the stored judge answer: each score's value and, for one it could not read, why
    (kept by a redacted log in place of the answer's text); {} for a sample without an answer."""
    answer = JudgeRecord.read(sample.metadata).judge_answer
    if answer is None:
        return {}
    reading = read_answer(run, sample, answer, prompt)
    return ParsedAnswers(values=reading.values, problems=reading.problems).model_dump()


def _kept_reading(record: JudgeRecord, keys: list[str]) -> tuple[dict[str, float | None], dict[str, str]]:
    """The values and problems a redacted sample keeps; an answer without them reads as nothing read."""
    parsed = record.parsed_answers or ParsedAnswers()
    return {key: parsed.values.get(key) for key in keys}, dict(parsed.problems)


def expected_scores(run: RunEvidence, sample: SampleEvidence, prompt: JudgePrompt) -> dict[str, float]:
    """The value dict the judge's scorer gives for the sample's stored answer to `prompt`, under the run's settings
    (for a redacted run, for the scores it keeps as read from that answer)."""
    keys = score_keys(prompt)
    record = JudgeRecord.read(sample.metadata)
    if record.judge_answer is None:
        values: dict[str, float | None] = dict.fromkeys(keys)
        missing = {key: (record.unscored.get(key, "unscored"), "") for key in keys}
    else:
        if run.redacted:
            values, problems = _kept_reading(record, keys)
        else:
            reading = read_answer(run, sample, record.judge_answer, prompt)
            values, problems = reading.values, reading.problems
        # The reason the scorer gave: `truncated` when the kept answer was counted as cut at its budget.
        missing = {key: (record.unreadable_reason, problem) for key, problem in problems.items()}
    policy = logged_options(JudgeOptions, run.task_args).unscored
    score = judged_score(values, missing, policy=policy, bounded=BOUNDED_KEYS)
    return cast("dict[str, float]", dict(score.as_dict()))
