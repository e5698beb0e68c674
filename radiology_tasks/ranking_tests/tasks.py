"""Ranking-intuition tests for any per-pair metric: does it order a case's candidates as a radiologist would?

The idea and the authors' suite are from "CRIMSON: A Clinically-Grounded LLM-Based Metric for Generative Radiology
Report Evaluation" (RadJudge, the ranking test suite of its repository): each case gives a reference and two or
more candidates with the order they should come out in, grouped by the clinical intuition it checks.

    inspect eval radiology_tasks/ranking_tests --model none                                   # ROUGE-L on the demo
    inspect eval radiology_tasks/ranking_tests --model none -T metric=bleu_rexrank -T data=FILE.jsonl
    inspect eval radiology_tasks/ranking_tests --model none -T metric=vert -T data=RadJudge/test_cases.py \\
        --model-role grader=openai-api/vllm/Qwen/Qwen3-8B
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from radiology_tasks.core.judge import require_judge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.task_options import shared, shared_parameters
from radiology_tasks.ranking_tests.cases import RankingCase, data_path, file_layout, read_cases
from radiology_tasks.ranking_tests.family import FAMILY
from radiology_tasks.ranking_tests.metric_choice import Direction, choose_metric
from radiology_tasks.ranking_tests.outcome import tolerance_param
from radiology_tasks.ranking_tests.run_metrics import ranking_metrics
from radiology_tasks.ranking_tests.scorer import candidate_pair, ranking_scorer
from radiology_tasks.ranking_tests.solver import cases_as_given
from radiology_tasks.templates import template_hashes

TASK_VERSION = FAMILY.version


def case_sample(case: RankingCase) -> Sample:
    """One sample per case: the reference is the input and target, the case is the metadata."""
    return Sample(id=case.id, input=case.reference, target=case.reference, metadata=case.model_dump(mode="json"))


def data_summary(data: str, path: Path, cases: list[RankingCase]) -> dict[str, Any]:
    """What pins the cases a run used: the file's layout and SHA-256 (the fingerprint a leaderboard compares), and
    the cases per category."""
    return {
        "source": data,
        "file": path.name,
        "fingerprint": {"layout": file_layout(path), "data_sha256": hashlib.sha256(path.read_bytes()).hexdigest()},
        "cases": len(cases),
        "categories": dict(Counter(case.category for case in cases)),
    }


@task
@shared_parameters(judge=shared(JudgeOptions, without=["unscored"]))
def ranking_tests(
    metric: str = "rouge_l",
    data: str = "demo",
    key: str | None = None,
    direction: Direction = "auto",
    tie_tolerance: float = 0.01,
    *,
    judge: JudgeOptions,
) -> Task:
    """Score every candidate of every ranking case with one metric and report how often the order is the expected one.

    Accuracy is the share of scored cases whose candidates the metric ordered as expected, with a 95% Wilson
    interval; a tie (candidates scored within `tie_tolerance` where an order was expected) is neither right nor
    wrong and has its own share; a case with a candidate the metric could not score is unscored, with the reason.

    Args:
        metric: The metric to test: a lexical one (`bleu_1` ... `bleu_4`, `bleu_rexrank`, `chrf`, `rouge_l`; no
            model) or an LLM judge a family adds to `metric_suite` (`green`, `vert`, ...; needs
            `--model-role grader=...`). Ran Score (a corpus F1) and CT-FineBench (needs questions per report) are
            refused with the reason.
        data: `demo` (the bundled cases), a `.jsonl` file in the flat layout, or the CRIMSON authors' RadJudge
            suite (`test_cases.py` as downloaded, or the same list as `.json`). The README gives both layouts.
        key: The score key of the metric to rank on (e.g. `green_ec`). Not set: the metric's main key.
        direction: `auto` (lower is better for error counts such as `green_ec`, higher otherwise), `higher` or
            `lower`.
        tie_tolerance: Two scores at most this far apart are a tie (the authors' equality check uses 0.01).
        constrain: Constrain the judge's answer to its format (judge metrics only), as in the metric's own task.
        judge_max_tokens: Upper bound on each judge answer (judge metrics only). Not set: the metric's own budget.
        judge_retries: Re-asks of a judge answer that leaves a score unreadable (judge metrics only).
    """
    tolerance = tolerance_param(tie_tolerance)
    path = data_path(data)
    cases = read_cases(path)
    pairs = [candidate_pair(case, candidate) for case in cases for candidate in case.candidates]
    chosen = choose_metric(metric, key, direction, judge, pairs)
    if chosen.judged:
        require_judge()
    templates: dict[str, str] = {}
    for folder in chosen.templates:
        templates |= template_hashes(folder)
    scorer = ranking_scorer(
        chosen.build(), chosen.name, chosen.key, higher_is_better=chosen.higher_is_better, tie_tolerance=tolerance
    )
    metrics = ranking_metrics(judged=chosen.judged).headline
    return Task(
        dataset=MemoryDataset([case_sample(case) for case in cases], name=path.stem),
        solver=cases_as_given(),
        scorer=scorer,
        metrics=[*metrics],
        metadata={
            "data": data_summary(data, path, cases),
            "metric": chosen.name,
            "key": chosen.key,
            "higher_is_better": chosen.higher_is_better,
            "templates": templates,
        },
        version=TASK_VERSION,
    )
