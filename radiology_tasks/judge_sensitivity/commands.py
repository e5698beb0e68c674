"""Handlers of `radiology-tasks perturb` and `radiology-tasks sensitivity-set` (options: `radiology_tasks.cli`)."""

from __future__ import annotations

import argparse
from pathlib import Path

from radiology_tasks.judge_sensitivity.making import Injection, Made, References, perturb, sensitivity_set
from radiology_tasks.judge_sensitivity.rewrite import RewriteSettings
from radiology_tasks.solvers.judge_sensitivity.variants import parse_categories, plan_variants


def _injection(args: argparse.Namespace) -> Injection:
    settings = RewriteSettings(args.attempts, args.constrain, args.temperature, args.max_tokens, args.seed or 0)
    return Injection(args.injector, settings, args.log_dir, args.display)


def _references(args: argparse.Namespace) -> References:
    return References(args.data, args.revision, args.on_bad_rows, args.seed, args.limit)


def _report(made: Made) -> None:
    for path, rows in made.written.items():
        print(f"wrote {rows} rows to {path}")
    print(f"references written: {made.references}; variants excluded: {len(made.excluded)}")
    for line in made.excluded:
        print(f"excluded {line}")
    print(f"injector log: {made.log}")


def perturb_command(args: argparse.Namespace) -> int:
    """Make the judge-sensitivity variants and write them as a variants file."""
    plan = plan_variants(parse_categories(args.categories), args.max_errors, args.paraphrases)
    made = perturb(_references(args).load(), plan, Path(args.out), _injection(args))
    _report(made)
    return 0


def sensitivity_set_command(args: argparse.Namespace) -> int:
    """Make CT-FineBench's pos and neg sets and write them as ``pos.jsonl`` and ``neg.jsonl``."""
    if args.edits < 1:
        raise ValueError(f"--edits must be at least 1, got {args.edits}")
    made = sensitivity_set(_references(args).load(), Path(args.out), _injection(args), edits=args.edits)
    _report(made)
    return 0
