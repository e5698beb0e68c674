"""The CT-FineBench subcommands of `radiology-tasks`: the three steps that build questions from your own reports
(`ctfb-triplets`, `ctfb-schema`, `ctfb-qa`)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from radiology_tasks.core.cli_args import non_negative_int, positive_int

if TYPE_CHECKING:
    from radiology_tasks.ct_finebench.construct.judging import JudgeOptions


def _judge_options(args: argparse.Namespace) -> JudgeOptions:
    from radiology_tasks.ct_finebench.construct.judging import JudgeOptions, parse_model_args

    return JudgeOptions(
        model=args.model,
        model_args=parse_model_args(args.model_arg),
        constrain=args.constrain,
        max_tokens=args.max_tokens,
        retries=args.retries,
        max_connections=args.max_connections,
    )


def _ctfb_triplets(args: argparse.Namespace) -> int:
    from radiology_tasks.ct_finebench.construct.triplets import triplets_command

    return triplets_command(args, _judge_options(args))


def _ctfb_schema(args: argparse.Namespace) -> int:
    from radiology_tasks.ct_finebench.construct.schema import schema_command

    return schema_command(args)


def _ctfb_qa(args: argparse.Namespace) -> int:
    from radiology_tasks.ct_finebench.construct.qa import qa_command

    return qa_command(args, _judge_options(args))


def _add_construction_run_arguments(parser: argparse.ArgumentParser) -> None:
    """The input, output and judge options of the two construction steps that call a model."""
    parser.add_argument(
        "--data",
        required=True,
        help="your reports: a .jsonl/.csv file with id and reference columns, or a dataset name",
    )
    parser.add_argument("--out", required=True, help="output .jsonl; an existing one is resumed")
    parser.add_argument("--model", required=True, help="Inspect model string, e.g. openai-api/vllm/Qwen/Qwen3-8B")
    parser.add_argument(
        "-M", "--model-arg", action="append", metavar="KEY=VALUE", help="model argument (repeatable), e.g. n_ctx=8192"
    )
    parser.add_argument(
        "--constrain",
        default="auto",
        choices=["auto", "off", "grammar", "structured_outputs", "response_format"],
        help="constrain the judge's answer to its format where the backend supports it (default: auto)",
    )
    parser.add_argument("--max-tokens", type=positive_int, help="token budget of each call (default: the contract's)")
    parser.add_argument(
        "--retries", type=non_negative_int, default=1, help="re-asks of an unreadable answer (default 1)"
    )
    parser.add_argument("--max-connections", type=positive_int, default=4, help="reports at a time (default 4)")
    parser.add_argument("--limit", type=positive_int, help="only the first N reports")
    parser.add_argument("--restart", action="store_true", help="start the output over instead of resuming it")


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `ctfb-triplets`, `ctfb-schema` and `ctfb-qa` to the `radiology-tasks` parser."""
    triplets = commands.add_parser(
        "ctfb-triplets", help="CT-FineBench construction 1/3: the judge lists (finding, attribute, value) per report"
    )
    _add_construction_run_arguments(triplets)
    triplets.add_argument("--max-triplets", type=positive_int, help="triplets per report at most (default 20)")
    triplets.set_defaults(run=_ctfb_triplets)

    schema = commands.add_parser(
        "ctfb-schema", help="CT-FineBench construction 2/3: group the triplets into a schema file to edit"
    )
    schema.add_argument("triplets", help="the output of ctfb-triplets")
    schema.add_argument("--out", required=True, help="the schema file to write (YAML)")
    schema.add_argument(
        "--min-count", type=positive_int, help="keep findings and attributes found in at least N reports (default 50)"
    )
    schema.add_argument("--force", action="store_true", help="overwrite an existing schema file")
    schema.set_defaults(run=_ctfb_schema)

    qa = commands.add_parser(
        "ctfb-qa", help="CT-FineBench construction 3/3: questions and answers per report from the edited schema"
    )
    _add_construction_run_arguments(qa)
    qa.add_argument("--schema", required=True, help="the edited schema file")
    qa.add_argument(
        "--existence",
        default="stated",
        choices=["stated", "present"],
        help="existence questions for findings a report states present or absent (stated), or present only",
    )
    qa.set_defaults(run=_ctfb_qa)
