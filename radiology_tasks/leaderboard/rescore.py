"""Recompute every score of a log from what it stores, and name the samples whose score differs.

A score that was edited after the run no longer follows from the judge's answer (or, for a metric without a
judge, the texts) stored next to it. Each family says how in its `radiology_tasks.leaderboard.rules.Rescoring`, using
the task's own reading code, so the check cannot drift from the scorer; a task whose family has none cannot be
submitted.
"""

from __future__ import annotations

import math

from radiology_tasks.core.family import Family, families, family_of
from radiology_tasks.leaderboard.evidence import RunEvidence
from radiology_tasks.leaderboard.rules import ExpertAgreement, RankedScore, Rescoring, Submittable

_TOLERANCE = 1e-9


def family_rescoring(family: Family, task: str) -> Rescoring | None:
    """The rules for `task` of `family`, or None when the family or that task cannot be submitted."""
    return family.rescoring(task) if isinstance(family, Submittable) else None


def _rescored_tasks(family: Family) -> tuple[str, ...]:
    return tuple(task for task in family.tasks if family_rescoring(family, task) is not None)


def rescorable_tasks() -> list[str]:
    """Every task whose logs can be submitted, sorted."""
    return sorted(task for family in families() for task in _rescored_tasks(family))


def _not_rescorable(run: RunEvidence) -> str:
    return f"task {run.task} cannot be submitted yet (supported: {', '.join(rescorable_tasks())})"


def task_family(run: RunEvidence) -> Family:
    """The family of `run`'s task, when its logs can be submitted.

    Raises:
        ValueError: for a task of no family, or of a family without re-scoring.
    """
    family = family_of(run.short_task)
    if family is None or run.short_task not in _rescored_tasks(family):
        raise ValueError(_not_rescorable(run))
    return family


def rescoring(run: RunEvidence) -> Rescoring:
    """The re-scoring rules of `run`'s task (see `task_family` for the errors)."""
    rules = family_rescoring(task_family(run), run.short_task)
    assert rules is not None
    return rules


def ranked_score(run: RunEvidence) -> RankedScore:
    """The score `run`'s task is ranked on (see `task_family` for the errors)."""
    return rescoring(run).ranked(run)


def _same(logged: float | None, expected: float) -> bool:
    if logged is None:
        return math.isnan(expected)
    return not math.isnan(expected) and abs(logged - expected) <= _TOLERANCE


def _shown(value: float | None) -> str:
    return "missing" if value is None or math.isnan(value) else f"{value:.6g}"


def rescoring_violations(run: RunEvidence) -> list[str]:
    """One line for each sample whose logged score is not what its stored answers give, then run-level lines.

    Also checks that every stored judge answer is one the judge's model events actually returned (when the log
    keeps its events), so an answer rewritten to match a forged score is caught as well, and, for a task whose
    judges are ranked by agreement with the experts, that the experts' annotations it logs are the data's
    (`radiology_tasks.leaderboard.experts.expert_violations`).
    """
    try:
        rules = rescoring(run)
    except ValueError as error:
        return [str(error)]
    source = "stored judge answer gives" if rules.needs_judge() else "stored texts give"
    lines = []
    for sample in run.samples:
        if sample.error is not None:
            continue
        for key, value in rules.expected(run, sample).items():
            logged = sample.values.get(key)
            if not _same(logged, value):
                lines.append(f"sample {sample.id}: logged {key} {_shown(logged)} but its {source} {_shown(value)}")
        returned = {call.completion for call in sample.judge_calls}
        if sample.has_events and any(answer not in returned for answer in rules.answers(sample)):
            lines.append(f"sample {sample.id}: the stored judge answer is not one the judge returned in this run")
    if isinstance(rules, ExpertAgreement):
        from radiology_tasks.leaderboard.experts import expert_violations

        lines += expert_violations(run)
    return lines + rules.run_checks(run)
