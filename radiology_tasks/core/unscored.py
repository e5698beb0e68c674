"""One convention for scores a judge did not give, shared by every task family.

A scorer reads what it can and states, per score key, why the others are missing. `judged_score` turns that
into an Inspect `Score`:

- ``Score.value`` keeps every key. A missing score is NaN (``-T unscored=exclude``), or the bottom of its
  [0, 1] range (``-T unscored=worst``, for keys the family declares bounded; error counts stay NaN).
- ``Score.metadata["unscored"]`` maps each missing key to its reason code, ``["unscored_detail"]`` to the
  detail, and ``["filled_in"]`` lists the keys `worst` filled in. Agreement metrics never correlate those.
- ``Score.reason`` says, in Inspect's own codes, who failed when the main score is missing: ``grader_failed``
  for the judge, ``scoring_failed`` when there was nothing to measure (see `SCORING_REASONS`), ``no_response``
  for the model under test that gave no report. Inspect's tools count the first against the instrument and
  the second against the generator; the project's finer code is in the metadata.

The project's reason codes: `ANSWER_FORMAT_REASONS` (the judge answered but the score could not be read), the
judge failures of `radiology_tasks.core.judge` (``judge_context_exceeded``, ``judge_refused``,
``judge_request_rejected``), ``no_response`` (an empty candidate) and the generator's own failures
(``generator_context_exceeded``, ``generator_request_rejected``). Logs of task versions before Inspect's codes
were used hold the finer code in ``Score.reason`` too; every reader here takes it from the metadata, so those
logs read the same.

Why `worst` exists: means over scored samples only let a report generator drop its worst reports from its
own mean by writing text that makes the judge's answer unreadable. Ranking generators needs `worst`.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any, Literal, get_args

from inspect_ai.scorer import Score, ScoreReason

from radiology_tasks.core.errors import InputError

UnscoredPolicy = Literal["worst", "exclude"]
"""What a missing bounded score counts as in the means: the bottom of its range, or nothing."""

UNSCORED_POLICIES: tuple[UnscoredPolicy, ...] = get_args(UnscoredPolicy)

WORST = 0.0
"""The value `worst` fills in: the bottom of every bounded [0, 1] score."""

ANSWER_FORMAT_REASONS = frozenset({"invalid_response_format", "truncated"})
"""Reasons that mean the judge answered but the score could not be read (counted by ``parse_failure_rate``)."""

GENERATOR_REASONS = frozenset({"no_response", "generator_context_exceeded", "generator_request_rejected"})
"""Reasons that mean the model under test gave no report to judge."""

SCORING_REASONS = frozenset({"variant_excluded", "no_questions"})
"""Reasons that mean there was nothing the scorer could measure: a perturbed variant that failed its checks, a
report without questions. No model failed."""


def inspect_reason(code: str) -> ScoreReason:
    """Inspect's `Score.reason` for one of the project's reason codes: who failed, the generator or the judge.

    ``no_response`` for the model under test, ``scoring_failed`` when there was nothing to measure, and
    ``grader_failed`` for every failure of the judge (an unreadable or truncated answer, a refusal, a rejected
    request).
    """
    if code in GENERATOR_REASONS:
        return "no_response"
    return "scoring_failed" if code in SCORING_REASONS else "grader_failed"


def check_policy(unscored: str) -> UnscoredPolicy:
    """Validate ``-T unscored``.

    Raises:
        InputError: for anything but ``worst`` or ``exclude``.
    """
    if unscored not in UNSCORED_POLICIES:
        raise InputError(f"-T unscored must be one of {', '.join(UNSCORED_POLICIES)}; got {unscored!r}")
    return unscored


def judged_score(
    values: Mapping[str, float | None],
    missing: Mapping[str, tuple[str, str]],
    *,
    policy: UnscoredPolicy,
    bounded: Collection[str],
    answer: str | None = None,
    explanation: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Score:
    """Build a score from the values read and the reasons for those that were not.

    Args:
        values: Every score key, the main one first; None for a score that could not be had.
        missing: ``key -> (reason code, detail)`` for every key whose value is None.
        policy: `UnscoredPolicy` of the task.
        bounded: Keys in [0, 1] that ``worst`` may fill in (error counts are never filled in).
        answer: `Score.answer` (the candidate report).
        explanation: `Score.explanation` (the judge's raw answer).
        metadata: Further metadata to keep.

    Raises:
        ValueError: a missing value without a reason, or a reason for a value that is present.
    """
    absent = {key for key, value in values.items() if value is None or math.isnan(value)}
    if absent != set(missing):
        raise ValueError(f"unscored keys {sorted(absent)} and their reasons {sorted(missing)} do not match")
    filled = [key for key in values if key in absent and policy == "worst" and key in bounded]
    value = {
        key: WORST if key in filled else (math.nan if number is None or key in absent else float(number))
        for key, number in values.items()
    }
    main = next(iter(values))
    return Score(
        value=value,
        answer=answer,
        explanation=explanation,
        reason=inspect_reason(missing[main][0]) if main in missing else None,
        metadata={
            **(metadata or {}),
            "unscored": {key: missing[key][0] for key in values if key in missing},
            "unscored_detail": {key: missing[key][1] for key in values if key in missing},
            "filled_in": filled,
        },
    )


def unscored_reason(metadata: Mapping[str, Any] | None, key: str) -> str | None:
    """The reason code `key` is missing in a score's metadata, or None when it was scored."""
    return ((metadata or {}).get("unscored") or {}).get(key)


def is_filled_in(metadata: Mapping[str, Any] | None, key: str) -> bool:
    """Whether `unscored=worst` filled in `key` (the number is not the judge's)."""
    return key in ((metadata or {}).get("filled_in") or [])
