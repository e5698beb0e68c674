"""The `radiology-tasks` command line: list tasks and datasets, combine judges, export fine-tuning data."""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any


def registered_tasks() -> list[tuple[str, Any]]:
    """Every task this package registers with Inspect, as (name, task function), sorted by name."""
    from inspect_ai._util.registry import registry_find, registry_info

    import radiology_tasks._registry  # noqa: F401  (registers the tasks)

    found = registry_find(lambda info: info.type == "task" and info.name.startswith("radiology_tasks/"))
    return sorted({registry_info(t).name: t for t in found}.items())


def _first_line(doc: str | None) -> str:
    lines = (doc or "").strip().splitlines()
    return lines[0] if lines else ""


def _parameter_text(parameter: inspect.Parameter) -> str:
    if parameter.default is inspect.Parameter.empty:
        return parameter.name
    return f"{parameter.name}={parameter.default!r}"


def format_task_list() -> str:
    """One block per task: name, one-line description, its `-T` parameters with defaults; then the datasets."""
    from radiology_tasks.core.catalog import DATASETS

    lines = ["Tasks (inspect eval <name> ...):"]
    for name, task_fn in registered_tasks():
        lines.append(f"  {name}")
        lines.append(f"      {_first_line(task_fn.__doc__)}")
        params = [_parameter_text(p) for p in inspect.signature(task_fn).parameters.values()]
        lines.append(f"      -T {', '.join(params)}")
    lines.append("")
    lines.append("Datasets (-T data=<name>, or a .jsonl/.csv file):")
    for entry in DATASETS.values():
        lines.append(f"  {entry.name:<16}{entry.description}")
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    print(format_task_list())
    return 0


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


def _export_sft(args: argparse.Namespace) -> int:
    from radiology_tasks.core.loading import load_pairs
    from radiology_tasks.green_vert.sft_export import export_sft

    pairs = load_pairs(args.data, candidates=args.candidates, revision=args.revision).pairs
    result = export_sft(
        pairs, Path(args.out), val_fraction=args.val_fraction, seed=args.seed, skip_incomplete=args.skip_incomplete
    )
    print(f"wrote {result.n_train} conversations to {result.train}")
    print(f"wrote {result.n_validation} conversations to {result.validation}")
    for pair_id, reason in result.skipped.items():
        print(f"skipped {pair_id}: {reason}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `radiology-tasks`."""
    parser = argparse.ArgumentParser(prog="radiology-tasks", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("list", help="list registered tasks, their -T parameters, and datasets").set_defaults(run=_list)

    ensemble = commands.add_parser("ensemble", help="combine several judges' logs of the same samples")
    ensemble.add_argument("logs", nargs="+", help="Inspect eval logs, one per judge")
    ensemble.add_argument("--score-key", help="score to read from each log (default: the task's main score)")
    ensemble.add_argument(
        "--train-log", action="append", help="logs (one per judge, same order) to fit the regression on"
    )
    ensemble.add_argument("--train-fraction", type=float, default=0.5, help="train split when no --train-log")
    ensemble.add_argument("--lower-is-better", action="store_true", help="the score is an error count (e.g. green_ec)")
    ensemble.add_argument("--seed", type=int, default=0)
    ensemble.set_defaults(run=_ensemble)

    sft = commands.add_parser("export-sft", help="write chat-format JSONL to fine-tune a judge (LoRA)")
    sft.add_argument("--data", required=True, help="dataset name or file with candidate and expert_score")
    sft.add_argument("--candidates", help="candidate file joined by id")
    sft.add_argument("--revision", help="dataset revision (Hugging Face datasets)")
    sft.add_argument("--out", required=True, help="output directory for train.jsonl and validation.jsonl")
    sft.add_argument("--val-fraction", type=float, default=0.1)
    sft.add_argument("--seed", type=int, default=0)
    sft.add_argument(
        "--skip-incomplete", action="store_true", help="leave out pairs without candidate or expert score (listed)"
    )
    sft.set_defaults(run=_export_sft)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `radiology-tasks` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        print(f"radiology-tasks {args.command}: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
