"""What CT-FineBench costs per report: one judge call per step (default) against one call per question.

Runs ``radiology_tasks/ct_finebench`` on the bundled demo set twice with the same reports and judge, with
``qa_mode=batch`` (the default) and ``qa_mode=per_question`` (the paper's protocol), and prints per mode the
judge calls, input and output tokens per report (Inspect's usage accounting of the ``grader`` role), unscored
reports and questions, and seconds per report; then the share of per-question input tokens the default uses.

Usage::

    python bench/ct_finebench_cost.py [--limit N] [--grader MODEL] [--log-dir DIR]
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import datetime

from inspect_ai.event import ModelEvent
from inspect_ai.log import EvalLog, read_eval_log

from radiology_tasks.core.run_report import report_of

GRADER = "llama-cpp/smollm2-135m"
ROLE = "grader"
MODES = ("batch", "per_question")
TASK = "radiology_tasks/ct_finebench"


@dataclass(frozen=True)
class ModeCost:
    """The cost of one run.

    Attributes:
        mode: ``qa_mode`` of the run.
        reports: Reports (samples) evaluated.
        questions: Questions over all reports.
        unscored_reports: Reports without any graded question.
        unscored_questions: Questions without a grade (no usable judge answer).
        calls: Judge calls.
        input_tokens: Judge input tokens.
        output_tokens: Judge output tokens.
        wall_seconds: Wall-clock seconds of the run.
        mean_score: ``ct_finebench_mean`` of the run.
        unanswered_share: Share of questions the judge found unanswered in the candidates.
        kendall: Kendall tau-b against the expert scores, with its bootstrap 95% interval.
    """

    mode: str
    reports: int
    questions: int
    unscored_reports: int
    unscored_questions: int
    calls: int
    input_tokens: int
    output_tokens: int
    wall_seconds: float
    mean_score: float
    unanswered_share: float
    kendall: tuple[float, float, float]

    def per_report(self, value: float) -> float:
        """`value` divided by the number of reports."""
        return value / self.reports if self.reports else float("nan")


def run_mode(mode: str, *, limit: int | None, grader: str, log_dir: str) -> EvalLog:
    """Evaluate the task in one ``qa_mode`` and return its log as written (every judge call included).

    Raises:
        RuntimeError: The evaluation did not finish successfully.
    """
    from inspect_ai import eval

    [log] = eval(
        TASK,
        task_args={"qa_mode": mode, **({"limit": limit} if limit else {})},
        model="none",
        model_roles={ROLE: grader},
        log_dir=log_dir,
        display="none",
    )
    if log.status != "success":
        raise RuntimeError(f"{TASK} (qa_mode={mode}) ended with status {log.status}: {log.error}")
    return read_eval_log(log.location)


def mode_cost(mode: str, log: EvalLog) -> ModeCost:
    """Collect the figures of one run from its log."""
    samples = log.samples or []
    calls = sum(1 for s in samples for e in s.events if isinstance(e, ModelEvent) and e.role == ROLE)
    usage = log.stats.role_usage.get(ROLE)
    # Every figure as `radiology-tasks report` computes it from the log (the log keeps only the run's summary).
    report = report_of(log)
    metrics = {f.name: float("nan") if f.value is None else f.value for f in [*report.headline, *report.secondary]}
    started, completed = (datetime.fromisoformat(t) for t in (log.stats.started_at, log.stats.completed_at))
    return ModeCost(
        mode=mode,
        reports=len(samples),
        questions=int(metrics["questions_total"]),
        unscored_reports=int(metrics["unscored"]),
        unscored_questions=int(metrics["questions_unscored"]),
        calls=calls,
        input_tokens=usage.input_tokens if usage else 0,
        output_tokens=usage.output_tokens if usage else 0,
        wall_seconds=(completed - started).total_seconds(),
        mean_score=float(metrics["ct_finebench_mean"]),
        unanswered_share=float(metrics["unanswered_share"]),
        kendall=(
            float(metrics.get("ct_finebench_kendall_tau", float("nan"))),
            float(metrics.get("ct_finebench_kendall_tau_ci_low", float("nan"))),
            float(metrics.get("ct_finebench_kendall_tau_ci_high", float("nan"))),
        ),
    )


def format_table(rows: list[ModeCost]) -> str:
    """The runs as a fixed-width table, then the input-token share of the default mode."""
    header = (
        f"{'qa_mode':<14}{'reports':>8}{'questions':>10}{'unscored rep/q':>16}{'calls/report':>14}"
        f"{'in tok/report':>15}{'out tok/report':>16}{'wall s/report':>15}{'mean':>7}{'unanswered':>11}"
        f"  Kendall tau vs expert [95% CI]"
    )
    lines = [header, "-" * len(header)]
    for r in rows:
        lines.append(
            f"{r.mode:<14}{r.reports:>8}{r.questions:>10}{f'{r.unscored_reports}/{r.unscored_questions}':>16}"
            f"{r.per_report(r.calls):>14.2f}{r.per_report(r.input_tokens):>15.1f}"
            f"{r.per_report(r.output_tokens):>16.1f}{r.per_report(r.wall_seconds):>15.1f}{r.mean_score:>7.3f}"
            f"{r.unanswered_share:>11.3f}  {r.kendall[0]:.3f} [{r.kendall[1]:.3f}, {r.kendall[2]:.3f}]"
        )
    by_mode = {r.mode: r for r in rows}
    if set(MODES) <= set(by_mode) and by_mode["per_question"].input_tokens:
        share = by_mode["batch"].input_tokens / by_mode["per_question"].input_tokens
        lines.append(f"batch input tokens per report = {share:.3f} x per_question (target: at most 0.200)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    """Run both modes on the same reports and print the comparison."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="reports per run (default: every demo report)")
    parser.add_argument("--grader", default=GRADER, help=f"judge model (default: {GRADER})")
    parser.add_argument("--log-dir", default="logs/bench-ct-finebench-cost", help="where eval logs go")
    args = parser.parse_args(argv)
    rows = [
        mode_cost(mode, run_mode(mode, limit=args.limit, grader=args.grader, log_dir=args.log_dir)) for mode in MODES
    ]
    print(f"grader: {args.grader}; data: bundled demo set")
    print(format_table(rows))


if __name__ == "__main__":
    main()
