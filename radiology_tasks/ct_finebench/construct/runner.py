"""Work through the reports with bounded concurrency, a progress bar, and one output line per finished report."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.model import Model
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from radiology_tasks.ct_finebench.construct.judging import JudgeOptions, judge_model
from radiology_tasks.ct_finebench.construct.output import FAILED, ResumableOutput
from radiology_tasks.ct_finebench.construct.reports import ReportRow

Work = Callable[[ReportRow], Awaitable[dict[str, Any]]]
"""Makes the output line of one report (a failure line when its answer stays unreadable)."""


@dataclass
class RunSummary:
    """What one run did.

    Attributes:
        done: Reports written with status ``ok`` in this run.
        failures: ``(report id, reason: detail)`` of each failure line written in this run.
    """

    done: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)


def _failure(line: dict[str, Any]) -> str | None:
    construction = line["construction"]
    if construction["status"] != FAILED:
        return None
    return f"{construction['reason']}: {construction.get('detail') or ''}".rstrip(": ")


def _stopped(cause: str, summary: RunSummary, output: ResumableOutput) -> RuntimeError:
    finished = summary.done + len(summary.failures)
    return RuntimeError(
        f"{cause}. The {finished} reports finished in this run are kept in {output.path}; "
        "rerun the same command to go on"
    )


async def _run(
    reports: Sequence[ReportRow], work: Work, output: ResumableOutput, connections: int, label: str, summary: RunSummary
) -> None:
    limit = asyncio.Semaphore(connections)
    console = Console(stderr=True)
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[failed]} failed"),
        TimeElapsedColumn(),
        console=console,
        disable=not console.is_terminal,
    )

    async def one(report: ReportRow, task_id: Any) -> None:
        async with limit:
            line = await work(report)
        output.append(line)
        failure = _failure(line)
        if failure is None:
            summary.done += 1
        else:
            summary.failures.append((report.id, failure))
        progress.update(task_id, advance=1, failed=len(summary.failures))

    with progress:
        task_id = progress.add_task(label, total=len(reports), failed=0)
        tasks = [asyncio.ensure_future(one(report, task_id)) for report in reports]
        if not tasks:
            return
        finished, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        for task in finished:
            error = task.exception()
            if error is not None:
                first_line = (str(error).strip().splitlines() or [""])[0]
                raise _stopped(f"stopped by {type(error).__name__}: {first_line}", summary, output) from error


def run_reports(
    reports: Sequence[ReportRow], work: Work, output: ResumableOutput, *, connections: int, label: str
) -> RunSummary:
    """Make and append the line of every report, `connections` at a time, with a progress bar on a terminal.

    An error that is not about one report (authentication, an unknown model, a crash) stops the run: lines
    already written stay in the output, and the error is raised as one line.

    Args:
        reports: The reports still to do.
        work: Makes one report's line.
        output: The started output file (`ResumableOutput.start`).
        connections: Reports worked on at the same time.
        label: The progress bar's label.
    """
    summary = RunSummary()
    with output:
        try:
            asyncio.run(_run(reports, work, output, connections, label, summary))
        except KeyboardInterrupt:
            raise _stopped("interrupted", summary, output) from None
    return summary


def run_step(
    command: str,
    reports: Sequence[ReportRow],
    keys: Mapping[str, str],
    out: Path,
    options: JudgeOptions,
    make_work: Callable[[Model], Work],
    *,
    restart: bool,
    label: str,
) -> tuple[RunSummary, int]:
    """Resume `out` (or start it over with `restart`), then make the lines of the reports not done yet.

    Args:
        command: The subcommand's name, for messages.
        reports: Every report of the input.
        keys: ``report id -> key`` the lines must have been made from (`ResumableOutput.start`).
        out: The output file.
        options: The judge options.
        make_work: Given the judge, makes one report's line.
        restart: Start the output over.
        label: The progress bar's label.

    Returns:
        What this run did, and the number of reports done by earlier runs.
    """
    output = ResumableOutput(out)
    resumed = output.start(keys, restart=restart)
    if resumed.kept or resumed.dropped:
        print(f"{command}: {resumed.describe()}")
    todo = [report for report in reports if report.id not in resumed.kept]
    if not todo:
        return RunSummary(), len(resumed.kept)
    work = make_work(judge_model(options))
    summary = run_reports(todo, work, output, connections=options.max_connections, label=label)
    output.order([report.id for report in reports])
    return summary, len(resumed.kept)


def print_summary(command: str, summary: RunSummary, kept: int, out: str) -> int:
    """Print what the run did and list its failures; the exit code: 1 when any report failed, else 0."""
    total = kept + summary.done + len(summary.failures)
    print(
        f"{command}: {total} reports in {out}: {kept} done earlier, {summary.done} done now, "
        f"{len(summary.failures)} failed"
    )
    for report_id, reason in summary.failures:
        print(f"  failed {report_id}: {reason}")
    if summary.failures:
        print(f"{command}: rerun the same command to retry the failed reports")
        return 1
    return 0
