"""Ran Score: finding-level agreement of a generated chest X-ray report with its reference, as macro F1 over labels.

Specification: "Ran Score: a LLM-based Evaluation Score for Radiology Report Generation" (its methods: the
21-label chest X-ray taxonomy and the score as macro-averaged F1) and the label-table layout of the authors'
public release.
A judge reads 21 findings from each report (20 asked, `No Finding` derived); per label, precision, recall and
F1 are computed over all reports, and the Ran Score is the unweighted mean of the per-label F1 values.

    inspect eval radiology_tasks/ran_score --model none --model-role grader=llama-cpp/smollm2-135m -T limit=2
    inspect eval radiology_tasks/ran_score --model none -T reference_labels=ref.csv -T candidate_labels=cand.csv
"""

from __future__ import annotations

from dataclasses import replace

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Solver

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.task_data import DataOptions, report_dataset
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.lexical import BaselineOptions, add_baselines
from radiology_tasks.ran_score.extraction import Extraction
from radiology_tasks.ran_score.family import FAMILY
from radiology_tasks.ran_score.label_files import LabelTable, gold_from_metadata, rows_for
from radiology_tasks.ran_score.options import LabelOptions
from radiology_tasks.ran_score.run_metrics import ran_metrics
from radiology_tasks.ran_score.scorer import finding_agreement
from radiology_tasks.ran_score.solver import extract_findings
from radiology_tasks.ran_score.taxonomy import taxonomy_digest
from radiology_tasks.scorers.taxonomy import Taxonomy
from radiology_tasks.templates import template_hashes

TASK_VERSION = FAMILY.version
DEMO_DATA = str(FAMILY.default_data)


def _labels_only_dataset(
    reference: tuple[str, LabelTable], candidate: tuple[str, LabelTable], seed: int | None, limit: int | None
) -> tuple[MemoryDataset, dict[str, object]]:
    """One sample per study of the two label tables, which must list the same studies."""
    (reference_path, reference_rows), (candidate_path, candidate_rows) = reference, candidate
    rows_for(candidate_rows, list(reference_rows), candidate_path)
    rows_for(reference_rows, list(candidate_rows), reference_path)
    samples = [Sample(id=study, input=f"labels of study {study}", target="") for study in reference_rows]
    dataset = MemoryDataset(samples, name="label files")
    if seed is not None:
        dataset.shuffle(seed=seed)
    if limit is not None:
        dataset = MemoryDataset(list(dataset)[:limit], name="label files")
    summary = {"source": "label files", "rows_read": len(reference_rows), "samples": len(dataset)}
    return dataset, summary


def _check_gold(dataset: MemoryDataset, taxonomy: Taxonomy, source: str) -> bool:
    """Validate every sample's gold labels now (not mid-run); whether any sample has them."""
    found = False
    for sample in dataset:
        extra = (sample.metadata or {}).get("metadata") or {}
        found |= gold_from_metadata(extra, taxonomy, source=f"{source}, id '{sample.id}'") is not None
    return found


def _refuse_conflicts(options: LabelOptions, data: DataOptions, beside: BaselineOptions) -> None:
    """Refuse parameters that contradict each other.

    Raises:
        InputError: naming the parameters and what to drop.
    """
    if options.candidate_labels and (data.generate or data.candidates):
        raise InputError("-T candidate_labels gives the candidates' labels: drop -T generate and -T candidates")
    if options.reference_labels and options.gold_labels:
        raise InputError("-T gold_labels checks the judge's reading of the references, which -T reference_labels skips")
    if options.labels_only and data.data is None and (data.reports or data.revision):
        raise InputError("-T reports and -T revision apply to -T data, which label files alone do not need")
    if beside.baselines is not None and options.candidate_labels:
        raise InputError("-T baselines compares report texts, which -T candidate_labels runs do not have")


def _dataset(
    options: LabelOptions, tables: dict[str, LabelTable], data: DataOptions
) -> tuple[MemoryDataset, dict[str, object]]:
    """The run's samples: the studies of the two label tables when they stand alone, else the data's rows."""
    if options.labels_only and data.data is None:
        return _labels_only_dataset(
            (str(options.reference_labels), tables["reference"]),
            (str(options.candidate_labels), tables["candidate"]),
            data.seed,
            data.limit,
        )
    # Generating: one sample per study, without the stored candidates (they describe other reports).
    dataset, summary, _ = report_dataset(
        replace(data, data=data.data or DEMO_DATA), require_candidate=not options.candidate_labels
    )
    return dataset, summary


def _run_metadata(options: LabelOptions, labels: Taxonomy, summary: dict[str, object]) -> dict[str, object]:
    """What the log header records about the run: the data, the taxonomy, where labels came from, the prompts."""
    root = options.cache_directory
    return {
        "data": summary,
        "taxonomy": {
            "name": labels.name,
            "file": options.taxonomy or "bundled",
            "digest": taxonomy_digest(labels),
            "columns": labels.columns,
            "keys": labels.keys,
        },
        "extraction": options.extraction,
        "label_files": options.label_files,
        "label_cache": None if options.reference_labels or root is None else str(root),
        "templates": template_hashes("ran_score"),
    }


@task
@shared_parameters(
    data=shared(DataOptions, without=["report_max_tokens"]), judge=shared(JudgeOptions), beside=shared(BaselineOptions)
)
def ran_score(
    taxonomy: str | None = None,
    extraction: Extraction = "batch",
    reference_labels: str | None = None,
    candidate_labels: str | None = None,
    gold_labels: str | None = None,
    label_cache: str | None = None,
    *,
    data: DataOptions,
    judge: JudgeOptions,
    beside: BaselineOptions,
) -> Task:
    """Ran Score: a judge reads 21 chest X-ray findings from each report; macro F1 over labels (`ran_score`).

    Without `data`, the bundled `ran-score-demo` set is used, or, when both `reference_labels` and
    `candidate_labels` are given, the studies of those label tables (no judge and no report text needed).

    Args:
        data: Registered dataset name (`radiology-tasks list`), a file, or a folder holding a downloaded copy of a
            public dataset, as in every task. Not set: the bundled `ran-score-demo` set, or, with both
            `reference_labels` and `candidate_labels`, the studies of those two tables.
        taxonomy: Taxonomy file (YAML/JSON) replacing the 21 labels, their definitions and rules. Not set: the
            bundled taxonomy.
        extraction: `batch`: one judge call per report; `per_label`: one call per asked label, as the authors do.
        reference_labels: Label table (CSV, the authors' layout) of the reference reports, read instead of asking
            the judge.
        candidate_labels: Label table of the candidate reports, read instead of asking the judge; not with
            `generate`, `candidates` or `baselines`.
        gold_labels: Radiologists' label table of the references, to score the extractor (not with
            `reference_labels`); a `gold_labels` field in the data (label column -> 0/1) does the same.
        label_cache: Directory where the judge's reference labels are cached, or `off`. Not set:
            `$XDG_CACHE_HOME/radiology-tasks/ran_score/reference_labels` (`~/.cache/...` without XDG_CACHE_HOME).
        judge_max_tokens: Upper bound on each judge answer. Not set: the contract's budget, 12,032 tokens for
            `extraction=batch`, 512 per label.
        judge_retries: Re-asks of an answer that leaves a label unreadable.
        unscored: A candidate label that could not be had: `worst` counts it wrong, `exclude` leaves it out.
    """
    options = LabelOptions(taxonomy, extraction, reference_labels, candidate_labels, gold_labels, label_cache)
    _refuse_conflicts(options, data, beside)
    labels = options.load_taxonomy()
    tables = options.tables(labels)
    dataset, summary = _dataset(options, tables, data)
    if not options.labels_only:
        require_judge()
    ids = [str(sample.id) for sample in dataset]
    for side, table in tables.items():
        rows_for(table, ids, str(options.label_files[side]))
    with_gold = bool(gold_labels) or _check_gold(dataset, labels, str(summary["source"]))
    steps: list[Solver] = [] if candidate_labels else [generate_report() if data.generate else replay_candidate()]
    metrics = ran_metrics(
        labels, judge.unscored, with_gold=with_gold, generate=data.generate, baselines=beside.baselines
    )
    return Task(
        dataset=dataset,
        solver=[*steps, extract_findings(options, judge)],
        scorer=add_baselines(finding_agreement(taxonomy, judge), beside.baselines, unscored=judge.unscored),
        metrics=[*metrics.headline],
        metadata=_run_metadata(options, labels, summary),
        version=TASK_VERSION,
    )
