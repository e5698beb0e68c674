"""The metric suite's subcommand of `radiology-tasks`: `suite-report`, its tables from logs."""

from __future__ import annotations

import argparse

from radiology_tasks.core.cli_args import non_negative_int


def _suite_report(args: argparse.Namespace) -> int:
    from radiology_tasks.suite.report import suite_report_command

    return suite_report_command(
        args.logs, args.out, keys=args.keys, pairs_by_id=args.pairs_by_id, resamples=args.resamples, seed=args.seed
    )


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `suite-report` to the `radiology-tasks` parser."""
    suite = commands.add_parser(
        "suite-report", help="write the metric suite's tables (correlations, agreement with experts, pos/neg) from logs"
    )
    suite.add_argument("logs", nargs="+", help="a metric_suite log, or several logs of the same samples")
    suite.add_argument("--out", required=True, help="directory for the CSV, Markdown and heatmap files")
    suite.add_argument("--keys", help="comma-separated score keys to tabulate (default: every numeric score)")
    suite.add_argument("--pairs-by-id", action="store_true", help="pair <id>-para/-pos rows with <id>-err/-neg")
    suite.add_argument("--resamples", type=non_negative_int, default=1000, help="bootstrap resamples for the intervals")
    suite.add_argument("--seed", type=int, default=0)
    suite.set_defaults(run=_suite_report)
