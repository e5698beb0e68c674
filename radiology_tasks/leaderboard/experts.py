"""What the experts said about a run's samples, as the leaderboard trusts it, and the judge's score beside it.

Every scorer records the experts' annotation of a sample's candidate in its score metadata
(`radiology_tasks.core.metrics.expert_metadata`). A submitted log is untrusted: a submitter who raised
``expert_score`` where their judge scored high, or lowered ``expert_significant`` where it scored well, would raise
their judge's agreement. So where the leaderboard holds the run's data, it reads what the experts said from the
data's pairs, as the task built its samples from them, and a log that records anything else is refused, naming the
sample and the field (`expert_violations`). Only a redacted run whose data is not on this machine (ranked by its
recorded fingerprint) is read as its log recorded it, and its entry says that its data was not checked.

The judge's side and every agreement statistic come from `radiology_tasks.core.metrics` (`agreement_pairs`,
`preference_rows`), the code the runs' own summaries use, so the leaderboard and the run report cannot differ.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from radiology_tasks.core.agreement import Preferences, preference_outcome
from radiology_tasks.core.family import orientation
from radiology_tasks.core.metrics import (
    EXPERT_GROUP,
    EXPERT_INSIGNIFICANT,
    EXPERT_RATERS,
    EXPERT_SCORE,
    EXPERT_SIGNIFICANT,
    ExpertTruth,
    agreement_pairs,
    expert_metadata,
    preference_rows,
)
from radiology_tasks.core.unscored import is_filled_in
from radiology_tasks.leaderboard.run_data import data_checked, run_data_options

if TYPE_CHECKING:
    from inspect_ai.scorer import SampleScore

    from radiology_tasks.leaderboard.evidence import RunEvidence

EXPERT_FIELDS = (EXPERT_SCORE, EXPERT_SIGNIFICANT, EXPERT_INSIGNIFICANT, EXPERT_RATERS, EXPERT_GROUP)
"""The fields `expert_metadata` records, each checked against the data."""

Point = tuple[float, float]
"""(expert truth, judge score) of one sample, both oriented so that higher is better."""

_TOLERANCE = 1e-9


def rated_candidates(run: RunEvidence) -> bool:
    """Whether the judge saw the data's own candidates, the reports the experts rated (not those of ``-T candidates``
    nor reports written in the run)."""
    args = run.task_args
    return not (args.get("candidates") or args.get("generate") in (True, "true"))


def data_experts(run: RunEvidence) -> dict[str, dict[str, Any]]:
    """The expert fields of every pair the run's data options give, by id, loaded again from the data (the pairs
    of a run that judged the data's own candidates are its samples: nothing was folded into studies).

    Raises:
        Exception: whatever loading the data raises (`DataError`, `InputError`, a hub error).
    """
    from radiology_tasks.core.loading import load_options

    return {pair.id: expert_metadata(pair) for pair in load_options(run_data_options(run)).pairs}


def run_experts(run: RunEvidence) -> dict[str, dict[str, Any]]:
    """What the experts said about each sample's candidate, by sample id: from the data where the leaderboard holds
    it, else (a redacted run whose data is not here) as the log recorded it; nothing for candidates the experts did
    not rate.

    Raises:
        Exception: whatever loading the data raises.
    """
    if not rated_candidates(run):
        return {}
    if data_checked(run):
        return data_experts(run)
    return {sample.id: {name: sample.metadata.get(name) for name in EXPERT_FIELDS} for sample in run.samples}


def _same(logged: Any, expected: Any) -> bool:
    if isinstance(expected, Mapping):
        return (
            isinstance(logged, Mapping)
            and set(logged) == set(expected)
            and all(_same(logged[name], value) for name, value in expected.items())
        )
    numbers = (int, float)
    if isinstance(expected, numbers) and not isinstance(expected, bool):
        return isinstance(logged, numbers) and not isinstance(logged, bool) and abs(logged - expected) <= _TOLERANCE
    return bool(logged == expected)


def _shown(value: Any) -> str:
    return "none" if value is None else json.dumps(value, sort_keys=True)


def _changed(run: RunEvidence) -> bool:
    """Whether the run's data files are not those it recorded (by their SHA-256, where it recorded one)."""
    from radiology_tasks.core.task_data import data_fingerprint

    recorded = run.fingerprint.get("data_sha256")
    return recorded is not None and recorded != data_fingerprint(run_data_options(run))["data_sha256"]


def expert_violations(run: RunEvidence) -> list[str]:
    """One line per sample and expert field whose logged value is not the data's (none for a redacted run whose
    data is not here: it is ranked as its log recorded it, and labelled so).

    A field the log does not record (a log written before the field existed) is not compared: the leaderboard
    takes the field from the data whatever the log says. Candidates the experts did not rate (`rated_candidates`)
    have no annotation: every field must be empty. Data that changed since the run is not compared with (the
    data check names the change).
    """
    if not data_checked(run):
        return []
    unrated = dict.fromkeys(EXPERT_FIELDS)
    expected = {s.id: unrated for s in run.samples}
    try:
        if rated_candidates(run):
            if _changed(run):
                return []
            expected = data_experts(run)
    except Exception as error:  # noqa: BLE001 - any loading failure is reported as the line it gives
        return [f"the data cannot be loaded here to check the experts' annotations the log records: {error}"]
    lines = []
    for sample in run.samples:
        wanted = expected.get(sample.id)
        if wanted is None or sample.error is not None:
            continue  # a sample outside the data is the sample-set check's to report
        for name in EXPERT_FIELDS:
            if name in sample.metadata and not _same(sample.metadata[name], wanted[name]):
                logged = sample.metadata[name]
                lines.append(
                    f"sample {sample.id}: logged {name} {_shown(logged)} is not the data's {_shown(wanted[name])}"
                )
    return lines


def sample_scores(run: RunEvidence, key: str, experts: Mapping[str, Mapping[str, Any]]) -> list[SampleScore]:
    """One Inspect `SampleScore` per sample id: the judge's `key` (the mean over the epochs that have it; NaN when
    none has, or only a value `-T unscored=worst` filled in) with the experts' fields of `experts` as its metadata."""
    from inspect_ai.scorer import SampleScore, Score

    judged: dict[str, list[float]] = {}
    for sample in run.samples:
        values = judged.setdefault(sample.id, [])
        value = sample.values.get(key)
        if value is not None and not is_filled_in(sample.metadata, key):
            values.append(value)
    return [
        SampleScore(
            score=Score(
                value={key: sum(values) / len(values) if values else math.nan},
                metadata=dict(experts.get(sample_id) or {}),
            ),
            sample_id=sample_id,
        )
        for sample_id, values in judged.items()
    ]


def agreement_points(scores: list[SampleScore], key: str, truth: ExpertTruth) -> dict[str, Point]:
    """(expert truth, judge score) by sample id, over the samples that have both, each oriented so that higher is
    better (`radiology_tasks.core.metrics.agreement_pairs`): a positive tau always means agreement."""
    pairs = agreement_pairs(scores, key, truth)
    return {i: (expert, judge) for i, expert, judge in zip(pairs.ids, pairs.expert, pairs.judge, strict=True)}


def study_preferences(scores: list[SampleScore], key: str) -> list[Preferences]:
    """How the judge's `key` orders the candidates of each study the experts prefer one of (one `Preferences` per
    such study, in the order of its first sample id), within the score's tie tolerance."""
    studies: dict[str, list[tuple[str, float, float]]] = {}
    for row in preference_rows(scores, key):
        studies.setdefault(row[0], []).append(row)
    tolerance = orientation(key).tie_tolerance
    outcomes = [preference_outcome(rows, tie_tolerance=tolerance) for rows in studies.values()]
    return [outcome for outcome in outcomes if outcome.pairs]


def expert_points(run: RunEvidence, key: str) -> list[list[float]] | None:
    """(expert score, judge score) per sample where the experts rated the very candidate the judge saw, as given
    (not oriented), in sample id order, for a board's scatter plot; None when there is none."""
    scores = sample_scores(run, key, run_experts(run))
    pairs = agreement_pairs(scores, key, "score", higher_is_better=True)
    return [[expert, judge] for expert, judge in zip(pairs.expert, pairs.judge, strict=True)] or None
