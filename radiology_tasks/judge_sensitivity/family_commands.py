"""The family's own subcommands of `radiology-tasks`: `perturb` and `sensitivity-set` (handlers in `commands`), and
`export-sft` (in `sft_command`)."""

from __future__ import annotations

import argparse

from radiology_tasks.judge_sensitivity.sft_command import add_export_sft


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


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `perturb`, `sensitivity-set` and `export-sft` to the `radiology-tasks` parser."""
    perturb = commands.add_parser(
        "perturb", help="write reports with injected errors and paraphrases (a variants file) for judge_sensitivity"
    )
    _variant_arguments(perturb)
    perturb.add_argument("--out", required=True, help="the variants file to write (.jsonl)")
    perturb.add_argument("--categories", default="a,b", help="error types, letters a-f separated by commas, or all")
    perturb.add_argument("--max-errors", type=int, default=3, help="variants with 1..N errors of each type")
    perturb.add_argument("--paraphrases", type=int, default=1, help="paraphrases per reference")
    perturb.set_defaults(run=_perturb)

    sensitivity = commands.add_parser(
        "sensitivity-set",
        help="write paraphrases (pos) and attribute-edited copies (neg) of references for metric_suite -T sensitivity",
    )
    _variant_arguments(sensitivity)
    sensitivity.add_argument("--out", required=True, help="directory for pos.jsonl and neg.jsonl")
    sensitivity.add_argument("--edits", type=int, default=1, help="attribute edits per neg report, one per sentence")
    sensitivity.set_defaults(run=_sensitivity_set)

    add_export_sft(commands)
