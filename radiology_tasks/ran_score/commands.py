"""The Ran Score's subcommand of `radiology-tasks`: `ran-labels` writes a run's labels as label tables."""

from __future__ import annotations

import argparse
from pathlib import Path


def _ran_labels(args: argparse.Namespace) -> int:
    from radiology_tasks.ran_score.cli import export_labels

    result = export_labels(args.log, Path(args.out))
    for side, path in result.files.items():
        print(f"wrote {result.rows[side]} {side} label rows to {path}")
        for study, reason in result.skipped[side].items():
            print(f"skipped {study}: {reason}")
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `ran-labels` to the `radiology-tasks` parser."""
    ran = commands.add_parser("ran-labels", help="write the labels of a ran_score log as label tables (CSV)")
    ran.add_argument("log", help="Inspect eval log of radiology_tasks/ran_score")
    ran.add_argument("--out", required=True, help="directory for reference_labels.csv and candidate_labels.csv")
    ran.set_defaults(run=_ran_labels)
