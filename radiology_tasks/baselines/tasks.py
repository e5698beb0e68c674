"""Classic baselines and the metric suite: BLEU/chrF/ROUGE-L offline, RadEval metrics, and the papers' tables.

The tables (metrics correlated with each other, their pos/neg sensitivity to paraphrases against clinically wrong
edits, and Kendall tau against radiologists) are those of the papers the family's README cites, by section.

    inspect eval radiology_tasks/baselines --model none
    inspect eval radiology_tasks/metric_suite --model none -T metrics=bleu,rouge_l
    inspect eval radiology_tasks/metric_suite --model none -T metrics=bleu,rouge_l,JUDGE -T sensitivity=sets/ \
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B

where JUDGE names an LLM-judge metric that a family adds to the suite (see `metric_suite`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Solver, TaskState

from radiology_tasks.baselines.family import FAMILY
from radiology_tasks.baselines.metrics import SENSITIVITY
from radiology_tasks.baselines.run_metrics import suite_metrics
from radiology_tasks.baselines.scorer import radeval_metrics
from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import SuiteMetric, families
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.loading import OnBadRows
from radiology_tasks.core.metrics import ExpertPresence, expert_metadata
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, TaskData, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.core.unscored import UnscoredPolicy
from radiology_tasks.lexical import (
    BASELINES_LABEL,
    DEFAULT_BASELINES,
    Part,
    checked_lexical_keys,
    lexical_baselines,
    metric_names,
    score_all,
)
from radiology_tasks.scorers.baselines.radeval_adapter import RADEVAL_METRICS, plan_radeval, radeval_keys
from radiology_tasks.scorers.baselines.suite_tables import sensitivity_pairs
from radiology_tasks.scorers.lexical import is_lexical

TASK_VERSION = FAMILY.version

logger = logging.getLogger(__name__)


def judge_metrics() -> dict[str, SuiteMetric]:
    """The LLM-judge metrics the families add to the suite, by name (all need ``--model-role grader``).

    Raises:
        ValueError: when two families add a metric of the same name.
    """
    found: dict[str, SuiteMetric] = {}
    owner: dict[str, str] = {}
    for family in families():
        for name, metric in family.suite_metrics().items():
            if name in found:
                raise ValueError(f"suite metric {name} is added by both family {owner[name]} and family {family.name}")
            found[name], owner[name] = metric, family.name
    return found


def refused_metrics() -> dict[str, str]:
    """Names the suite refuses, each with the families' line saying where to run that metric instead."""
    return {name: line for family in families() for name, line in family.suite_notes.items()}


def judge_settings(judge: JudgeOptions, qa_mode: str) -> dict[str, Any]:
    """The settings every suite metric's scorer and solver factory is built from."""
    return {
        "unscored": judge.unscored,
        "constrain": judge.constrain,
        "judge_retries": judge.judge_retries,
        "judge_max_tokens": judge.judge_max_tokens,
        "qa_mode": qa_mode,
    }


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


def _sets(sensitivity: str, on_bad_rows: OnBadRows) -> tuple[list[Sample], list[ReportPair]]:
    """The rows of ``pos.jsonl`` and ``neg.jsonl`` in a `radiology-tasks sensitivity-set` directory, as samples
    and as the pairs they were made from."""
    folder = Path(sensitivity)
    files = [folder / "pos.jsonl", folder / "neg.jsonl"]
    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        raise InputError(
            f"-T sensitivity={sensitivity}: no {', '.join(missing)} (give a directory written by "
            "`radiology-tasks sensitivity-set`, or `ids` to pair the data's -para/-err rows)"
        )
    samples: list[Sample] = []
    pairs: list[ReportPair] = []
    for file in files:
        loaded = report_dataset(DataOptions(str(file), on_bad_rows=on_bad_rows), require_candidate=True)
        samples += list(loaded.dataset)
        pairs += loaded.pairs
    return samples, pairs


def _suite_dataset(options: DataOptions, sensitivity: str | None) -> TaskData:
    """The data's rows (the demo when no data is given), plus the pos/neg sets of a sensitivity directory."""
    from_sets = sensitivity is not None and sensitivity != "ids"
    samples: list[Sample] = []
    pairs: list[ReportPair] = []
    summary: dict[str, Any] = {}
    if options.data is not None or not from_sets:
        loaded = report_dataset(options, require_candidate=True)
        samples += list(loaded.dataset)
        pairs += loaded.pairs
        summary = loaded.summary
    if from_sets:
        set_samples, set_pairs = _sets(str(sensitivity), options.on_bad_rows)
        summary["sensitivity_rows"] = len(set_samples)
        samples += set_samples
        pairs += set_pairs
    seen: set[str] = set()
    for sample in samples:
        if str(sample.id) in seen:
            raise InputError(f"sample id '{sample.id}' appears twice in the data and the sensitivity sets")
        seen.add(str(sample.id))
    summary["samples"] = len(samples)
    return TaskData(MemoryDataset(samples, name=str(summary.get("source", sensitivity))), summary, pairs)


def _sensitivity_metadata(pair: ReportPair) -> dict[str, str] | None:
    kind, source = pair.metadata.get("kind"), pair.metadata.get("source_id")
    return {"kind": str(kind), "source_id": str(source)} if kind in ("pos", "neg") and source is not None else None


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
    parts: list[Part] = []
    if lexical:
        parts.append((BASELINES_LABEL, lexical_baselines(lexical, unscored), None))
    if radeval:
        parts.append(("radeval", radeval_metrics(radeval, unscored), None))
    settings = judge_settings(
        JudgeOptions(
            constrain=constrain, judge_max_tokens=judge_max_tokens, judge_retries=judge_retries, unscored=unscored
        ),
        qa_mode,
    )
    available = judge_metrics()
    for name in judges:
        metric = available[name]
        parts.append((name, metric.scorer(settings), list(metric.keys)))

    async def score(state: TaskState, target: Target) -> Score:
        merged = await score_all(parts, state, target)
        pair = state.metadata_as(ReportPair)
        metadata = {**(merged.metadata or {}), **expert_metadata(pair)}
        sensitivity = _sensitivity_metadata(pair)
        if sensitivity is not None:
            metadata[SENSITIVITY] = sensitivity
        return merged.model_copy(update={"metadata": metadata})

    return score


def _check_pairs(pairs: list[ReportPair], sensitivity: str) -> None:
    """Fail in one line when the rows hold no pos/neg pair to tabulate; warn about rows without a partner."""
    sensitivity_info = [_sensitivity_metadata(p) or {} for p in pairs]
    matched = sensitivity_pairs(
        [p.id for p in pairs],
        [info.get("kind") for info in sensitivity_info],
        [info.get("source_id") for info in sensitivity_info],
        by_id_suffix=sensitivity == "ids",
    )
    if not matched.pairs:
        how = "ids ending in -para/-pos and -err/-neg" if sensitivity == "ids" else "'kind' and 'source_id' columns"
        raise InputError(f"-T sensitivity={sensitivity}: no pos/neg pair found among the rows (pairs need {how})")
    if matched.unmatched:
        logger.warning("metric_suite: pos/neg rows without a partner, left out of the table: %s", matched.unmatched)


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
    lexical_names_, radeval_names, judges = _split(metric_names(metrics, "metrics"), available)
    lexical = checked_lexical_keys(lexical_names_, "metrics") if lexical_names_ else []
    plan = plan_radeval(radeval_names)
    for line in plan.skipped:
        logger.warning("metric_suite: %s; the other metrics still run", line)
    keys = [*lexical, *radeval_keys(plan.runnable), *(key for name in judges for key in available[name].keys)]
    if not keys:
        raise InputError("-T metrics: none of the metrics asked for can run here (see the lines above)")
    dataset, summary, pairs = _suite_dataset(data, sensitivity)
    if judges:
        require_judge()
    if sensitivity is not None:
        _check_pairs(pairs, sensitivity)
    chosen = [available[name] for name in judges]
    for metric in chosen:
        problem = metric.check(pairs) if metric.check is not None else None
        if problem is not None:
            raise InputError(problem)
    settings = judge_settings(judge, qa_mode)
    solver: list[Solver] = [replay_candidate()]
    solver += [metric.solver(settings) for metric in chosen if metric.solver is not None]
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=suite_scorer(
            lexical,
            plan.runnable,
            judges,
            unscored=judge.unscored,
            qa_mode=qa_mode,
            constrain=judge.constrain,
            judge_retries=judge.judge_retries,
            judge_max_tokens=judge.judge_max_tokens,
        ),
        metrics=[
            *suite_metrics(
                keys,
                experts=ExpertPresence.of_pairs(pairs),
                lexical=bool(lexical),
                sensitivity=sensitivity,
            ).headline
        ],
        metadata={"data": summary, "keys": keys, "skipped_metrics": plan.skipped, "sensitivity": sensitivity},
        version=TASK_VERSION,
    )
