"""Measure what the bounded output contract buys the embedded judge on the bundled demo set.

Runs the GREEN and VERT tasks with the in-process SmolLM2 grader for each level of detail (``full``, the
paper's answer, and ``brief``) and each constraint mode (``auto`` by default; ``off`` on request), and
prints for each run: reports whose judge answer could not be read (``parse_failure_rate``), reports asked
again and reports whose answer hit the token budget, judge calls, input/output tokens per report, speed
(output tokens per second and seconds per judge call, from the compute time the provider records for each
call with the model lock held, so queueing behind other samples is not counted; and wall-clock seconds per
report), and the main score's Kendall tau against the demo set's expert scores.

Usage::

    python bench/judge_constraint.py [--judges green vert] [--details full brief] [--modes auto off]
        [--limit N] [--limit-off N] [--log-dir DIR]
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from datetime import datetime

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log

from radiology_tasks.core.run_report import report_of

GRADER = "llama-cpp/smollm2-135m"
"""The embedded judge. Inspect matches a provider by its unqualified registry name, so this
is ``llama-cpp/...`` (``radiology_tasks/llama-cpp/...`` is not recognised by `get_model`)."""

ROLE = "grader"
JUDGES = ("green", "vert")
MODES = ("auto", "off")
DETAILS = ("full", "brief")


@dataclass(frozen=True)
class RunStats:
    """Figures for one judge run.

    Attributes:
        task: Task name, e.g. ``radiology_tasks/green``.
        mode: The task's ``constrain`` argument.
        detail: The task's ``detail`` argument.
        reports: Samples (report pairs) in the run.
        unparsed: Reports whose main score could not be read from the judge's answer.
        retried: Reports whose judge was asked more than once.
        truncated: Reports with an answer that stopped at the token budget.
        kendall_tau: Kendall tau-b of the main score with the expert score (NaN without pairs).
        judge_calls: Grader model calls across all reports.
        input_tokens: Grader input tokens across all reports.
        output_tokens: Grader output tokens across all reports.
        tokens_per_second: Output tokens per second of judge compute time (NaN if no calls).
        seconds_per_call: Judge compute seconds per call, prompt reading included.
        wall_seconds_per_report: Wall-clock seconds of the whole run per report.
    """

    task: str
    mode: str
    detail: str
    reports: int
    unparsed: int
    retried: int
    truncated: int
    kendall_tau: float
    judge_calls: int
    input_tokens: int
    output_tokens: int
    tokens_per_second: float
    seconds_per_call: float
    wall_seconds_per_report: float

    @property
    def parse_failure_rate(self) -> float:
        """Share of reports with an unreadable judge answer."""
        return self.unparsed / self.reports if self.reports else math.nan


def run_task(task: str, mode: str, detail: str, limit: int | None, log_dir: str) -> EvalLog:
    """Evaluate `task` with the embedded grader and return its log, samples included.

    Raises:
        RuntimeError: The evaluation did not finish successfully.
    """
    from inspect_ai import eval

    [log] = eval(
        task,
        task_args={"constrain": mode, "detail": detail},
        model="none",
        model_roles={ROLE: GRADER},
        limit=limit,
        log_dir=log_dir,
        display="none",
    )
    if log.status != "success":
        reason = log.error.message if log.error else "no error recorded"
        raise RuntimeError(f"{task} (constrain={mode}, detail={detail}) ended with status {log.status}: {reason}")
    # re-read from disk: the in-memory log condenses events; the file holds every grader call
    return read_eval_log(log.location)


def grader_events(log: EvalLog) -> list[ModelEvent]:
    """All grader model calls in the log, in sample order."""
    return [
        event
        for sample in log.samples or []
        for event in sample.events
        if isinstance(event, ModelEvent) and event.role == ROLE
    ]


def metric_value(log: EvalLog, name: str) -> float:
    """A figure of the run (``parse_failure_rate``, ``retried``, ``vert_kendall_tau``, ...), as
    `radiology-tasks report` computes it from the log (NaN when undefined on the run's samples).

    Raises:
        RuntimeError: The run has no figure of this name.
    """
    report = report_of(log)
    figures = {f.name: f for f in [*report.headline, *report.secondary]}
    if name not in figures:
        raise RuntimeError(f"{log.eval.task}: no metric {name!r} (has {', '.join(figures)})")
    value = figures[name].value
    return float("nan") if value is None else value


def compute_seconds(events: list[ModelEvent]) -> float:
    """Judge compute seconds of the calls, as the provider recorded them."""
    if any(event.call is None or event.call.time is None for event in events):
        raise RuntimeError("a grader call has no recorded time; is the grader the embedded llama-cpp provider?")
    return sum(event.call.time for event in events if event.call and event.call.time is not None)


def measure(task: str, mode: str, detail: str, limit: int | None, log_dir: str) -> RunStats:
    """Run one task/mode/detail and collect its `RunStats`."""
    log = run_task(task, mode, detail, limit, log_dir)
    events = grader_events(log)
    usage = log.stats.role_usage.get(ROLE)
    seconds = compute_seconds(events)
    output_tokens = usage.output_tokens if usage else 0
    reports = len(log.samples or [])
    wall = (
        datetime.fromisoformat(log.stats.completed_at) - datetime.fromisoformat(log.stats.started_at)
    ).total_seconds()
    main = task.rsplit("/", 1)[-1]
    return RunStats(
        task=task,
        mode=mode,
        detail=detail,
        reports=reports,
        unparsed=round(metric_value(log, "parse_failure_rate") * reports),
        retried=int(metric_value(log, "retried")),
        truncated=int(metric_value(log, "truncated")),
        kendall_tau=metric_value(log, f"{main}_kendall_tau"),
        judge_calls=len(events),
        input_tokens=usage.input_tokens if usage else 0,
        output_tokens=output_tokens,
        tokens_per_second=output_tokens / seconds if seconds else math.nan,
        seconds_per_call=seconds / len(events) if events else math.nan,
        wall_seconds_per_report=wall / reports if reports else math.nan,
    )


def format_table(rows: list[RunStats]) -> str:
    """Render the runs as a fixed-width text table."""
    header = (
        f"{'task':<24} {'constrain':<10}{'detail':<7}{'reports':>8}{'parse fail':>12}{'retried':>8}{'trunc':>6}"
        f"{'calls':>7}{'in tok/report':>15}{'out tok/report':>16}{'out tok/s':>11}{'s/call':>8}"
        f"{'wall s/report':>15}{'tau vs expert':>15}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        per_report = max(r.reports, 1)
        lines.append(
            f"{r.task:<24} {r.mode:<10}{r.detail:<7}{r.reports:>8}"
            f"{f'{r.unparsed} ({r.parse_failure_rate:.0%})':>12}{r.retried:>8}{r.truncated:>6}{r.judge_calls:>7}"
            f"{r.input_tokens / per_report:>15.1f}{r.output_tokens / per_report:>16.1f}"
            f"{r.tokens_per_second:>11.1f}{r.seconds_per_call:>8.2f}{r.wall_seconds_per_report:>15.2f}"
            f"{r.kendall_tau:>15.3f}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run every judge in every mode and print the comparison table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="reports per run (default: all)")
    parser.add_argument(
        "--limit-off",
        type=int,
        default=None,
        help="reports per unconstrained run (default: --limit); these runs often hit the token cap and are slow",
    )
    parser.add_argument("--log-dir", default="logs/bench-judge-constraint", help="where eval logs go")
    parser.add_argument("--judges", nargs="+", choices=JUDGES, default=list(JUDGES), help="tasks to run")
    parser.add_argument("--details", nargs="+", choices=DETAILS, default=list(DETAILS), help="levels of detail")
    parser.add_argument("--modes", nargs="+", choices=MODES, default=["auto"], help="constraint modes")
    args = parser.parse_args(argv)

    rows = [
        measure(
            f"radiology_tasks/{judge}",
            mode,
            detail,
            args.limit_off if mode == "off" and args.limit_off is not None else args.limit,
            args.log_dir,
        )
        for judge in args.judges
        for mode in args.modes
        for detail in args.details
    ]
    print(f"grader: {GRADER}")
    print(format_table(rows))


if __name__ == "__main__":
    main()
