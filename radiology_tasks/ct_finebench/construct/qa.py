"""Step 3, ``radiology-tasks ctfb-qa``: the judge answers the schema's questions from each report.

Per report, one call asks which schema findings the report states present or absent, and one more asks the
attribute questions of the findings it states present (none when there are none). Ids an answer leaves out are
asked once more on their own (`radiology_tasks.ct_finebench.asking`). The output line is the input row, every
column kept, with ``qa`` set to the report's questions and a ``construction`` column (key, status, judge cost);
``inspect eval radiology_tasks/ct_finebench -T data=<output>`` loads it. A report whose answers stay
unreadable gets ``qa: []`` and ``status: failed`` with the reason, and is redone by the next run.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from inspect_ai.model import Model

from radiology_tasks.ct_finebench.asking import IdOutcome, ask_for_ids
from radiology_tasks.ct_finebench.construct.judging import JudgeOptions, cost, last_answers
from radiology_tasks.ct_finebench.construct.output import FAILED, OK
from radiology_tasks.ct_finebench.construct.reports import ReportRow, read_reports
from radiology_tasks.ct_finebench.construct.runner import RunSummary, Work, print_summary, run_step
from radiology_tasks.scorers.ct_finebench.answers import read_extraction
from radiology_tasks.scorers.ct_finebench.construction_answers import read_existence
from radiology_tasks.scorers.ct_finebench.construction_contracts import existence_contract
from radiology_tasks.scorers.ct_finebench.construction_qa import (
    AttributeItem,
    ExistenceQuestions,
    FindingItem,
    attribute_items,
    build_qa,
    finding_items,
    present_findings,
)
from radiology_tasks.scorers.ct_finebench.construction_schema import AttributeSchema, load_schema, schema_fingerprint
from radiology_tasks.scorers.ct_finebench.contracts import ANSWER_MAX_CHARS, extraction_contract
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

COMMAND = "ctfb-qa"


def existence_prompt(findings: dict[str, FindingItem], report: str, ids: Sequence[str]) -> str:
    """The prompt asking what `report` (already neutralised) says about the findings with these ids."""
    listed = [
        {
            "id": key,
            "name": findings[key].finding.finding,
            "aliases": findings[key].finding.aliases,
            "description": findings[key].finding.description or "",
        }
        for key in ids
    ]
    return render("ct_finebench/construct_existence", schema_findings=listed, report=report)


def attribute_prompt(attributes: dict[str, AttributeItem], report: str, ids: Sequence[str]) -> str:
    """The prompt asking `report` (already neutralised) the attribute questions with these ids."""
    questions = [
        {
            "id": key,
            "text": attributes[key].attribute.question,
            "finding": attributes[key].finding.finding,
            "attribute": attributes[key].attribute.attribute,
            "description": attributes[key].attribute.description or "",
            "examples": attributes[key].attribute.examples,
        }
        for key in ids
    ]
    return render(
        "ct_finebench/construct_attributes", questions=questions, report=report, answer_max_chars=ANSWER_MAX_CHARS
    )


def _judge_summary(outcomes: list[IdOutcome[Any]]) -> dict[str, Any]:
    results = [result for outcome in outcomes for result in outcome.results]
    constraints = "; ".join(dict.fromkeys(o.constraint for o in outcomes if o.constraint))
    return cost(results, constraints or None) | {"follow_ups": sum(o.follow_ups for o in outcomes)}


def _failed_line(row: dict[str, Any], construction: dict[str, Any], outcomes: list[IdOutcome[Any]]) -> dict[str, Any]:
    missing = next(outcome.missing for outcome in outcomes if outcome.missing)
    key, (reason, detail) = next(iter(missing.items()))
    construction |= {
        "status": FAILED,
        "reason": reason,
        "detail": f"{key}: {detail}",
        "attempts": last_answers([result for outcome in outcomes for result in outcome.results]),
    }
    return {**row, "qa": [], "construction": construction}


async def report_qa(
    judge: Model,
    report: ReportRow,
    *,
    schema: AttributeSchema,
    key: str,
    options: JudgeOptions,
    existence: ExistenceQuestions,
) -> dict[str, Any]:
    """Ask `judge` about one report and make its output line (see the module docstring)."""
    text = neutralize_candidate(report.reference)
    findings = finding_items(schema)
    by_id = {item.id: item for item in findings}
    ask_existence = options.step(partial(existence_prompt, by_id, text), existence_contract, read_existence)
    outcomes: list[IdOutcome[Any]] = [await ask_for_ids(judge, ask_existence, list(by_id))]
    statuses = outcomes[0].values
    attributes = attribute_items(present_findings(findings, statuses)) if not outcomes[0].missing else []
    if attributes:
        items = {item.id: item for item in attributes}
        ask_attributes = options.step(partial(attribute_prompt, items, text), extraction_contract, read_extraction)
        outcomes.append(await ask_for_ids(judge, ask_attributes, list(items)))
    construction: dict[str, Any] = {"key": key, "judge": _judge_summary(outcomes)}
    if any(outcome.missing for outcome in outcomes):
        return _failed_line(report.row, construction, outcomes)
    answers = outcomes[1].values if len(outcomes) > 1 else {}
    qa = build_qa(findings, statuses, attributes, answers, existence)
    return {**report.row, "qa": [pair.model_dump() for pair in qa], "construction": {**construction, "status": OK}}


def run_qa(
    data: str,
    schema_path: Path,
    out: Path,
    options: JudgeOptions,
    *,
    existence: ExistenceQuestions = "stated",
    limit: int | None = None,
    restart: bool = False,
) -> tuple[RunSummary, int]:
    """Write the questions of every report in `data` to `out`, skipping reports already there.

    A line is redone when its report text, the schema (apart from counts) or `existence` changed.

    Returns:
        What this run did, and the number of reports done by earlier runs.
    """
    schema = load_schema(schema_path)
    reports = read_reports(data, limit)
    fingerprint = f"{schema_fingerprint(schema)}:{existence}"
    keys = {report.id: f"{report.hash}:{fingerprint}" for report in reports}

    def make_work(judge: Model) -> Work:
        async def work(report: ReportRow) -> dict[str, Any]:
            return await report_qa(
                judge, report, schema=schema, key=keys[report.id], options=options, existence=existence
            )

        return work

    return run_step(COMMAND, reports, keys, out, options, make_work, restart=restart, label="questions")


def qa_command(args: Any, options: JudgeOptions) -> int:
    """``radiology-tasks ctfb-qa``: run step 3 and print what it did."""
    summary, kept = run_qa(
        args.data,
        Path(args.schema),
        Path(args.out),
        options,
        existence=args.existence,
        limit=args.limit,
        restart=args.restart,
    )
    return print_summary(COMMAND, summary, kept, args.out)
