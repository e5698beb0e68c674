"""Classic baselines: BLEU-1..4, ReXrank's BLEU, chrF and ROUGE-L against the reference, offline.

    inspect eval radiology_tasks/baselines --model none

The same lexical scores beside a judge's are `-T baselines` on the judge tasks (`radiology_tasks.lexical`); several
metrics on the same samples with their tables are `radiology_tasks/metric_suite` (`radiology_tasks.suite`).
"""

from __future__ import annotations

from inspect_ai import Task, task

from radiology_tasks.baselines.family import FAMILY
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import ExpertPresence
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.lexical import DEFAULT_BASELINES, checked_lexical_keys, lexical_baselines, metric_names
from radiology_tasks.suite.run_metrics import suite_metrics

TASK_VERSION = FAMILY.version


@task
@shared_parameters(data=shared(DataOptions), judge=shared(JudgeOptions, only=["unscored"]))
def baselines(
    baselines: str | list[str] = DEFAULT_BASELINES,
    *,
    data: DataOptions,
    judge: JudgeOptions,
) -> Task:
    """BLEU-1..4, chrF and ROUGE-L against the reference: no judge, no model, no download (with ``--model none``).

    Scores: ``bleu_1`` ... ``bleu_4``, ``chrf``, ``rouge_l`` per pair (on [0, 1]); means, corpus BLEU and chrF,
    and Kendall/Spearman/Pearson with the expert score when the data has one.

    Args:
        baselines: The lexical metrics to compute, comma-separated: `bleu` (all four orders), `bleu_1` ...
            `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`.
        unscored: A score that could not be had (an empty candidate, or one the generator failed to write): `worst`
            counts it as 0 in the means, `exclude` leaves it out.
    """
    keys = checked_lexical_keys(metric_names(baselines, "baselines"), "baselines")
    # Generating: one sample per study, without the stored candidates and their expert scores (they describe
    # other reports than the model under test writes).
    dataset, summary, pairs = report_dataset(data, require_candidate=True)
    metrics = suite_metrics(keys, experts=ExpertPresence.of_pairs(pairs), lexical=True, sensitivity=None)
    return Task(
        dataset=dataset,
        solver=generate_report(data.report_max_tokens) if data.generate else replay_candidate(),
        scorer=lexical_baselines(keys, judge.unscored),
        metrics=[*metrics.headline],
        # No prompt templates: the empty record is what the leaderboard's release check compares.
        metadata={"data": summary, "keys": keys, "templates": {}},
        version=TASK_VERSION,
    )
