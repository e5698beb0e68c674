"""The `finding_agreement` scorer: compare a sample's candidate labels with its reference labels, label by label.

`Score.value` holds ``label_agreement``: the share of labels on which the candidate agrees with the reference.
It needs every label on both sides; otherwise it is unscored with the reason of the first label missing
(reference side first). Under `-T unscored=worst` a sample whose *candidate* labels are incomplete scores 0; one
whose *reference* labels are incomplete stays unscored (NaN) under both policies, since the generator is not to
blame for the judge failing on the reference.

The corpus metrics (`radiology_tasks.ran_score.metrics`) read the labels from `Score.metadata` and treat
unknown labels one by one (see `scorers.ran_score.f1`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import judge_calls, parse_failure_rate
from radiology_tasks.core.unscored import UnscoredPolicy, judged_score
from radiology_tasks.ran_score.extraction import ReportLabels
from radiology_tasks.ran_score.records import (
    CANDIDATE_LABELS,
    GOLD_LABELS,
    REFERENCE_LABELS,
    UNSCORED_POLICY,
    RanRecord,
    Side,
    side_field,
)
from radiology_tasks.ran_score.solver import CANDIDATE, GOLD, REFERENCE
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from radiology_tasks.scorers.taxonomy import Taxonomy

MAIN_KEY = "label_agreement"
V = TypeVar("V")

SIDES: tuple[Side, ...] = ("reference", "candidate")


def outcome(reference: int | None, candidate: int | None) -> str | None:
    """``tp``, ``fp``, ``fn`` or ``tn`` for one label of one report; None when either side is unknown."""
    if reference is None or candidate is None:
        return None
    return {(1, 1): "tp", (0, 1): "fp", (1, 0): "fn", (0, 0): "tn"}[(reference, candidate)]


def _by_column(taxonomy: Taxonomy, values: Mapping[str, V]) -> dict[str, V]:
    return {label.column: values[label.key] for label in taxonomy.labels if label.key in values}


def _positives(taxonomy: Taxonomy, labels: dict[str, int | None]) -> str:
    found = [label.column for label in taxonomy.labels if labels.get(label.key) == 1]
    return ", ".join(found) or "none"


def _explanation(taxonomy: Taxonomy, sides: dict[str, ReportLabels], outcomes: dict[str, str | None]) -> str:
    lines = [f"{side} positives: {_positives(taxonomy, sides[side].labels)}" for side in SIDES]
    wrong = [f"{column} ({result})" for column, result in outcomes.items() if result in ("fp", "fn")]
    lines.append(f"disagree on: {', '.join(wrong) or 'none'}")
    for side in SIDES:
        if sides[side].unscored:
            lines.append(f"{side} labels not read: {', '.join(_by_column(taxonomy, sides[side].unscored))}")
    return "\n".join(lines)


def _metadata(taxonomy: Taxonomy, sides: dict[str, ReportLabels], gold: dict[str, int] | None) -> dict[str, Any]:
    reference, candidate = sides["reference"], sides["candidate"]
    outcomes = {
        label.column: outcome(reference.labels.get(label.key), candidate.labels.get(label.key))
        for label in taxonomy.labels
    }
    metadata: dict[str, Any] = {
        REFERENCE_LABELS: _by_column(taxonomy, reference.labels),
        CANDIDATE_LABELS: _by_column(taxonomy, candidate.labels),
        "label_outcomes": outcomes,
        GOLD_LABELS: _by_column(taxonomy, gold) if gold is not None else None,
    }
    for side in SIDES:
        labels = sides[side]
        metadata[side_field(side, "source")] = labels.source
        metadata[side_field(side, "evidence")] = _by_column(taxonomy, labels.evidence)
        reasons = _by_column(taxonomy, labels.unscored)
        unscored = {column: f"{code}: {detail}" for column, (code, detail) in reasons.items()}
        metadata[side_field(side, "unscored")] = unscored
        unmatched = _by_column(taxonomy, dict.fromkeys(labels.evidence_not_in_report))
        metadata[side_field(side, "evidence_not_in_report")] = list(unmatched)
    metadata |= {
        "constraint": candidate.constraint or reference.constraint,
        "judge_attempts": [{"report": side, **a} for side in SIDES for a in sides[side].attempts],
        "judge_calls": reference.calls + candidate.calls,
        "judge_retried": reference.retried or candidate.retried,
        "judge_truncated": reference.truncated or candidate.truncated,
        "judge_input_tokens": reference.input_tokens + candidate.input_tokens,
        "judge_output_tokens": reference.output_tokens + candidate.output_tokens,
    }
    return metadata


def agreement_score(
    taxonomy: Taxonomy,
    sides: dict[str, ReportLabels],
    gold: dict[str, int] | None,
    policy: UnscoredPolicy,
    answer: str | None,
) -> Score:
    """The `finding_agreement` score of one sample from its two sides' labels (also used to re-score a log).

    Args:
        taxonomy: The taxonomy the labels were read with.
        sides: ``reference`` and ``candidate`` labels.
        gold: Radiologists' labels of the reference by key, when known.
        policy: The ``-T unscored`` policy (kept in the metadata, as the corpus F1 applies it too).
        answer: The candidate report (`Score.answer`).
    """
    metadata = _metadata(taxonomy, sides, gold) | {UNSCORED_POLICY: policy}
    outcomes = metadata["label_outcomes"]
    missing: dict[str, tuple[str, str]] = {}
    bounded: tuple[str, ...] = (MAIN_KEY,)
    value: float | None = None
    for side in SIDES:
        if sides[side].unscored:
            code, detail = next(iter(sides[side].unscored.values()))
            missing[MAIN_KEY] = (code, f"{side}: {detail}")
            # The generator is not to blame for an unreadable reference: never fill that one in.
            bounded = () if side == "reference" else bounded
            break
    else:
        value = sum(result in ("tp", "tn") for result in outcomes.values()) / len(outcomes)
    score = judged_score(
        {MAIN_KEY: value},
        missing,
        policy=policy,
        bounded=bounded,
        answer=answer,
        explanation=_explanation(taxonomy, sides, outcomes),
        metadata=metadata,
    )
    score.metadata = RanRecord.written(score.metadata or {})
    return score


@scorer(metrics=[parse_failure_rate(MAIN_KEY), judge_calls()])
def finding_agreement(taxonomy: str | None = None, judge: JudgeOptions | None = None) -> Scorer:
    """Compare the labels `extract_findings` stored for each sample.

    Args:
        taxonomy: Taxonomy file the labels were extracted with; None for the bundled 21 labels.
        judge: The judge options, of which ``unscored``: ``worst`` scores a sample whose candidate labels are
            incomplete 0; ``exclude`` leaves it out. None: the defaults.
    """
    policy = (judge or JudgeOptions()).unscored
    labels = load_taxonomy(taxonomy)

    async def score(state: TaskState, target: Target) -> Score:
        sides = {
            "reference": ReportLabels.model_validate(state.store.get(REFERENCE)),
            "candidate": ReportLabels.model_validate(state.store.get(CANDIDATE)),
        }
        answer = state.output.completion if state.output else None
        return agreement_score(labels, sides, state.store.get(GOLD), policy, answer)

    return score
