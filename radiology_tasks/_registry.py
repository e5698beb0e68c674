"""Inspect entry point: importing this registers the package's tasks, scorers, solvers and model provider.

Every `inspect` process imports it, so it (and what it imports) must stay light: no scipy, numpy, pandas,
datasets or llama_cpp at module level.
"""

from radiology_tasks.core.llama_cpp_provider import llama_cpp_api
from radiology_tasks.core.solvers import generate_report, replay_candidate
from radiology_tasks.green_vert.scorer import report_judge
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.judge_sensitivity.scorer import sensitivity_judge
from radiology_tasks.judge_sensitivity.solvers import inject_errors, paraphrase
from radiology_tasks.judge_sensitivity.tasks import judge_sensitivity

__all__ = [
    "generate_report",
    "green",
    "inject_errors",
    "judge_sensitivity",
    "llama_cpp_api",
    "paraphrase",
    "replay_candidate",
    "report_judge",
    "sensitivity_judge",
    "vert",
]
