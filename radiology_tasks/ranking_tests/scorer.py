"""The ranking scorer: score every candidate of a case with the chosen metric's own scorer, then check the order.

Each candidate is scored on a state of its own (the reference as target, the candidate as the output, its patient
context in the pair), exactly as the metric's task would score a report pair. A case with any unscored candidate
is unscored with that candidate's reason (a judge's failure is ``grader_failed``), never given an order.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.model import ModelName, ModelOutput
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import collect

from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.unscored import inspect_reason, unscored_reason
from radiology_tasks.ranking_tests.cases import Candidate, RankingCase
from radiology_tasks.ranking_tests.outcome import Outcome, case_outcome, relation_outcome

CANDIDATE_MODEL = "ranking/candidate"
"""The model name a candidate's state carries: the text was written by the case's author, not generated."""

ACCURACY, TIE = "accuracy", "tie"
"""Score keys: 1.0 when the case came out right (resp. as a tie), 0.0 otherwise; NaN when unscored."""

_COST = ("judge_calls", "judge_input_tokens", "judge_output_tokens")


def candidate_pair(case: RankingCase, candidate: Candidate) -> ReportPair:
    """The report pair a metric scores for one candidate, with the candidate's patient context."""
    return ReportPair(
        id=f"{case.id}/{candidate.label}",
        reference=case.reference,
        candidate=candidate.text,
        indication=candidate.indication,
        age=candidate.age,
    )


def _state(case: RankingCase, candidate: Candidate, epoch: int) -> TaskState:
    pair = candidate_pair(case, candidate)
    return TaskState(
        model=ModelName(CANDIDATE_MODEL),
        sample_id=pair.id,
        epoch=epoch,
        input=case.reference,
        messages=[],
        target=Target(case.reference),
        output=ModelOutput.from_content(model=CANDIDATE_MODEL, content=candidate.text),
        metadata=pair.model_dump(mode="json"),
    )


def candidate_record(label: str, text: str, key: str, score: Score) -> dict[str, Any]:
    """What the log keeps of one candidate's score: the ranked value, or why there is none, and the metric's
    own metadata (the judge's answers among it)."""
    value = score.value.get(key) if isinstance(score.value, dict) else None
    metadata = score.metadata or {}
    reason = unscored_reason(metadata, key)
    number = float(value) if isinstance(value, int | float) else math.nan
    if reason is None and math.isnan(number):
        reason = "scoring_failed"
    detail = ((metadata.get("unscored_detail") or {}).get(key)) if reason else None
    return {
        "label": label,
        "text": text,
        "score": None if reason else number,
        "reason": reason,
        "detail": detail,
        "explanation": score.explanation,
        "metadata": metadata,
    }


def judge_outcome(
    case: RankingCase, records: list[dict[str, Any]], *, higher_is_better: bool, tolerance: float
) -> tuple[dict[str, float], dict[str, Any]]:
    """The case's value dict and its outcome metadata from its candidates' records."""
    unscored = [r for r in records if r["reason"] is not None]
    if unscored:
        first = unscored[0]
        detail = f"candidate {first['label']}: {first['detail'] or first['reason']}"
        return {ACCURACY: math.nan, TIE: math.nan}, {
            "outcome": None,
            "unscored": dict.fromkeys((ACCURACY, TIE), first["reason"]),
            "unscored_detail": dict.fromkeys((ACCURACY, TIE), detail),
        }
    scores = {r["label"]: float(r["score"]) for r in records}
    relations = {
        str(relation): relation_outcome(relation, scores, higher_is_better=higher_is_better, tolerance=tolerance)
        for relation in case.relations
    }
    outcome: Outcome = case_outcome(list(relations.values()))
    value = {ACCURACY: float(outcome == "right"), TIE: float(outcome == "tie")}
    return value, {"outcome": outcome, "relations": relations, "unscored": {}, "unscored_detail": {}}


@scorer(metrics=[])
def ranking_scorer(inner: Scorer, metric: str, key: str, higher_is_better: bool, tie_tolerance: float) -> Scorer:
    """Score each candidate of the case with the metric's own scorer and check the case's expected relations.

    Args:
        inner: The scorer of the metric chosen with ``-T metric`` (one report pair at a time).
        metric: The metric's name.
        key: The score key ranked.
        higher_is_better: Whether a higher value of `key` is a better report.
        tie_tolerance: Scores at most this far apart are a tie.
    """

    async def score(state: TaskState, target: Target) -> Score:
        case = state.metadata_as(RankingCase)

        async def one(candidate: Candidate) -> dict[str, Any]:
            result = await inner(_state(case, candidate, state.epoch), Target(case.reference))
            if result is None:
                raise ValueError(f"metric {metric} gave no score for case '{case.id}', {candidate.label}")
            return candidate_record(candidate.label, candidate.text, key, result)

        records = await collect(*(one(candidate) for candidate in case.candidates))
        value, found = judge_outcome(case, records, higher_is_better=higher_is_better, tolerance=tie_tolerance)
        metadata: dict[str, Any] = {
            "category": case.category,
            "metric": metric,
            "key": key,
            **found,
            "candidates": records,
            **{name: sum(int(r["metadata"].get(name) or 0) for r in records) for name in _COST},
            "judge_retried": any(r["metadata"].get("judge_retried") for r in records),
            "judge_truncated": any(r["metadata"].get("judge_truncated") for r in records),
        }
        reason = found["unscored"].get(ACCURACY)
        shown = ", ".join(
            f"{r['label']}={r['score']:.4g}" if r["score"] is not None else f"{r['label']}=unscored ({r['reason']})"
            for r in records
        )
        return Score(
            value=value,
            # What was judged (the leaderboard compares judges only on the same candidates); scores go below.
            answer="\n".join(f"{c.label}: {c.text}" for c in case.candidates),
            explanation=f"{found['outcome'] or 'unscored'}: {shown}",
            reason=inspect_reason(reason) if reason else None,
            metadata=metadata,
        )

    return score
