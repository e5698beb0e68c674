"""`metric_suite`: several metrics on the same samples, and the papers' tables over them.

The tables (metrics correlated with each other, their pos/neg sensitivity to paraphrases against clinically wrong
edits, and Kendall tau against radiologists) are those of the papers the suite's README cites, by section.

    inspect eval radiology_tasks/metric_suite --model none -T metrics=bleu,rouge_l
    inspect eval radiology_tasks/metric_suite --model none -T metrics=bleu,rouge_l,JUDGE -T sensitivity=sets/ \
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B

where JUDGE names an LLM-judge metric that a family adds to the suite (see `metric_suite`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from inspect_ai import Task, task
from inspect_ai.scorer import Metric, Scorer

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import SuiteJudge, SuiteMetric
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import ExpertPresence
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.solvers import replay_candidate
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.lexical import checked_lexical_keys, metric_names
from radiology_tasks.scorers.lexical import is_lexical
from radiology_tasks.scorers.suite.radeval_adapter import RADEVAL_METRICS, RadEvalPlan, plan_radeval, radeval_keys
from radiology_tasks.suite.data import check_pairs, suite_dataset
from radiology_tasks.suite.family import FAMILY
from radiology_tasks.suite.judges import judge_metrics, refused_metrics
from radiology_tasks.suite.run_metrics import suite_metrics
from radiology_tasks.suite.scorer import suite_scorer

TASK_VERSION = FAMILY.version

logger = logging.getLogger(__name__)


def _split(names: list[str], available: Mapping[str, SuiteMetric]) -> tuple[list[str], list[str], list[str]]:
    """Lexical names, RadEval names and judge names; an `InputError` for anything else."""
    lexical: list[str] = []
    radeval: list[str] = []
    judges: list[str] = []
    refused = refused_metrics()
    for name in names:
        if is_lexical(name):
            lexical.append(name)
        elif name in RADEVAL_METRICS:
            radeval.append(name)
        elif name in available:
            judges.append(name)
        elif name in refused:
            raise InputError(f"-T metrics: {refused[name]}")
        else:
            known = ["bleu", "bleu_1..bleu_4", "bleu_rexrank", "chrf", "rouge_l", *RADEVAL_METRICS, *available]
            raise InputError(f"-T metrics: unknown metric {name!r} (known: {', '.join(known)})")
    return lexical, radeval, judges


def _chosen_metrics(
    names: list[str], available: Mapping[str, SuiteMetric]
) -> tuple[list[str], RadEvalPlan, list[str], list[str]]:
    """The checked lexical keys, the RadEval plan (a metric whose model is missing is skipped with a warning line),
    the judge names and every score key the run will hold; an `InputError` when none of them can run."""
    lexical_names, radeval_names, judges = _split(names, available)
    lexical = checked_lexical_keys(lexical_names, "metrics") if lexical_names else []
    plan = plan_radeval(radeval_names)
    for line in plan.skipped:
        logger.warning("metric_suite: %s; the other metrics still run", line)
    keys = [*lexical, *radeval_keys(plan.runnable), *(key for name in judges for key in available[name].keys)]
    if not keys:
        raise InputError("-T metrics: none of the metrics asked for can run here (see the lines above)")
    return lexical, plan, judges, keys


def _checked_judges(chosen: list[SuiteMetric], pairs: list[ReportPair], sensitivity: str | None) -> list[SuiteMetric]:
    """The judges asked for, once the loaded rows are known to suit them: a grader role when there is a judge,
    paired sensitivity rows when `sensitivity` is set, and each judge's own check of the rows."""
    if chosen:
        require_judge()
    if sensitivity is not None:
        check_pairs(pairs, sensitivity)
    for metric in chosen:
        problem = metric.check(pairs) if metric.check is not None else None
        if problem is not None:
            raise InputError(problem)
    return chosen


def _scorer(lexical: list[str], radeval: list[str], judges: list[str], options: SuiteJudge) -> Scorer:
    """The suite's scorer, its judge settings passed by keyword (as the log records a scorer's arguments)."""
    judge = options.judge
    return suite_scorer(
        lexical,
        radeval,
        judges,
        unscored=judge.unscored,
        qa_mode=options.qa_mode,
        constrain=judge.constrain,
        judge_retries=judge.judge_retries,
        judge_max_tokens=judge.judge_max_tokens,
    )


def _headline(keys: list[str], pairs: list[ReportPair], lexical: list[str], sensitivity: str | None) -> list[Metric]:
    """The run's summary metrics, for the experts the loaded rows carry."""
    experts = ExpertPresence.of_pairs(pairs)
    return suite_metrics(keys, experts=experts, lexical=bool(lexical), sensitivity=sensitivity).headline


@task
@shared_parameters(
    data=shared(DataOptions, without=["generate", "report_max_tokens", "images", "missing_images"]),
    judge=shared(JudgeOptions),
)
def metric_suite(
    metrics: str | list[str] = "bleu,chrf,rouge_l",
    sensitivity: str | None = None,
    qa_mode: str = "batch",
    *,
    data: DataOptions,
    judge: JudgeOptions,
) -> Task:
    """Several metrics on the same samples: their correlations, agreement with experts, and the pos/neg table.

    ``-T metrics`` mixes lexical metrics (``bleu``, ``bleu_1`` ... ``bleu_4``, ``chrf``, ``rouge_l``), RadEval
    metrics (``bertscore``, ``radgraph``, ``ratescore``, ``chexbert``, ``radcliq``, ``green_model``; a metric whose
    model is not in the Hugging Face cache is left out with one warning line) and the LLM judges the families add
    (`radiology-tasks list` names them; they need ``--model-role grader=...``). ``-T sensitivity=DIR`` adds the
    ``pos.jsonl`` and ``neg.jsonl`` of `radiology-tasks sensitivity-set` and tabulates them; ``-T sensitivity=ids``
    pairs the data's own ``<id>-para``/``-pos`` rows with ``<id>-err``/``-neg``. `radiology-tasks suite-report LOG
    --out DIR` writes the tables as CSV and Markdown.

    Args:
        metrics: Comma-separated: lexical (`bleu`, `bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`),
            RadEval (`bertscore`, `radgraph`, `ratescore`, `chexbert`, `radcliq`, `green_model`) and the LLM judges
            the metric families add (`radiology-tasks list` names them; they need `--model-role grader=...`).
        data: Registered dataset name (`radiology-tasks list`), a `.jsonl`/`.csv` file of report pairs or a public
            dataset's own file, or a folder holding a downloaded copy of a public dataset. Not set: the bundled
            `demo` set, or only the sets of `sensitivity` when it names a directory.
        limit: Number of `data` rows (the sensitivity sets are used whole), taken after shuffling when `seed` is
            set. Not set: all.
        seed: Shuffle the `data` rows with this seed before `limit` applies. Not set: the data's order.
        sensitivity: A directory written by `radiology-tasks sensitivity-set`, whose `pos.jsonl` and `neg.jsonl`
            are scored too and paired by `source_id`; or `ids`: pair the data's own `<id>-para`/`-pos` rows with
            `<id>-err`/`-neg`. Not set: no pos/neg table.
        qa_mode: For a question-answering judge of the suite: `batch` (all of a report's questions in one call)
            or `per_question`.
        constrain: Constrain the LLM judges' answers to their format, as in their own tasks: `auto`, `off`,
            `grammar`, `structured_outputs` or `response_format`.
        judge_retries: Re-asks of a judge answer that leaves a score unreadable, as in each judge's own task.
        judge_max_tokens: Upper bound on each judge answer. Not set: each judge's contract budget, as in its own
            task.
        unscored: A score that could not be had (an empty candidate, an unreadable judge answer): `worst` counts
            it as 0 in the means of [0, 1] scores (other scores stay excluded), `exclude` leaves it out.
    """
    available = judge_metrics()
    lexical, plan, judges, keys = _chosen_metrics(metric_names(metrics, "metrics"), available)
    dataset, summary, pairs = suite_dataset(data, sensitivity)
    chosen = _checked_judges([available[name] for name in judges], pairs, sensitivity)
    options = SuiteJudge(judge, qa_mode)
    return Task(
        dataset=dataset,
        solver=[replay_candidate(), *(metric.solver(options) for metric in chosen if metric.solver is not None)],
        scorer=_scorer(lexical, plan.runnable, judges, options),
        metrics=[*_headline(keys, pairs, lexical, sensitivity)],
        metadata={"data": summary, "keys": keys, "skipped_metrics": plan.skipped, "sensitivity": sensitivity},
        version=TASK_VERSION,
    )
