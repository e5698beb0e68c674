"""The lexical baselines a judge task scores beside its judge (``-T baselines``), and the scorers they are made of.

BLEU-1..4, ReXrank's BLEU, chrF and ROUGE-L (computed in `scorers.lexical`) need no model, so every judge task can
report them on the same samples as its judge. This module holds the Inspect side of that: the ``-T baselines``
option, the `lexical_baselines` scorer, `with_baselines` that merges it into a task's own score, and the corpus
metric. The baselines family builds on it too. Every scorer here gives `Score.value` as a dict of floats and follows
`radiology_tasks.core.unscored`: an empty candidate, or one the generator failed to write, is unscored with its
reason, never a silent 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, Value, metric, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.metrics import ExpertPresence, agreement_metrics, expert_metadata, mean_of
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.task_options import option
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy, judged_score
from radiology_tasks.scorers.lexical import LEXICAL_KEYS, corpus_scores, lexical_keys, lexical_names, lexical_scores

BASELINES_LABEL = "baselines"
"""Where `with_baselines` keeps the lexical scorer's metadata inside the judge's score metadata."""

DEFAULT_BASELINES = "bleu,chrf,rouge_l"
"""The lexical metrics computed when ``-T baselines`` is not given."""

STATISTICS = "lexical_statistics"


def metric_names(value: str | Sequence[str] | None, parameter: str) -> list[str]:
    """Split a ``-T`` list of metric names (``bleu,rouge_l`` or a YAML list) into names, without repeats.

    Raises:
        InputError: for an empty list or a name that is not text.
    """
    if value is None:
        return []
    items = value.split(",") if isinstance(value, str) else list(value)
    names: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise InputError(f"-T {parameter} takes metric names, got {item!r}")
        name = item.strip()
        if name and name not in names:
            names.append(name)
    if not names:
        raise InputError(f"-T {parameter} names no metric")
    return names


def checked_lexical_keys(names: Sequence[str], parameter: str) -> list[str]:
    """The lexical score keys `names` ask for; an `InputError` naming the parameter for an unknown name."""
    try:
        return lexical_keys(names)
    except ValueError:
        unknown = next(name for name in names if name not in lexical_names())
        raise InputError(
            f"-T {parameter}: unknown lexical metric {unknown!r} (known: {', '.join(lexical_names())})"
        ) from None


def candidate_problem(state: TaskState) -> tuple[str, str] | None:
    """Why the sample's candidate cannot be scored (reason code, detail), or None when it can."""
    generation = state.metadata.get("generation")
    if generation is not None and generation.get("error"):
        code, _, detail = str(generation["error"]).partition(": ")
        return code, detail
    candidate = state.output.completion if state.output else ""
    if not candidate.strip():
        return "no_response", "the candidate is empty"
    return None


def lexical_score(
    reference: str,
    candidate: str | None,
    keys: Sequence[str],
    policy: UnscoredPolicy,
    *,
    problem: tuple[str, str] | None = None,
    metadata: dict[str, Any] | None = None,
) -> Score:
    """The lexical scores of one candidate against its reference, or its unscored values when it has none.

    Args:
        reference: The reference report.
        candidate: The candidate report; None or blank text leaves every key unscored.
        keys: Lexical score keys (from `checked_lexical_keys`).
        policy: What an unscored key is given (`radiology_tasks.core.unscored`).
        problem: Why the candidate cannot be scored (reason code, detail); None: it can, unless it is blank.
        metadata: Score metadata to start from.
    """
    metadata = dict(metadata or {})
    if problem is None and candidate is not None and candidate.strip():
        values, statistics = lexical_scores(reference, candidate, keys)
        metadata["lexical_statistics"] = statistics
        return judged_score(values, {}, policy=policy, bounded=keys, answer=candidate, metadata=metadata)
    reasons = dict.fromkeys(keys, problem or ("no_response", "the candidate is empty"))
    return judged_score(dict.fromkeys(keys), reasons, policy=policy, bounded=keys, metadata=metadata)


def _statistics(metadata: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Lexical statistics at the top of the metadata, or where `with_baselines` put them."""
    if STATISTICS in metadata:
        return metadata[STATISTICS]
    nested = metadata.get("baselines")
    return nested.get(STATISTICS) if isinstance(nested, Mapping) else None


@metric
def corpus_lexical() -> Metric:
    """Corpus BLEU-n and corpus chrF over the scored samples (sacrebleu's corpus statistics, on [0, 1]).

    ROUGE-L and ``bleu_rexrank`` have no corpus value here: their mean over the samples (``<key>_mean``) is theirs,
    and is the number the ReXrank leaderboard reports for its BLEU.

    Returns:
        A metric giving ``corpus_bleu_<n>`` and ``corpus_chrf`` for the keys the samples were scored on, and
        ``corpus_pairs`` (the samples that count: unscored ones have no statistics).
    """

    def compute(scores: list[SampleScore]) -> Value:
        rows = [s for s in (_statistics(sample.score.metadata or {}) for sample in scores) if s is not None]
        keys = [key for key in LEXICAL_KEYS if rows and key in rows[0]]
        return {**corpus_scores(rows, keys), "corpus_pairs": float(len(rows))}

    return compute


@scorer(metrics=[corpus_lexical()])
def lexical_baselines(baselines: str | list[str] = DEFAULT_BASELINES, unscored: UnscoredPolicy = "worst") -> Scorer:
    """BLEU-1..4, ReXrank's BLEU, chrF and ROUGE-L of the candidate against the reference: no model, no judge.

    Args:
        baselines: Metric names: ``bleu`` (BLEU-1..4), ``bleu_1`` ... ``bleu_4``, ``bleu_rexrank`` (the ReXrank
            leaderboard's BLEU), ``chrf``, ``rouge_l``.
        unscored: What an empty or failed candidate counts as in the means: ``worst`` (0) or ``exclude``.
    """
    keys = checked_lexical_keys(metric_names(baselines, "baselines"), "baselines")
    policy = check_policy(unscored)

    async def score(state: TaskState, target: Target) -> Score:
        pair = state.metadata_as(ReportPair)
        return lexical_score(
            pair.reference,
            state.output.completion if state.output else None,
            keys,
            policy,
            problem=candidate_problem(state),
            metadata=expert_metadata(pair),
        )

    return score


def merge_scores(parts: Sequence[tuple[str, Score]]) -> Score:
    """One score from the scores of several scorers on the same sample.

    The value is the union of the parts' dict values (a key given twice is an error). The first part's metadata
    stays at the top, so that the metrics written for it still read it; each later part's metadata is kept under
    its label, and the unscored keys, reasons and filled-in keys of all parts are merged at the top.
    """
    first_label, first = parts[0]
    value: dict[str, Any] = {}
    metadata: dict[str, Any] = dict(first.metadata or {})
    unscored = dict(metadata.get("unscored") or {})
    details = dict(metadata.get("unscored_detail") or {})
    filled = list(metadata.get("filled_in") or [])
    explanations: list[str] = []
    for label, part in parts:
        if not isinstance(part.value, dict):
            raise ValueError(f"scorer {label} gave {part.value!r}, not a dict of scores")
        clash = sorted(set(value) & set(part.value))
        if clash:
            raise ValueError(f"scorer {label} gives score keys {clash} that another scorer of the run gives too")
        value |= part.value
        if label != first_label:
            extra = part.metadata or {}
            metadata[label] = extra
            unscored |= extra.get("unscored") or {}
            details |= extra.get("unscored_detail") or {}
            filled += extra.get("filled_in") or []
        if part.explanation:
            explanations.append(f"{label}: {part.explanation}")
    metadata |= {"unscored": unscored, "unscored_detail": details, "filled_in": filled}
    return Score(
        value=value,
        answer=next((part.answer for _, part in parts if part.answer is not None), None),
        explanation="\n\n".join(explanations) or None,
        reason=first.reason,
        metadata=metadata,
    )


def only_keys(score: Score, keys: Sequence[str]) -> Score:
    """The score with only `keys` in its value and in its unscored bookkeeping (the rest of the metadata kept)."""
    value = score.value if isinstance(score.value, dict) else {}
    metadata = dict(score.metadata or {})
    for name in ("unscored", "unscored_detail"):
        metadata[name] = {k: v for k, v in (metadata.get(name) or {}).items() if k in keys}
    metadata["filled_in"] = [k for k in metadata.get("filled_in") or [] if k in keys]
    return score.model_copy(update={"value": {k: value[k] for k in keys}, "metadata": metadata})


Part = tuple[str, Scorer, Sequence[str] | None]
"""A scorer of a combined score: its label, the scorer, and the score keys to keep (None: all)."""


async def score_all(parts: Sequence[Part], state: TaskState, target: Target) -> Score:
    """Run each scorer on the sample, in order, and merge their scores."""
    scores: list[tuple[str, Score]] = []
    for label, part, keys in parts:
        result = await part(state, target)
        if result is None:
            raise ValueError(f"scorer {label} gave no score")
        scores.append((label, result if keys is None else only_keys(result, keys)))
    return merge_scores(scores)


@scorer(metrics=[])
def with_baselines(judge: Scorer, baselines: str | list[str], unscored: UnscoredPolicy = "worst") -> Scorer:
    """A task's own scorer plus the lexical baselines, as one score (the task's metrics keep working).

    Args:
        judge: The task's scorer; its metadata stays at the top of the score.
        baselines: Lexical metric names, as for `lexical_baselines`.
        unscored: The task's `-T unscored`.
    """
    parts: list[Part] = [("judge", judge, None), (BASELINES_LABEL, lexical_baselines(baselines, unscored), None)]

    async def score(state: TaskState, target: Target) -> Score:
        return await score_all(parts, state, target)

    return score


def lexical_metrics(keys: Sequence[str], *, experts: ExpertPresence | None) -> list[Metric]:
    """Mean of each lexical key, its agreement with whatever the experts said about the samples (None: nothing),
    corpus values."""
    metrics: list[Metric] = [mean_of(key) for key in keys]
    if experts is not None:
        metrics += [metric for key in keys for metric in agreement_metrics(key, experts)]
    return [*metrics, corpus_lexical()]


def add_baselines(scorer: Scorer, baselines: str | list[str] | None, *, unscored: UnscoredPolicy) -> Scorer:
    """The task's scorer, scoring the lexical baselines beside it when ``-T baselines`` names some.

    The task's own scorer comes first in the combined score, so its metadata and its metrics are unchanged.

    Raises:
        InputError: for an empty list or an unknown metric name.
    """
    if baselines is None:
        return scorer
    return with_baselines(scorer, checked_lexical_keys(metric_names(baselines, "baselines"), "baselines"), unscored)


def baseline_metrics(baselines: str | list[str] | None, *, experts: ExpertPresence | None) -> list[Metric]:
    """The metrics of the lexical baselines ``-T baselines`` names (none when it names none): report metrics of
    the judge tasks, which `radiology-tasks report` computes beside the judge's."""
    if baselines is None:
        return []
    return lexical_metrics(checked_lexical_keys(metric_names(baselines, "baselines"), "baselines"), experts=experts)


@dataclass(frozen=True)
class BaselineOptions:
    """The lexical metrics a judge task scores beside its judge, checked as `-T` gave them when built."""

    baselines: str | list[str] | None = option(
        None,
        "Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all four orders), "
        "`bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.",
    )

    def __post_init__(self) -> None:
        if self.baselines is not None:
            checked_lexical_keys(metric_names(self.baselines, "baselines"), "baselines")
