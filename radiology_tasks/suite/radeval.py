"""The metric suite's RadEval scorer (the lexical scorers are shared with every task: `radiology_tasks.lexical`).

It gives `Score.value` as a dict of floats and follows `radiology_tasks.core.unscored`: an empty candidate, or one
the generator failed to write, is unscored with its reason, never a silent 0.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.metrics import expert_metadata
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy, judged_score
from radiology_tasks.lexical import candidate_problem, metric_names
from radiology_tasks.scorers.suite.radeval_adapter import RADEVAL_METRICS, RadEvalRunner, radeval_keys


@scorer(metrics=[])
def radeval_metrics(metrics: str | list[str], unscored: UnscoredPolicy = "exclude") -> Scorer:
    """Model-based metrics computed by RadEval, one report pair at a time (see `scorers.suite.radeval_adapter`).

    Args:
        metrics: Our RadEval metric names (``bertscore``, ``radgraph``, ``ratescore``, ``chexbert``, ``radcliq``,
            ``green_model``); the caller has checked that their models are cached.
        unscored: What an empty or failed candidate counts as: ``worst`` (0, for the scores on [0, 1]) or ``exclude``
            (BERTScore and RadCliQ are always left out then: 0 is not their bottom).
    """
    names = metric_names(metrics, "metrics")
    runner = RadEvalRunner(names)
    keys = radeval_keys(names)
    bounded = [key for name in names for key in RADEVAL_METRICS[name].bounded]
    policy = check_policy(unscored)

    async def score(state: TaskState, target: Target) -> Score:
        pair = state.metadata_as(ReportPair)
        metadata: dict[str, Any] = expert_metadata(pair)
        problem = candidate_problem(state)
        if problem is None:
            candidate = state.output.completion
            values = runner.score(pair.reference, candidate)
            no_value = ("radeval_no_value", "RadEval gave no finite number")
            missing = {key: no_value for key, number in values.items() if math.isnan(number)}
            return judged_score(values, missing, policy=policy, bounded=bounded, answer=candidate, metadata=metadata)
        return judged_score(dict.fromkeys(keys), dict.fromkeys(keys, problem), policy=policy, bounded=bounded)

    return score
