"""The `submit` and `leaderboard` subcommands of `radiology-tasks`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from radiology_tasks.core.cli_args import options_from_args
from radiology_tasks.leaderboard.board import MixedRuns, Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SubmissionRefused, SystemCard, write_bundle
from radiology_tasks.leaderboard.outputs import write_outputs
from radiology_tasks.leaderboard.verify import verify_bundle


def submit_command(args: argparse.Namespace) -> int:
    """Check the logs and write the bundle; print each violation on its own line and return 1 when refused."""
    card = options_from_args(SystemCard, args, name="system")
    try:
        manifest = write_bundle(
            [Path(p) for p in args.logs],
            Path(args.out),
            card,
            max_unscored=args.max_unscored,
            redact=args.redact_text,
            replace=args.replace,
        )
    except SubmissionRefused as refused:
        print(f"radiology-tasks submit: refused, {len(refused.lines)} problem(s):", file=sys.stderr)
        for line in refused.lines:
            print(f"  {line}", file=sys.stderr)
        return 1
    redacted = json.loads(manifest.read_text()).get("redacted")
    shown = f", texts replaced by their SHA-256 ({redacted['reason']})" if redacted else ""
    print(f"wrote {manifest} with {len(args.logs)} log(s){shown}")
    return 0


def verify_command(args: argparse.Namespace) -> int:
    """Check a bundle against the data and the original logs; print each problem and return 1 when there is one."""
    lines = verify_bundle(
        Path(args.bundle),
        data=None if args.data is None else Path(args.data),
        reports=None if args.reports is None else Path(args.reports),
        originals=[Path(p) for p in args.logs or []],
    )
    if lines:
        print(f"radiology-tasks verify: {len(lines)} problem(s):", file=sys.stderr)
        for line in lines:
            print(f"  {line}", file=sys.stderr)
        return 1
    checked = [what for what, given in (("the data", args.data), ("the original logs", args.logs)) if given]
    print(f"{args.bundle}: every hashed text checked against {' and '.join(checked)} matches")
    return 0


def leaderboard_command(args: argparse.Namespace) -> int:
    """Rank the runs of the given bundles and logs and write the outputs."""
    out = Path(args.out)
    settings = options_from_args(Settings, args)
    try:
        leaderboard = build_leaderboard([Path(p) for p in args.inputs], out, settings)
    except MixedRuns as refused:
        print(f"radiology-tasks leaderboard: refused, {refused.lines[0]}", file=sys.stderr)
        for line in refused.lines[1:]:
            print(f"  {line}", file=sys.stderr)
        return 1
    written = write_outputs(leaderboard, out)
    ranked = sum(len(board["entries"]) for board in leaderboard["boards"])
    trial = "trial leaderboard: " if settings.trial else ""
    print(
        f"{trial}{len(leaderboard['boards'])} board(s), {ranked} ranked run(s), "
        f"{len(leaderboard['not_ranked'])} not ranked"
    )
    for row in leaderboard["not_ranked"]:
        print(f"  not ranked: {row['system']} ({row['log']}): {'; '.join(row['reasons'])}")
    for kind, path in written.items():
        print(f"wrote {kind}: {path}")
    return 0
