"""The `radiology-tasks` command line: list tasks and datasets, combine judges, export fine-tuning data, make
variants of references once (judge sensitivity, CT-FineBench sensitivity sets)."""

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
    return sorted(((registry_info(t).name, t) for t in found), key=lambda item: item[0])


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().splitlines()[0] if (doc or "").strip() else ""


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
    print(format_report(report))
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


def _perturb(args: argparse.Namespace) -> int:
    from radiology_tasks.judge_sensitivity.commands import perturb_command

    return perturb_command(args)


def _sensitivity_set(args: argparse.Namespace) -> int:
    from radiology_tasks.judge_sensitivity.commands import sensitivity_set_command

    return sensitivity_set_command(args)


def _variant_arguments(parser: argparse.ArgumentParser) -> None:
    """Options shared by the commands that make variants with an injector model."""
    parser.add_argument("--injector", required=True, help="model that makes the variants, e.g. openai/gpt-4.1")
    parser.add_argument("--data", help="dataset name or .jsonl/.csv file of references (default: demo)")
    parser.add_argument("--revision", help="dataset revision (Hugging Face datasets)")
    parser.add_argument("--limit", type=int, help="number of distinct references (after shuffling with --seed)")
    parser.add_argument("--seed", type=int, help="shuffles the references; also seeds the injector (default 0)")
    parser.add_argument("--on-bad-rows", choices=["error", "skip"], default="error")
    parser.add_argument("--attempts", type=int, default=5, help="attempts per variant before it is excluded")
    parser.add_argument("--temperature", type=float, default=0.0, help="temperature of the first attempt")
    parser.add_argument("--max-tokens", type=int, help="token budget of a rewrite (default: its contract's)")
    parser.add_argument(
        "--constrain", default="auto", choices=["auto", "off", "grammar", "structured_outputs", "response_format"]
    )
    parser.add_argument("--log-dir", help="where the Inspect log of the injector run goes")
    parser.add_argument("--display", help="Inspect display: full, plain, none, ...")


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

    perturb = commands.add_parser("perturb", help="make error variants and paraphrases for judge_sensitivity")
    _variant_arguments(perturb)
    perturb.add_argument("--out", required=True, help="the variants file to write (.jsonl)")
    perturb.add_argument("--categories", default="a,b", help="error types, letters a-f separated by commas, or all")
    perturb.add_argument("--max-errors", type=int, default=3, help="variants with 1..N errors of each type")
    perturb.add_argument("--paraphrases", type=int, default=1, help="paraphrases per reference")
    perturb.set_defaults(run=_perturb)

    sensitivity = commands.add_parser(
        "sensitivity-set", help="make CT-FineBench sensitivity sets: paraphrases (pos) and attribute edits (neg)"
    )
    _variant_arguments(sensitivity)
    sensitivity.add_argument("--out", required=True, help="directory for pos.jsonl and neg.jsonl")
    sensitivity.add_argument("--edits", type=int, default=1, help="attribute edits per neg report, one per sentence")
    sensitivity.set_defaults(run=_sensitivity_set)
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
