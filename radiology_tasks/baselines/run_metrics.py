"""What a `baselines` or `metric_suite` run logs (its summary) and what `radiology-tasks report` adds, declared
once for both."""

from __future__ import annotations

from inspect_ai.scorer import Metric

from radiology_tasks.baselines.metrics import metric_correlations, pos_neg
from radiology_tasks.core.family import ReportMetrics
from radiology_tasks.core.metrics import expert_agreement, mean_interval, mean_of, unscored_share
from radiology_tasks.lexical import corpus_lexical
from radiology_tasks.scorers.baselines.suite_tables import LOWER_IS_BETTER


def suite_metrics(keys: list[str], *, with_expert: bool, lexical: bool, sensitivity: str | None) -> ReportMetrics:
    """The run's summary (the first metric's mean and interval, its Kendall tau with the experts, its unscored
    share) and the report's metrics (the other means, every agreement statistic, the correlations between the
    metrics, the pos/neg table, the corpus lexical values), for `baselines` and `metric_suite`."""
    main = keys[0]
    headline: list[Metric] = [mean_of(main), mean_interval(main)]
    secondary: list[Metric] = [mean_of(key) for key in keys[1:]]
    if with_expert:
        headline.append(expert_agreement(main, higher_is_better=main not in LOWER_IS_BETTER, brief=True))
        secondary += [expert_agreement(key, higher_is_better=key not in LOWER_IS_BETTER) for key in keys]
    headline.append(unscored_share(main))
    if len(keys) > 1:
        secondary.append(metric_correlations(keys))
    if sensitivity is not None:
        secondary.append(pos_neg(keys, by_id_suffix=sensitivity == "ids"))
    if lexical:
        secondary.append(corpus_lexical())
    return ReportMetrics(headline=headline, secondary=secondary)
