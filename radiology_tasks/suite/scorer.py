"""`suite_scorer`: every metric `metric_suite` runs, on the same sample, as one score."""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.family import SuiteJudge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import expert_metadata
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.unscored import UnscoredPolicy
from radiology_tasks.lexical import BASELINES_LABEL, Part, lexical_baselines, score_all
from radiology_tasks.suite.data import sensitivity_metadata
from radiology_tasks.suite.judges import judge_metrics
from radiology_tasks.suite.metrics import SENSITIVITY
from radiology_tasks.suite.radeval import radeval_metrics


@scorer(metrics=[])
def suite_scorer(
    lexical: list[str],
    radeval: list[str],
    judges: list[str],
    unscored: UnscoredPolicy = "worst",
    qa_mode: str = "batch",
    constrain: ConstrainMode = "auto",
    judge_retries: int = 1,
    judge_max_tokens: int | None = None,
) -> Scorer:
    """Every chosen metric on the same sample, as one score (lexical first: its metadata stays at the top).

    The judge settings are keywords because Inspect logs a scorer's arguments by name (an object would be logged
    as its class name); they become one `SuiteJudge` here, which each family's suite metric is given whole.

    Args:
        lexical: Lexical score keys (`scorers.lexical`).
        radeval: RadEval metric names whose models are cached.
        judges: Names of LLM-judge metrics the families add to the suite (see `judge_metrics`).
        unscored: What a score that could not be had counts as in the means.
        qa_mode: The question-answering judge's ``-T qa_mode``.
        constrain: How the judges' answers are constrained.
        judge_retries: Re-asks for an answer that leaves a score unreadable.
        judge_max_tokens: Upper bound on a judge answer's length.
    """
    options = SuiteJudge(JudgeOptions(constrain, judge_max_tokens, judge_retries, unscored), qa_mode)
    parts: list[Part] = []
    if lexical:
        parts.append((BASELINES_LABEL, lexical_baselines(lexical, options.judge.unscored), None))
    if radeval:
        parts.append(("radeval", radeval_metrics(radeval, options.judge.unscored), None))
    available = judge_metrics()
    for name in judges:
        metric = available[name]
        parts.append((name, metric.scorer(options), list(metric.keys)))

    async def score(state: TaskState, target: Target) -> Score:
        merged = await score_all(parts, state, target)
        pair = state.metadata_as(ReportPair)
        metadata = {**(merged.metadata or {}), **expert_metadata(pair)}
        sensitivity = sensitivity_metadata(pair)
        if sensitivity is not None:
            metadata[SENSITIVITY] = sensitivity
        return merged.model_copy(update={"metadata": metadata})

    return score
