"""How the leaderboard re-scores a stored `ranking` log and ranks its judge by ranking-test accuracy.

Ranking runs are ranked on the judges' track: the judge (with the metric's prompt) is what a ranking test measures.
Each case is re-scored from what the log and the data hold: the cases are read again from the run's ``-T data``
(so an edited reference, candidate or expected order in the log changes nothing), each candidate's value comes
from its stored judge answer through the judge's own reading code (GREEN and VERT, `scorers.report_judge`), and
the case's outcome from the same arithmetic as the scorer's. A run whose metric's answers cannot be read here, or
whose data cannot be loaded here, is refused with the reason; runs of a lexical metric have no judge to rank.

On the board a case the judge left unscored counts as not ordered (0) in the ranked accuracy, so a judge cannot
raise its figure by failing on the hard cases; the tie and unscored shares are shown beside it.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, cast

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import attempt_answers
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.leaderboard.rules import FunctionRescoring, RankedScore
from radiology_tasks.ranking_tests.cases import RankingCase, data_path, read_cases
from radiology_tasks.ranking_tests.metric_choice import ChosenMetric, choose_metric
from radiology_tasks.ranking_tests.outcome import tolerance_param
from radiology_tasks.ranking_tests.scorer import ACCURACY, TIE, candidate_pair, judge_outcome
from radiology_tasks.scorers.report_judge.reading import JudgePrompt, read_scores

if TYPE_CHECKING:
    from radiology_tasks.leaderboard.evidence import RunEvidence, SampleEvidence

READABLE = ("green", "vert")
"""The judge metrics whose stored answers are read again here (their prompt shares the metric's name)."""


def _cases(run: RunEvidence) -> dict[str, RankingCase]:
    """The run's cases, read again from its ``-T data``, by id."""
    return {case.id: case for case in read_cases(data_path(str(run.task_args.get("data") or "demo")))}


def _chosen(run: RunEvidence, cases: list[RankingCase]) -> ChosenMetric:
    """The run's metric under its ``-T metric``, ``key`` and ``direction``, checked as the task checks them."""
    pairs = [candidate_pair(case, candidate) for case in cases for candidate in case.candidates]
    args = run.task_args
    return choose_metric(
        str(args.get("metric") or "rouge_l"), args.get("key"), args.get("direction") or "auto", JudgeOptions(), pairs
    )


def _value(chosen: ChosenMetric, text: str, record: dict[str, Any]) -> tuple[float | None, str | None]:
    """A candidate's value read again from its stored judge answer, or (None, reason) when it has none."""
    answer = (record.get("metadata") or {}).get("judge_answer")
    if not isinstance(answer, str):
        return None, str(record.get("reason") or "grader_failed")
    # Only a judge metric stores a judge answer, and its name is its prompt.
    reading = read_scores(answer, prompt=cast(JudgePrompt, chosen.name), candidate=text)
    value = reading.values.get(chosen.key)
    return (None, "invalid_response_format") if value is None else (float(value), None)


def expected_values(run: RunEvidence, sample: SampleEvidence) -> dict[str, float]:
    """The case's value dict as the scorer gives it, from the data's case and the stored judge answers; empty for
    a run `run_checks` refuses."""
    if run_checks(run):
        return {}
    cases = _cases(run)
    case = cases.get(sample.id)
    if case is None:
        return {}
    chosen = _chosen(run, list(cases.values()))
    stored = {str(r.get("label")): r for r in sample.metadata.get("candidates") or [] if isinstance(r, dict)}
    records = []
    for candidate in case.candidates:
        score, reason = _value(chosen, candidate.text, stored.get(candidate.label) or {})
        records.append({"label": candidate.label, "score": score, "reason": reason, "detail": None})
    value, _ = judge_outcome(
        case,
        records,
        higher_is_better=chosen.higher_is_better,
        tolerance=tolerance_param(run.task_args.get("tie_tolerance", 0.01)),
    )
    return value


def run_checks(run: RunEvidence) -> list[str]:
    """Why the run cannot be re-scored here, one line each; empty when it can."""
    try:
        cases = _cases(run)
        chosen = _chosen(run, list(cases.values()))
        tolerance_param(run.task_args.get("tie_tolerance", 0.01))
    except InputError as error:
        return [f"the run's cases or settings cannot be read here: {error}"]
    if not chosen.judged:
        return [f"-T metric={chosen.name} has no judge: ranking runs are ranked on the judges' track only"]
    if chosen.name not in READABLE:
        return [f"-T metric={chosen.name}: its judge's answers cannot be re-read here ({', '.join(READABLE)} can)"]
    return []


def answers(sample: SampleEvidence) -> list[str]:
    """Every judge answer the case stores, over all its candidates and attempts."""
    found = []
    for record in sample.metadata.get("candidates") or []:
        if isinstance(record, dict):
            found += [a for a in attempt_answers(record.get("metadata") or {}) if a is not None]
    return found


def judge_measures(run: RunEvidence) -> dict[str, dict[str, float]]:
    """Per case: accuracy (an unscored case counts 0), tie (NaN when unscored) and unscored (1 or 0)."""
    accuracy, tie, unscored = {}, {}, {}
    for sample in run.samples:
        right, tied = sample.values.get(ACCURACY), sample.values.get(TIE)
        missing = right is None or math.isnan(right)
        accuracy[sample.id] = 0.0 if right is None or math.isnan(right) else float(right)
        tie[sample.id] = math.nan if missing or tied is None else float(tied)
        unscored[sample.id] = float(missing)
    return {"accuracy": accuracy, "tie_share": tie, "unscored_share": unscored}


RESCORING = FunctionRescoring(
    ranked=RankedScore(ACCURACY),
    expected=expected_values,
    answers=answers,
    run_checks=run_checks,
    sample_ids=lambda run: list(_cases(run)),
    judge_measures=judge_measures,
)
