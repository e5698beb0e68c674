"""The `radiology-tasks` command line: list tasks and datasets, combine judges, export fine-tuning data,
make or export benchmark data (Ran Score label tables, CT-FineBench questions from your own reports), make
variants of references once (judge sensitivity, CT-FineBench sensitivity sets), submit and rank leaderboard
runs, and write the README's parameter tables from the tasks' docstrings."""

from __future__ import annotations

import argparse
import inspect
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from radiology_tasks.core.cli_args import non_negative_int, positive_int, share

if TYPE_CHECKING:
    from radiology_tasks.ct_finebench.construct.judging import JudgeOptions


def registered_tasks() -> list[tuple[str, Any]]:
    """Every task this package registers with Inspect, as (name, task function), sorted by name."""
    from inspect_ai.util import registry_info

    import radiology_tasks._registry as registry

    found = {}
    for value in vars(registry).values():
        try:
            info = registry_info(value)
        except (ValueError, AttributeError, TypeError):
            continue
        if info.type == "task":
            found[info.name] = value
    return sorted(found.items())


def _first_line(doc: str | None) -> str:
    lines = (doc or "").strip().splitlines()
    return lines[0] if lines else ""


def _parameter_text(parameter: inspect.Parameter) -> str:
    if parameter.default is inspect.Parameter.empty:
        return parameter.name
    return f"{parameter.name}={parameter.default!r}"


def format_task_list() -> str:
    """One block per task: name, one-line description, its `-T` parameters with defaults; then the datasets."""
    from radiology_tasks.core.catalog import dataset_names
    from radiology_tasks.core.layouts import all_layouts

    lines = ["Tasks (inspect eval <name> ...):"]
    for name, task_fn in registered_tasks():
        lines.append(f"  {name}")
        lines.append(f"      {_first_line(task_fn.__doc__)}")
        params = [_parameter_text(p) for p in inspect.signature(task_fn).parameters.values()]
        lines.append(f"      -T {', '.join(params)}")
    lines.append("")
    lines.append("Datasets (-T data=<name>, or a file or folder of your own):")
    for name, description in dataset_names():
        lines.append(f"  {name:<16}{description}")
    lines.append("")
    lines.append("Layouts (recognised from file names and columns, or forced with -T layout=<name>):")
    for layout in all_layouts().values():
        files = ", ".join(data_file.pattern for data_file in layout.files)
        lines.append(f"  {layout.name:<16}{files}")
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


_VARIANT_SFT_OPTIONS = (
    "prompt",
    "detail",
    "passes",
    "exclude",
    "max_per_reference",
    "balance_categories",
    "paraphraseshare",
    "on_bad_rows",
)
_PAIR_SFT_OPTIONS = ("candidates", "revision", "skip_incomplete")


def _only_with(args: argparse.Namespace, names: Sequence[str], source: str) -> None:
    given = [name for name in names if getattr(args, name) not in (None, False)]
    if given:
        options = ", ".join("--" + name.replace("_", "-") for name in given)
        raise ValueError(f"{options} applies only with {source}")


def _export_variant_sft(args: argparse.Namespace) -> int:
    from radiology_tasks.green_vert.variant_export import ExportOptions, export_variant_sft
    from radiology_tasks.green_vert.variant_sft import PromptSettings

    _only_with(args, _PAIR_SFT_OPTIONS, "--data")
    settings = PromptSettings(prompt=args.prompt or "vert", detail=args.detail or "full", passes=args.passes or 1)
    options = ExportOptions(
        settings=settings,
        exclude=tuple(args.exclude or ()),
        val_fraction=args.val_fraction,
        seed=args.seed,
        max_per_reference=args.max_per_reference,
        balance_categories=args.balance_categories,
        paraphraseshare=args.paraphraseshare,
        on_bad_rows=args.on_bad_rows or "error",
    )
    result = export_variant_sft(args.variants, Path(args.out), options)
    manifest = result.manifest
    for name in ("train", "validation"):
        part = manifest["splits"][name]
        print(
            f"wrote {part['examples']} conversations to {result.files[name]} "
            f"({part['variants']} variants of {part['references']} references)"
        )
    left_out = manifest["left_out"]
    overlap = left_out["evaluation_overlap"]
    if options.exclude:
        print(
            f"left out {overlap['references']} references ({overlap['variants']} variants) that the evaluation sets "
            f"hold: {overlap['by_id']} by id, {overlap['by_text']} by text"
        )
    for reason, count in left_out["no_known_answer"].items():
        print(f"left out {count} variants without a known answer: {reason}")
    for control in ("max_per_reference", "balance_categories", "paraphraseshare"):
        if control in left_out:
            print(f"left out {left_out[control]} variants by --{control.replace('_', '-')}")
    for row in left_out["bad_rows"]:
        print(f"skipped {row['file']} {row['id']}: {row['reason']}")
    print(f"wrote the manifest to {result.files['manifest']}")
    print(
        f"checked {result.checked} conversations: each answer reads back to its variant's known counts, "
        "and no reference is in both files"
    )
    return 0


def _export_sft(args: argparse.Namespace) -> int:
    from radiology_tasks.core.loading import load_pairs
    from radiology_tasks.green_vert.sft_export import export_sft

    if args.variants:
        return _export_variant_sft(args)
    _only_with(args, _VARIANT_SFT_OPTIONS, "--variants")
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


def _suite_report(args: argparse.Namespace) -> int:
    from radiology_tasks.baselines.report import suite_report_command

    return suite_report_command(
        args.logs, args.out, keys=args.keys, pairs_by_id=args.pairs_by_id, resamples=args.resamples, seed=args.seed
    )


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


def _submit(args: argparse.Namespace) -> int:
    from radiology_tasks.leaderboard.commands import submit_command

    return submit_command(args)


def _leaderboard(args: argparse.Namespace) -> int:
    from radiology_tasks.leaderboard.commands import leaderboard_command

    return leaderboard_command(args)


def _max_unscored_argument(parser: argparse.ArgumentParser, what: str) -> None:
    from radiology_tasks.leaderboard import DEFAULT_MAX_UNSCORED

    parser.add_argument(
        "--max-unscored",
        type=share,
        default=DEFAULT_MAX_UNSCORED,
        help=f"largest share of unscored samples {what} (default {DEFAULT_MAX_UNSCORED})",
    )


def _ran_labels(args: argparse.Namespace) -> int:
    from radiology_tasks.ran_score.cli import export_labels

    result = export_labels(args.log, Path(args.out))
    for side, path in result.files.items():
        print(f"wrote {result.rows[side]} {side} label rows to {path}")
        for study, reason in result.skipped[side].items():
            print(f"skipped {study}: {reason}")
    return 0


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


def _task_docs(args: argparse.Namespace) -> int:
    from radiology_tasks.task_docs import task_docs_command

    return task_docs_command(Path(args.readme), check=args.check)


def _lm_eval_path(args: argparse.Namespace) -> int:
    from radiology_tasks.lm_eval_tasks import config_dir

    print(config_dir())
    return 0


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


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `radiology-tasks`."""
    from radiology_tasks.leaderboard import TRACKS

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
    source = sft.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", help="dataset name or file with candidate and expert_score")
    source.add_argument(
        "--variants", nargs="+", metavar="FILE", help="variants files (radiology-tasks perturb): known answers"
    )
    sft.add_argument("--candidates", help="candidate file joined by id")
    sft.add_argument("--revision", help="dataset revision (Hugging Face datasets)")
    sft.add_argument("--out", required=True, help="output directory for train.jsonl and validation.jsonl")
    sft.add_argument("--val-fraction", type=float, default=0.1)
    sft.add_argument("--seed", type=int, default=0)
    sft.add_argument(
        "--skip-incomplete", action="store_true", help="leave out pairs without candidate or expert score (listed)"
    )
    sft.add_argument(
        "--prompt", choices=["vert", "green", "score"], help="with --variants: the judge prompt (default vert)"
    )
    sft.add_argument("--detail", choices=["full", "brief"], help="with --variants: the answers' detail (default full)")
    sft.add_argument(
        "--passes", type=int, choices=[1, 2], help="with --variants: 2 for judge_sensitivity's two-pass judge"
    )
    sft.add_argument(
        "--exclude", nargs="+", metavar="DATA", help="with --variants: leave out references these evaluation sets hold"
    )
    sft.add_argument(
        "--max-per-reference", type=positive_int, help="with --variants: keep at most N variants of a reference"
    )
    sft.add_argument(
        "--balance-categories",
        action="store_true",
        help="with --variants: as many variants of each error category as the rarest has",
    )
    sft.add_argument(
        "--paraphrase-share", type=share, help="with --variants: share of paraphrases among the variants kept"
    )
    sft.add_argument(
        "--on-bad-rows", choices=["error", "skip"], help="with --variants: stop at a bad row (error) or list it (skip)"
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

    ran = commands.add_parser("ran-labels", help="write the labels of a ran_score log as label tables (CSV)")
    ran.add_argument("log", help="Inspect eval log of radiology_tasks/ran_score")
    ran.add_argument("--out", required=True, help="directory for reference_labels.csv and candidate_labels.csv")
    ran.set_defaults(run=_ran_labels)

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

    submit = commands.add_parser("submit", help="check eval logs and write them as a leaderboard submission bundle")
    submit.add_argument("logs", nargs="+", help="Inspect eval logs of one system")
    submit.add_argument("--out", required=True, help="the bundle directory to write (new or empty)")
    submit.add_argument("--system", help="system name (default: the model under test or the candidates file's name)")
    submit.add_argument("--institution")
    submit.add_argument("--paper", help="link to the paper")
    submit.add_argument("--code", help="link to the code")
    submit.add_argument("--description", help="one line about the system")
    submit.add_argument("--track", choices=TRACKS, help="the report section generated")
    _max_unscored_argument(submit, "accepted")
    submit.set_defaults(run=_submit)

    board = commands.add_parser(
        "leaderboard", help="rank the systems of submission bundles or logs: JSON, CSV, Markdown and a page"
    )
    board.add_argument("inputs", nargs="+", help="submission bundles (directories) or Inspect eval logs")
    board.add_argument("--out", required=True, help="directory for leaderboard.json/.csv/.md and index.html")
    board.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap and randomization resamples")
    board.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    board.add_argument("--confidence", type=share, default=0.95, help="interval coverage (default 0.95)")
    _max_unscored_argument(board, "ranked")
    board.set_defaults(run=_leaderboard)

    suite = commands.add_parser(
        "suite-report", help="metric_suite tables (correlations, expert tau, pos/neg) as CSV/Markdown from logs"
    )
    suite.add_argument("logs", nargs="+", help="a metric_suite log, or several logs of the same samples")
    suite.add_argument("--out", required=True, help="directory for the CSV, Markdown and heatmap files")
    suite.add_argument("--keys", help="comma-separated score keys to tabulate (default: every numeric score)")
    suite.add_argument("--pairs-by-id", action="store_true", help="pair <id>-para/-pos rows with <id>-err/-neg")
    suite.add_argument("--resamples", type=non_negative_int, default=1000, help="bootstrap resamples for the intervals")
    suite.add_argument("--seed", type=int, default=0)
    suite.set_defaults(run=_suite_report)

    commands.add_parser(
        "lm-eval-path", help="print the directory of the lm-evaluation-harness task configs (for --include_path)"
    ).set_defaults(run=_lm_eval_path)

    docs = commands.add_parser(
        "task-docs", help="write the tasks' -T parameter tables from their docstrings into the README's marked blocks"
    )
    docs.add_argument("--readme", default="README.md", help="the Markdown file to update (default: README.md)")
    docs.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 naming each block that differs from the code"
    )
    docs.set_defaults(run=_task_docs)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `radiology-tasks` command."""
    args = build_parser().parse_args(argv)
    try:
        return int(args.run(args))
    except (ValueError, FileNotFoundError, RuntimeError) as error:
        print(f"radiology-tasks {args.command}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader closed the pipe (`radiology-tasks list | head`): stop quietly, and keep Python's exit-time
        # flush of stdout from raising the same error again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
