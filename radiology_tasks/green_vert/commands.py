"""The GREEN/VERT subcommand of `radiology-tasks`: `ensemble` combines judges' logs."""

from __future__ import annotations

import argparse


def _ensemble(args: argparse.Namespace) -> int:
    from radiology_tasks.green_vert.ensemble import ensemble_report, format_report

    report = ensemble_report(
        args.logs,
        score_key=args.score_key,
        train_logs=args.train_log,
        train_fraction=args.train_fraction,
        higher_is_better=not args.lower_is_better,
        seed=args.seed,
    )
    print(format_report(report), end="")
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `ensemble` to the `radiology-tasks` parser."""
    ensemble = commands.add_parser(
        "ensemble",
        help="compare judges' logs of the same expert-rated samples with their average and regression ensembles",
    )
    ensemble.add_argument("logs", nargs="+", help="Inspect eval logs, one per judge")
    ensemble.add_argument("--score-key", help="score to read from each log (default: the task's main score)")
    ensemble.add_argument(
        "--train-log", action="append", help="logs (one per judge, same order) to fit the regression on"
    )
    ensemble.add_argument("--train-fraction", type=float, default=0.5, help="train split when no --train-log")
    ensemble.add_argument("--lower-is-better", action="store_true", help="the score is an error count (e.g. green_ec)")
    ensemble.add_argument("--seed", type=int, default=0)
    ensemble.set_defaults(run=_ensemble)
