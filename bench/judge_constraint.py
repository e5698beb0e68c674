"""Measure what constrained decoding buys the embedded judge on the bundled demo set.

Runs the GREEN and VERT tasks with the in-process SmolLM2 grader, once with
``constrain="auto"`` and once with ``constrain="off"``, and prints for each run: the share of
reports whose judge answer could not be parsed (the primary scorer's ``unscored`` count), the
number of judge calls, input/output tokens per report, and speed: output tokens per second and
seconds per judge call, from the compute time the provider records for each call (taken with the
model lock held, so queueing behind other samples is not counted), and wall-clock seconds per
report for the whole run.

Usage::

    python bench/judge_constraint.py [--limit N] [--limit-off N] [--log-dir DIR] [--judges green vert]
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from datetime import datetime

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log

GRADER = "llama-cpp/smollm2-135m"
"""The embedded judge. Inspect matches a provider by its unqualified registry name, so this
is ``llama-cpp/...`` (``radiology_tasks/llama-cpp/...`` is not recognised by `get_model`)."""

ROLE = "grader"
JUDGES = ("green", "vert")
MODES = ("auto", "off")


@dataclass(frozen=True)
class RunStats:
    """Figures for one judge run.

    Attributes:
        task: Task name, e.g. ``radiology_tasks/green``.
        mode: The task's ``constrain`` argument.
        reports: Samples (report pairs) in the run.
        unparsed: Reports the primary scorer left unscored (judge answer not readable).
        judge_calls: Grader model calls across all reports.
        input_tokens: Grader input tokens across all reports.
        output_tokens: Grader output tokens across all reports.
        tokens_per_second: Output tokens per second of judge compute time (NaN if no calls).
        seconds_per_call: Judge compute seconds per call, prompt reading included.
        wall_seconds_per_report: Wall-clock seconds of the whole run per report.
    """

    task: str
    mode: str
    reports: int
    unparsed: int
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


def run_task(task: str, mode: str, limit: int | None, log_dir: str) -> EvalLog:
    """Evaluate `task` with the embedded grader and return its log, samples included.

    Raises:
        RuntimeError: The evaluation did not finish successfully.
    """
    from inspect_ai import eval

    [log] = eval(
        task,
        task_args={"constrain": mode},
        model="none",
        model_roles={ROLE: GRADER},
        limit=limit,
        log_dir=log_dir,
        display="none",
    )
    if log.status != "success":
        reason = log.error.message if log.error else "no error recorded"
        raise RuntimeError(f"{task} (constrain={mode}) ended with status {log.status}: {reason}")
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


def unparsed_reports(log: EvalLog) -> int:
    """Count the reports the primary (first) scorer could not score.

    Uses the scorer's ``unscored`` metric (from `radiology_tasks.core.metrics.parse_failure_rate`,
    which also sees dict scores whose every key is NaN); without it, Inspect's own count of
    unscored samples.

    Raises:
        RuntimeError: The log has no scores to read.
    """
    if log.results is None or not log.results.scores:
        raise RuntimeError(f"{log.eval.task}: the log has no scores")
    primary = log.results.scores[0]
    if "unscored" in primary.metrics:
        return int(primary.metrics["unscored"].value)
    return primary.unscored_samples or 0


def compute_seconds(events: list[ModelEvent]) -> float:
    """Judge compute seconds of the calls, as the provider recorded them."""
    if any(event.call is None or event.call.time is None for event in events):
        raise RuntimeError("a grader call has no recorded time; is the grader the embedded llama-cpp provider?")
    return sum(event.call.time for event in events if event.call and event.call.time is not None)


def measure(task: str, mode: str, limit: int | None, log_dir: str) -> RunStats:
    """Run one task/mode and collect its `RunStats`."""
    log = run_task(task, mode, limit, log_dir)
    events = grader_events(log)
    usage = log.stats.role_usage.get(ROLE)
    seconds = compute_seconds(events)
    output_tokens = usage.output_tokens if usage else 0
    reports = len(log.samples or [])
    wall = (
        datetime.fromisoformat(log.stats.completed_at) - datetime.fromisoformat(log.stats.started_at)
    ).total_seconds()
    return RunStats(
        task=task,
        mode=mode,
        reports=reports,
        unparsed=unparsed_reports(log),
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
        f"{'task':<24} {'constrain':<10}{'reports':>8}{'parse fail':>12}{'calls':>7}"
        f"{'in tok/report':>15}{'out tok/report':>16}{'out tok/s':>11}{'s/call':>8}{'wall s/report':>15}"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        per_report = max(r.reports, 1)
        lines.append(
            f"{r.task:<24} {r.mode:<10}{r.reports:>8}"
            f"{f'{r.unparsed} ({r.parse_failure_rate:.0%})':>12}{r.judge_calls:>7}"
            f"{r.input_tokens / per_report:>15.1f}{r.output_tokens / per_report:>16.1f}"
            f"{r.tokens_per_second:>11.1f}{r.seconds_per_call:>8.2f}{r.wall_seconds_per_report:>15.2f}"
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
    args = parser.parse_args(argv)

    rows = [
        measure(
            f"radiology_tasks/{judge}",
            mode,
            args.limit_off if mode == "off" and args.limit_off is not None else args.limit,
            args.log_dir,
        )
        for judge in args.judges
        for mode in MODES
    ]
    print(f"grader: {GRADER}")
    print(format_table(rows))


if __name__ == "__main__":
    main()
