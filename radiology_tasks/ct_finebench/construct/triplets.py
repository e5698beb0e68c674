"""Step 1, ``radiology-tasks ctfb-triplets``: the judge lists (finding, attribute, value) triplets per report.

Output: one JSONL line per report, ``{"id": ..., "triplets": [{"finding", "attribute", "value"}, ...],
"construction": {"key": <report hash>, "status": "ok", "judge": {calls, tokens, constraint}}}``, or a failure
line (``status: failed``, ``reason``, ``detail``, ``attempts``) when the answer stays unreadable.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from inspect_ai.model import GenerateConfig, Model

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.judge import ask_judge
from radiology_tasks.ct_finebench.construct.judging import JudgeOptions, cost, last_answers, unreadable_reason
from radiology_tasks.ct_finebench.construct.output import FAILED, OK
from radiology_tasks.ct_finebench.construct.reports import ReportRow, read_reports
from radiology_tasks.ct_finebench.construct.runner import RunSummary, Work, print_summary, run_step
from radiology_tasks.scorers.ct_finebench.construction_answers import read_triplets
from radiology_tasks.scorers.ct_finebench.construction_contracts import (
    ATTRIBUTE_MAX_CHARS,
    DEFAULT_MAX_TRIPLETS,
    FINDING_MAX_CHARS,
    VALUE_MAX_CHARS,
    triplet_contract,
)
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

COMMAND = "ctfb-triplets"


def triplet_prompt(report: str, max_triplets: int) -> str:
    """The step 1 prompt for one report text."""
    return render(
        "ct_finebench/construct_triplets",
        report=neutralize_candidate(report),
        max_triplets=max_triplets,
        finding_max_chars=FINDING_MAX_CHARS,
        attribute_max_chars=ATTRIBUTE_MAX_CHARS,
        value_max_chars=VALUE_MAX_CHARS,
    )


async def report_triplets(
    judge: Model, report: ReportRow, *, options: JudgeOptions, max_triplets: int = DEFAULT_MAX_TRIPLETS
) -> dict[str, Any]:
    """Ask `judge` for the triplets of one report and make its output line.

    Returns:
        The ``ok`` line with the triplets, or a failure line with the reason the answer stayed unreadable
        (``invalid_response_format``, ``truncated``) or there was none (``judge_context_exceeded``, ...).
    """
    contract = triplet_contract(max_triplets)
    constrained = constrained_config(judge, contract, options.constrain)
    config = constrained.config.merge(
        GenerateConfig(max_tokens=options.max_tokens or contract.max_tokens, temperature=0.0)
    )
    result = await ask_judge(
        judge,
        triplet_prompt(report.reference, max_triplets),
        config,
        lambda text: read_triplets(text, max_triplets),
        retries=options.retries,
    )
    construction: dict[str, Any] = {"key": report.hash, "judge": cost([result], constrained.description)}
    reading = result.reading
    if reading is None or reading.problem is not None:
        reason = result.failure or unreadable_reason(result)
        detail = result.failure_detail if reading is None else reading.problem
        construction |= {"status": FAILED, "reason": reason, "detail": detail, "attempts": last_answers([result])}
        return {"id": report.id, "construction": construction}
    triplets = [triplet.model_dump() for triplet in reading.triplets]
    return {"id": report.id, "triplets": triplets, "construction": {**construction, "status": OK}}


def run_triplets(
    data: str,
    out: Path,
    options: JudgeOptions,
    *,
    max_triplets: int = DEFAULT_MAX_TRIPLETS,
    limit: int | None = None,
    restart: bool = False,
) -> tuple[RunSummary, int]:
    """Write the triplets of every report in `data` to `out`, skipping reports already there.

    Returns:
        What this run did, and the number of reports done by earlier runs.
    """
    triplet_contract(max_triplets)  # a bad --max-triplets stops the run before any call
    reports = read_reports(data, limit)

    def make_work(judge: Model) -> Work:
        return partial(report_triplets, judge, options=options, max_triplets=max_triplets)

    keys = {report.id: report.hash for report in reports}
    return run_step(COMMAND, reports, keys, out, options, make_work, restart=restart, label="triplets")


def triplets_command(args: Any, options: JudgeOptions) -> int:
    """``radiology-tasks ctfb-triplets``: run step 1 and print what it did."""
    max_triplets = args.max_triplets if args.max_triplets is not None else DEFAULT_MAX_TRIPLETS
    summary, kept = run_triplets(
        args.data, Path(args.out), options, max_triplets=max_triplets, limit=args.limit, restart=args.restart
    )
    return print_summary(COMMAND, summary, kept, args.out)
