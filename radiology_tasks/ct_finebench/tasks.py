"""CT-FineBench: does the candidate report state the fine-grained attributes of the reference's findings?

Specification: "CT-FineBench: A Diagnostic Fidelity Benchmark for Fine-Grained Evaluation of CT Report
Generation" (arXiv 2604.24001), sections 3.3, 4 and 5.5, appendix B. A judge answers the
reference's questions (size, location, density, margin, existence ...) from the candidate report alone, then
each answer is graded 0, 0.5 or 1 against the reference answer: numeric ones in code, the others by the
judge. The report score is the mean over its questions.

    inspect eval radiology_tasks/ct_finebench --model none --model-role grader=llama-cpp/smollm2-135m -T limit=2
    inspect eval radiology_tasks/ct_finebench -T data=ct-finebench -T reports=my_reports.jsonl --model none \
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.scorer import Metric

from radiology_tasks.baselines.extras import add_baselines
from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.loading import OnBadRows
from radiology_tasks.core.metrics import expert_agreement, judge_calls, mean_of, parse_failure_rate
from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.studies import rows_behind
from radiology_tasks.core.task_data import DataOptions, check_report_source, pair_to_sample, report_dataset
from radiology_tasks.core.unscored import UnscoredPolicy
from radiology_tasks.ct_finebench.extraction import qa_extraction
from radiology_tasks.ct_finebench.family import FAMILY
from radiology_tasks.ct_finebench.metrics import question_breakdown
from radiology_tasks.ct_finebench.options import QAMode
from radiology_tasks.ct_finebench.scorer import SCORE_KEY, qa_comparison
from templates import template_hashes

TASK_VERSION = FAMILY.version

logger = logging.getLogger(__name__)


def _metrics(pairs: list[ReportPair]) -> list[Metric]:
    metrics: list[Metric] = [mean_of(SCORE_KEY), question_breakdown()]
    if any(p.expert and p.expert.score is not None for p in pairs):
        metrics.append(expert_agreement(SCORE_KEY))
    return [*metrics, parse_failure_rate(SCORE_KEY), judge_calls()]


def _dataset_with_questions(options: DataOptions, *, generate: bool) -> tuple[MemoryDataset, dict[str, Any]]:
    """The data's reports that have questions, shuffled when seeded and limited, with a summary of the data."""
    if options.limit is not None and options.limit < 1:
        raise InputError(f"-T limit must be at least 1, got {options.limit}")
    # Shuffle and limit after leaving out reports without questions, so -T limit=2 gives two reports to score.
    everything = replace(options, limit=None, seed=None)
    # Generating: one sample per study, without the stored candidates and their expert scores (they describe
    # other reports than the model under test writes).
    loaded, summary = report_dataset(everything, require_candidate=not generate, generate=generate)
    pairs = [ReportPair.model_validate(sample.metadata) for sample in loaded]
    with_questions = [pair for pair in pairs if pair.qa]
    if not with_questions:
        raise InputError(
            f"no report in {summary['source']} has questions (a 'qa' list): use -T data=ct-finebench "
            "-T reports=FILE, or a data file with a 'qa' column"
        )
    # The bundled demo mixes modalities on purpose: its X-ray and MRI reports have no questions, which the task
    # metadata and the README state once. Any other data without questions for some reports is worth a warning.
    if len(with_questions) < len(pairs) and options.data not in (None, "demo"):
        logger.warning(
            "ct_finebench: %d of %d reports have no questions and are left out",
            len(pairs) - len(with_questions),
            len(pairs),
        )
    dataset = MemoryDataset([pair_to_sample(p) for p in with_questions], name=summary["source"])
    if options.seed is not None:
        dataset.shuffle(seed=options.seed)
    if options.limit is not None:
        dataset = MemoryDataset(list(dataset)[: options.limit], name=summary["source"])
    # Counted in data rows also when the samples are studies (generated reports), each of several rows.
    without = sum(rows_behind(pair) for pair in pairs if not pair.qa)
    summary |= {"rows_without_questions": without, "samples": len(dataset)}
    return dataset, summary


@task
def ct_finebench(
    data: str | None = None,
    candidates: str | None = None,
    reports: str | None = None,
    revision: str | None = None,
    limit: int | None = None,
    seed: int | None = None,
    on_bad_rows: OnBadRows = "error",
    layout: str | None = None,
    track: str | None = None,
    image_root: str | None = None,
    expert_scale: str | None = None,
    generate: bool = False,
    qa_mode: QAMode = "batch",
    constrain: ConstrainMode = "auto",
    judge_max_tokens: int | None = None,
    judge_retries: int = 1,
    unscored: UnscoredPolicy = "worst",
    baselines: str | list[str] | None = None,
) -> Task:
    """CT-FineBench: a judge answers the reference's attribute questions from the candidate, graded 0/0.5/1.

    Score: ``ct_finebench`` = mean grade over the report's questions. ``-T qa_mode=per_question`` asks the
    judge once per question (the paper's protocol) instead of once per report and step.

    Args:
        data: Registered dataset name (`radiology-tasks list`), a file, or a folder holding a downloaded copy of a
            public dataset, as in every task; only reports with questions (a `qa` list) are kept, before `seed`
            and `limit` apply. Not set: the bundled `demo` set, whose CT reports have questions.
        candidates: The candidates to judge, joined to the data by id: a `.jsonl`/`.csv` file with `id` and
            `candidate`, a ReXrank prediction file, or a generation log (the `.eval` log of the task that only
            writes reports; its generator and settings are recorded). Not set: the data's own candidates.
        reports: Your report file, joined by id, for a dataset that holds questions only (`ct-finebench`).
        revision: Hugging Face revision (commit, tag or `main`) of a registered hub dataset. Not set: the pinned
            commit.
        limit: Number of samples, taken after shuffling when `seed` is set. Not set: all.
        seed: Shuffle the samples with this seed before `limit` applies. Not set: the data's order.
        on_bad_rows: `error` stops at the first bad row, naming file, row and field; `skip` leaves it out, counted
            with its reason in the log (`data.rows_skipped`).
        layout: Read `data` with this layout instead of recognising it from file names and columns: `flat`,
            `rate-eval`, `radeval-expert`, `rexval`, `ct-finebench` or `rexrank`.
        track: For ReXrank prediction files, the reference: `findings` (the findings section, also when not set)
            or `findings_impression` (both sections, joined as ReXrank joins them).
        image_root: Folder the data's image paths are relative to (ReXrank's `--img_root_dir`). Not set: the data
            file's folder.
        expert_scale: `MIN,MAX`: the scale expert scores are read on, replacing the layout's or the file's
            (recorded as `data.expert_scale`). Not set: the layout's or the file's scale.
        generate: `true`: the model under test (`--model`) writes one report per study (pairs sharing a reference
            and its inputs; the sample id is the first pair's) from its indication, findings text and images;
            stored candidates and expert scores go unused, so nothing is compared with experts; `false`: the
            data's candidates are replayed, so `--model none` suffices.
        qa_mode: `batch`: one judge call answers all of a report's questions and one grades all its non-numeric
            answers; `per_question`: one call per question in each step (the paper's protocol).
        constrain: Constrain the judge's answer to its format: `auto` picks the backend's way where it has one
            (GBNF for llama.cpp, `structured_outputs` for vLLM, a JSON schema for JSON answers elsewhere); `off`;
            or force one request shape: `grammar`, `structured_outputs`, `response_format`.
        judge_max_tokens: Upper bound on each judge answer. Not set: that answer's contract budget (820 tokens per
            question for extraction, 28 per question for grading, plus 16).
        judge_retries: Re-asks of a judge answer that cannot be read as a whole (broken JSON).
        unscored: A report with no graded question: `worst` counts it as 0 in the means, `exclude` leaves it out.
        baselines: Lexical baselines scored beside the judge on the same samples, comma-separated: `bleu` (all
            four orders), `bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`. Not set: none.
    """
    judge_options: dict[str, Any] = {
        "constrain": constrain,
        "max_tokens": judge_max_tokens,
        "retries": judge_retries,
    }
    solver = qa_extraction(qa_mode, **judge_options)
    scorer = qa_comparison(qa_mode, **judge_options, unscored=unscored)
    check_report_source(generate, candidates)
    dataset, summary = _dataset_with_questions(
        DataOptions(
            data, candidates, reports, revision, limit, seed, on_bad_rows, layout, track, image_root, expert_scale
        ),
        generate=generate,
    )
    require_judge()
    pairs = [ReportPair.model_validate(sample.metadata) for sample in dataset]
    with_expert = any(p.expert and p.expert.score is not None for p in pairs)
    scorer, metrics = add_baselines(scorer, _metrics(pairs), baselines, unscored=unscored, with_expert=with_expert)
    return Task(
        dataset=dataset,
        solver=[generate_report() if generate else replay_candidate(), solver],
        scorer=scorer,
        metrics=metrics,
        metadata={
            "data": summary,
            "qa_mode": qa_mode,
            "questions": sum(len(p.qa) for p in pairs),
            "templates": template_hashes("ct_finebench"),
        },
        version=TASK_VERSION,
    )
