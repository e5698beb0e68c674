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

from inspect_ai import Task, task

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.loading import load_options
from radiology_tasks.core.metrics import (
    ExpertPresence,
)
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.core.studies import rows_behind
from radiology_tasks.core.task_data import DataOptions, TaskData, sampled
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.ct_finebench.asking import QAJudge
from radiology_tasks.ct_finebench.extraction import qa_extraction
from radiology_tasks.ct_finebench.family import FAMILY
from radiology_tasks.ct_finebench.options import QAMode, qa_mode_param
from radiology_tasks.ct_finebench.run_metrics import ct_metrics
from radiology_tasks.ct_finebench.scorer import qa_comparison
from radiology_tasks.lexical import BaselineOptions, add_baselines
from radiology_tasks.templates import template_hashes

TASK_VERSION = FAMILY.version

logger = logging.getLogger(__name__)


def _dataset_with_questions(options: DataOptions) -> TaskData:
    """The data's reports that have questions, shuffled when seeded and limited, with a summary of the data."""
    # Generating: one sample per study, without the stored candidates and their expert scores (they describe
    # other reports than the model under test writes).
    loaded = load_options(options, require_candidate=not options.generate, per_study=options.generate)
    with_questions = [pair for pair in loaded.pairs if pair.qa]
    if not with_questions:
        raise InputError(
            f"no report in {loaded.source} has questions (a 'qa' list): use -T data=ct-finebench "
            "-T reports=FILE, or a data file with a 'qa' column"
        )
    # The bundled demo mixes modalities on purpose: its X-ray and MRI reports have no questions, which the task
    # metadata and the README state once. Any other data without questions for some reports is worth a warning.
    if len(with_questions) < len(loaded.pairs) and options.data not in (None, "demo"):
        logger.warning(
            "ct_finebench: %d of %d reports have no questions and are left out",
            len(loaded.pairs) - len(with_questions),
            len(loaded.pairs),
        )
    # Seed and limit apply to the reports with questions, so -T limit=2 gives two reports to score.
    task_data = sampled(options, loaded, with_questions)
    # Counted in data rows also when the samples are studies (generated reports), each of several rows.
    task_data.summary["rows_without_questions"] = sum(rows_behind(pair) for pair in loaded.pairs if not pair.qa)
    return task_data


@task
@shared_parameters(
    data=shared(DataOptions, without=["report_max_tokens"]), judge=shared(JudgeOptions), beside=shared(BaselineOptions)
)
def ct_finebench(
    qa_mode: QAMode = "batch",
    *,
    data: DataOptions,
    judge: JudgeOptions,
    beside: BaselineOptions,
) -> Task:
    """CT-FineBench: a judge answers the reference's attribute questions from the candidate, graded 0/0.5/1.

    Score: ``ct_finebench`` = mean grade over the report's questions. ``-T qa_mode=per_question`` asks the
    judge once per question (the paper's protocol) instead of once per report and step.

    Args:
        data: Registered dataset name (`radiology-tasks list`), a file, or a folder holding a downloaded copy of a
            public dataset, as in every task; only reports with questions (a `qa` list) are kept, before `seed`
            and `limit` apply. Not set: the bundled `demo` set, whose CT reports have questions.
        qa_mode: `batch`: one judge call answers all of a report's questions and one grades all its non-numeric
            answers; `per_question`: one call per question in each step (the paper's protocol).
        judge_max_tokens: Upper bound on each judge answer. Not set: that answer's contract budget (820 tokens per
            question for extraction, 28 per question for grading, plus 16).
        judge_retries: Re-asks of a judge answer that cannot be read as a whole (broken JSON).
        unscored: A report with no graded question: `worst` counts it as 0 in the means, `exclude` leaves it out.
    """
    asking = QAJudge(qa_mode_param(qa_mode), judge)
    solver, scorer = qa_extraction(asking), qa_comparison(asking)
    dataset, summary, pairs = _dataset_with_questions(data)
    require_judge()
    scorer = add_baselines(scorer, beside.baselines, unscored=judge.unscored)
    metrics = ct_metrics(ExpertPresence.of_pairs(pairs), beside.baselines)
    return Task(
        dataset=dataset,
        solver=[generate_report() if data.generate else replay_candidate(), solver],
        scorer=scorer,
        metrics=[*metrics.headline],
        metadata={
            "data": summary,
            "qa_mode": qa_mode,
            "questions": sum(len(p.qa) for p in pairs),
            "templates": template_hashes("ct_finebench"),
        },
        version=TASK_VERSION,
    )
