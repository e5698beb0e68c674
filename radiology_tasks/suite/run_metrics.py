"""What a `baselines` or `metric_suite` run logs (its summary) and what `radiology-tasks report` adds, declared
once for both."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore

from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import ExpertPresence, agreement_metrics, mean_interval, mean_of, unscored_share
from radiology_tasks.lexical import corpus_lexical
from radiology_tasks.scorers.lexical import is_lexical
from radiology_tasks.suite.metrics import metric_correlations, pos_neg


def suite_metrics(keys: list[str], *, experts: ExpertPresence, lexical: bool, sensitivity: str | None) -> ReportMetrics:
    """The run's summary (the first metric's mean and interval, its Kendall tau with the expert score, its unscored
    share) and the report's metrics (the other means, every metric's agreement with every expert truth the data
    carries, the correlations between the metrics, the pos/neg table, the corpus lexical values), for `baselines`
    and `metric_suite`."""
    main = keys[0]
    headline: list[Metric] = [mean_of(main), mean_interval(main), *agreement_metrics(main, experts, brief=True)]
    secondary: list[Metric] = [mean_of(key) for key in keys[1:]]
    secondary += [metric for key in keys for metric in agreement_metrics(key, experts)]
    headline.append(unscored_share(main))
    if len(keys) > 1:
        secondary.append(metric_correlations(keys))
    if sensitivity is not None:
        secondary.append(pos_neg(keys, by_id_suffix=sensitivity == "ids"))
    if lexical:
        secondary.append(corpus_lexical())
    return ReportMetrics(headline=headline, secondary=secondary)


def sample_metrics(samples: Sequence[SampleScore], *, sensitivity: str | None) -> ReportMetrics:
    """`suite_metrics` for the score keys a run's samples hold, in the order scored (what `radiology-tasks report`
    computes for a `baselines` or `metric_suite` log).

    Raises:
        ValueError: when the samples hold no score keys.
    """
    first = samples[0].score.value if samples else {}
    keys = [str(key) for key in first] if isinstance(first, Mapping) else []
    if not keys:
        raise ValueError("the run's samples hold no score keys to report")
    return suite_metrics(
        keys,
        experts=ExpertPresence.of_samples(samples),
        lexical=any(is_lexical(key) for key in keys),
        sensitivity=sensitivity,
    )


def report_metrics(task: str, task_args: Mapping[str, Any], samples: Sequence[SampleScore]) -> ReportMetrics:
    """A logged `baselines` or `metric_suite` run's metrics (both families' `run_metrics_module`): for the score
    keys its samples hold, in the order scored."""
    return sample_metrics(samples, sensitivity=task_args.get("sensitivity"))
