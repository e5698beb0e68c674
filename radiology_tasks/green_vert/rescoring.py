"""How the leaderboard re-scores and ranks a stored GREEN or VERT log, with the scorer's own reading code."""

from __future__ import annotations

from typing import TYPE_CHECKING

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_CATEGORIES
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore
from radiology_tasks.report_judge.records import JudgeRecord
from radiology_tasks.report_judge.rescoring import expected_scores, logged_prompt, parsed_answer
from radiology_tasks.scorers.report_judge.reading import JudgePrompt, score_keys

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence


def _prompt(run: RunEvidence) -> JudgePrompt:
    return "green" if run.short_task == "green" else logged_prompt(run.task_args)


def parsed_answers(run: RunEvidence, sample: SampleEvidence) -> dict[str, object]:
    """What the scorer read from the stored judge answer (kept by a redacted log in place of its text)."""
    return parsed_answer(run, sample, _prompt(run))


def expected_values(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The value dict the GREEN/VERT scorer gives for this sample's stored judge answer, under the run's settings
    (for a redacted run, for the scores it keeps as read from that answer)."""
    return expected_scores(run, sample, _prompt(run))


def ranked(run: RunEvidence) -> RankedScore:
    """The prompt's main score: `green` for GREEN, `vert` (or the chosen prompt's) for VERT."""
    return RankedScore(score_keys(_prompt(run))[0])


def error_profile(run: RunEvidence) -> dict[str, dict[str, float]] | None:
    """Mean clinically significant errors per report in each category (a)-(f), as the judge counted them."""
    records = (JudgeRecord.read(s.metadata) for s in run.samples)
    counted = [record.predicted_significant for record in records if record.predicted_significant]
    if not counted:
        return None
    profile = {
        f"({c}) {CATEGORY_NAMES[c]}": sum(counts.get(c, 0) for counts in counted) / len(counted)
        for c in ERROR_CATEGORIES
    }
    return {"Clinically significant errors per report, by category": profile}


RESCORING = FunctionRescoring(
    ranked=ranked,
    expected=expected_values,
    breakdown=error_profile,
    parsed_answers=parsed_answers,
    agreement_key=lambda run: ranked(run).key,
)
