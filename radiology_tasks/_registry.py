"""Inspect entry point: importing this registers the package's tasks, scorers, solvers and model provider.

Every `inspect` process imports it, so it (and what it imports) must stay light: no scipy, numpy, pandas,
datasets or llama_cpp at module level.
"""

from radiology_tasks.baselines.scorer import lexical_baselines, radeval_metrics, with_baselines
from radiology_tasks.baselines.tasks import baselines, metric_suite, suite_scorer
from radiology_tasks.core.llama_cpp_provider import llama_cpp_api
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.ct_finebench.extraction import qa_extraction
from radiology_tasks.ct_finebench.scorer import qa_comparison
from radiology_tasks.ct_finebench.tasks import ct_finebench
from radiology_tasks.green_vert.scorer import report_judge
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.judge_sensitivity.scorer import sensitivity_judge
from radiology_tasks.judge_sensitivity.solvers import inject_errors, paraphrase
from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity
from radiology_tasks.ran_score.scorer import finding_agreement
from radiology_tasks.ran_score.solver import extract_findings
from radiology_tasks.ran_score.tasks import ran_score

__all__ = [
    "baselines",
    "ct_finebench",
    "extract_findings",
    "finding_agreement",
    "generate_report",
    "green",
    "inject_errors",
    "judge_sensitivity",
    "lexical_baselines",
    "llama_cpp_api",
    "metric_suite",
    "paraphrase",
    "qa_comparison",
    "qa_extraction",
    "radeval_metrics",
    "ran_score",
    "replay_candidate",
    "report_judge",
    "sensitivity_judge",
    "suite_scorer",
    "vert",
    "with_baselines",
]
