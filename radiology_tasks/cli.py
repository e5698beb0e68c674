"""The `radiology-tasks` command line: the commands around the tasks, which themselves run with `inspect eval
radiology_tasks/<task>`. It lists the tasks, datasets and layouts, submits and ranks leaderboard runs, tabulates and
combines judges' logs, makes the data some tasks read (variants, sensitivity sets, benchmark questions, label
tables, judge training files) and prints the lm-eval config directory; the metric families add their own
commands. The maintainers' `task-docs` (the READMEs' parameter tables from the tasks' docstrings) runs but is not
listed in the help."""

from __future__ import annotations

import argparse
import inspect
import os
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from radiology_tasks.core.cli_args import positive_int, share
from radiology_tasks.core.family import registered_tasks

DESCRIPTION = """\
The commands around the radiology tasks. A task itself runs with
  inspect eval radiology_tasks/<task> -T name=value ...
and `radiology-tasks list` shows each task with its -T defaults, and the
datasets, judges and layouts they read. For a command's options:
  radiology-tasks COMMAND --help"""
"""What `radiology-tasks --help` says above the commands (printed as written)."""

_LITERAL = re.compile(r"``(.+?)``|`([^`]+)`")


def plain_text(text: str) -> str:
    """Docstring text as a terminal shows it: reStructuredText/Markdown literals (``x``, `x`) become plain x."""
    return _LITERAL.sub(lambda match: match.group(1) or match.group(2), text)


def _first_line(doc: str | None) -> str:
    lines = (doc or "").strip().splitlines()
    return plain_text(lines[0]) if lines else ""


def default_dataset(task_name: str) -> str:
    """The dataset a registered task reads when `-T data` is not given: its family's own, else the bundled demo."""
    from radiology_tasks.core.family import family_of

    family = family_of(task_name.rsplit("/", 1)[-1])
    return (family.default_data if family else None) or "demo"


def _typed(value: object) -> str:
    """A default as typed after `-T name=`: Inspect reads the value as YAML, so booleans are `true`/`false`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parameter_text(parameter: inspect.Parameter, task_name: str) -> str | None:
    """The parameter's default as the user would type it (``-T shots=0``); its bare name when it has none;
    None when it is unset by default (None), except `data`, whose unset default is the task's dataset."""
    if parameter.default is inspect.Parameter.empty:
        return parameter.name
    if parameter.default is None:
        if parameter.name != "data":
            return None
        # Not set means the task's default dataset: show which one.
        return f"-T data={shlex.quote(default_dataset(task_name))}"
    return f"-T {shlex.quote(f'{parameter.name}={_typed(parameter.default)}')}"


def _parameter_lines(task_name: str, task_fn: Callable[..., Any]) -> list[str]:
    """The task's defaults, typed as on the command line, and the parameters unset unless given."""
    texts = {p.name: _parameter_text(p, task_name) for p in inspect.signature(task_fn).parameters.values()}
    defaults = [text for text in texts.values() if text is not None]
    unset = [name for name, text in texts.items() if text is None]
    lines = [f"      defaults: {' '.join(defaults)}"]
    if unset:
        lines.append(f"      unset unless given: {', '.join(unset)}")
    return lines


def format_task_list() -> str:
    """One block per task: name, one-line description, its `-T` defaults and the parameters unset by default; then
    the datasets, the metric suite's judges and the layouts."""
    from radiology_tasks.core.catalog import dataset_names
    from radiology_tasks.core.layouts import all_layouts
    from radiology_tasks.suite.judges import judge_metrics

    lines = [
        "Tasks (inspect eval <name> ...; each parameter is described in its family's README, under Parameters):",
    ]
    for name, task_fn in registered_tasks():
        lines.append(f"  {name}")
        lines.append(f"      {_first_line(task_fn.__doc__)}")
        lines += _parameter_lines(name, task_fn)
    lines.append("")
    lines.append("Datasets (-T data=<name>, or a file or folder of your own):")
    for name, description in dataset_names():
        lines.append(f"  {name:<16}{plain_text(description)}")
    lines.append("")
    lines.append("LLM judges of metric_suite (-T metrics=<name>, with --model-role grader=...):")
    for name, metric in sorted(judge_metrics().items()):
        lines.append(f"  {name:<16}scores {', '.join(metric.keys)}")
    lines.append("")
    lines.append("Layouts (recognised from file names and columns, or forced with -T layout=<name>):")
    for layout in all_layouts().values():
        files = ", ".join(data_file.pattern for data_file in layout.files)
        lines.append(f"  {layout.name:<16}{files}")
    return "\n".join(lines)


def _list(args: argparse.Namespace) -> int:
    print(format_task_list())
    return 0


def _submit(args: argparse.Namespace) -> int:
    from radiology_tasks.leaderboard.commands import submit_command

    return submit_command(args)


def _report(args: argparse.Namespace) -> int:
    from radiology_tasks.core.run_report_output import report_command

    return report_command(args.log, args.out, as_json=args.json)


def _agreement(args: argparse.Namespace) -> int:
    from radiology_tasks.agreement.command import agreement_command

    return agreement_command(
        args.logs, args.out, resamples=args.resamples, seed=args.seed, paired_tests=args.paired_tests
    )


def _verify(args: argparse.Namespace) -> int:
    from radiology_tasks.leaderboard.commands import verify_command

    return verify_command(args)


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


def _task_docs(args: argparse.Namespace) -> int:
    from radiology_tasks.family_docs import update_lists
    from radiology_tasks.task_docs import task_docs_command

    readme = None if args.readme is None else Path(args.readme)
    return task_docs_command(readme, check=args.check, lists=update_lists)


def _lm_eval_path(args: argparse.Namespace) -> int:
    from radiology_tasks.lm_eval_tasks import config_dir

    print(config_dir())
    return 0


_Commands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""The parser's subcommands, which each command group adds to."""


def _plain_command(name: str, help: str, run: Callable[[argparse.Namespace], int]) -> Callable[[_Commands], None]:
    """What adds command `name`, which takes no arguments and runs `run`."""

    def add(commands: _Commands) -> None:
        commands.add_parser(name, help=help).set_defaults(run=run)

    return add


def _add_report(commands: _Commands) -> None:
    """`report`: every figure of one run, recomputed from its log."""
    report = commands.add_parser(
        "report",
        help="every metric of a run, recomputed from its log: Markdown (printed, report.md), report.html and "
        "report.json",
        description="Recompute every figure of a run from its log, check the logged summary against it, print it "
        "as Markdown and write report.md, report.html and report.json. The JSON (printed alone with --json) holds "
        "the run (log, task, task_version, current_version, family, scorer, sample_count, task_args), "
        "summary_check (equal, not_logged, differs or older_version), figures (each with name, kind: headline or "
        "secondary, value: the exact number or null, reason: why it is null, metric, scorer, logged: the log's "
        "value or null, matches_log) and not_recomputed; it never holds NaN or Infinity.",
    )
    report.add_argument("log", help="an Inspect eval log of a radiology task")
    report.add_argument(
        "--out", help="directory for report.md, report.html and report.json (default: <log>.report/ beside it)"
    )
    report.add_argument(
        "--json",
        action="store_true",
        help="print the figures as JSON instead of Markdown; write the files only with --out",
    )
    report.set_defaults(run=_report)


def _add_agreement(commands: _Commands) -> None:
    """`agreement`: every metric's agreement with the experts, from runs' logs."""
    agreement = commands.add_parser(
        "agreement",
        help="every metric's agreement with radiologists, per dataset and protocol, from runs' logs: JSON, CSV, "
        "Markdown (printed) and a page",
    )
    agreement.add_argument(
        "logs", nargs="+", help="Inspect eval logs of radiology tasks on data with expert judgements"
    )
    agreement.add_argument("--out", required=True, help="directory for agreement.json/.csv/.md and agreement.html")
    agreement.add_argument(
        "--resamples", type=positive_int, default=1000, help="bootstrap resamples of the paired tests (default 1000)"
    )
    agreement.add_argument("--seed", type=int, default=0, help="seed of the paired tests (default 0)")
    agreement.add_argument(
        "--paired-tests",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="test every two metrics' tau difference in each column group (default: on; each test resamples its "
        "samples --resamples times, seconds each on hundreds of samples)",
    )
    agreement.set_defaults(run=_agreement)


def _add_submit(commands: _Commands) -> None:
    """`submit`: a system's logs checked and written as a submission bundle."""
    from radiology_tasks.leaderboard import TRACKS

    submit = commands.add_parser("submit", help="check eval logs and write them as a leaderboard submission bundle")
    submit.add_argument("logs", nargs="+", help="Inspect eval logs of one system")
    submit.add_argument("--out", required=True, help="the bundle directory to write (new or empty)")
    submit.add_argument(
        "--system",
        help="system name (default: the model under test, a generation log's generator, or the candidates file)",
    )
    submit.add_argument("--institution")
    submit.add_argument("--paper", help="link to the paper")
    submit.add_argument("--code", help="link to the code")
    submit.add_argument("--description", help="one line about the system")
    submit.add_argument("--track", choices=TRACKS, help="the report section generated, or judges: rank the run's judge")
    submit.add_argument(
        "--redact-text",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="replace every report, candidate and judge answer text in the bundled logs by its SHA-256, keeping "
        "numbers, reason codes and parsed answers (default: only for credentialed data such as ReXVal, "
        "MIMIC-CXR-derived sets and CT-RATE)",
    )
    submit.add_argument(
        "--replace", action="store_true", help="replace the submission bundle already in --out (only a bundle)"
    )
    _max_unscored_argument(submit, "accepted")
    submit.set_defaults(run=_submit)


def _add_verify(commands: _Commands) -> None:
    """`verify`: a (redacted) bundle checked against the data and the original logs."""
    verify = commands.add_parser(
        "verify", help="check a (redacted) submission bundle against the data and the original logs"
    )
    verify.add_argument("bundle", help="the submission bundle directory")
    verify.add_argument("--data", help="the dataset (file or folder) in place of each run's -T data")
    verify.add_argument("--reports", help="the reports file, for question datasets (in place of -T reports)")
    verify.add_argument("--logs", nargs="+", help="the original logs (files or folders), found by their SHA-256")
    verify.set_defaults(run=_verify)


def _add_leaderboard(commands: _Commands) -> None:
    """`leaderboard`: the systems of bundles or logs ranked."""
    board = commands.add_parser(
        "leaderboard", help="rank the systems of submission bundles or logs: JSON, CSV, Markdown and a page"
    )
    board.add_argument("inputs", nargs="+", help="submission bundles (directories) or Inspect eval logs")
    board.add_argument("--out", required=True, help="directory for leaderboard.json/.csv/.md and index.html")
    board.add_argument("--resamples", type=positive_int, default=1000, help="bootstrap and randomization resamples")
    board.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    board.add_argument("--confidence", type=share, default=0.95, help="interval coverage (default 0.95)")
    board.add_argument(
        "--trial",
        action="store_true",
        help="rank runs on part of their dataset (-T limit) on boards marked as trials; full runs are refused",
    )
    _max_unscored_argument(board, "ranked")
    board.set_defaults(run=_leaderboard)


def _add_task_docs(commands: _Commands) -> None:
    """`task-docs`, the maintainers' command that writes the generated blocks of the documents."""
    # A maintainers' command: runnable, but left out of the help's list (a subcommand without `help` is not listed;
    # argparse prints `help=argparse.SUPPRESS` as "==SUPPRESS==" there before Python 3.13).
    docs = commands.add_parser(
        "task-docs",
        description="Write the tasks' -T parameter tables from their docstrings into the READMEs' marked blocks, and "
        "the lists of the families' tasks into the shared documents' marked blocks.",
    )
    docs.add_argument(
        "--readme",
        help="one Markdown file to update (default: docs/parameters.md and every family's README, and the lists of "
        "the families' tasks in the shared documents)",
    )
    docs.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 naming each block that differs from the code"
    )
    docs.set_defaults(run=_task_docs)


def _add_family_commands(commands: _Commands) -> None:
    """The commands each registered family adds."""
    from radiology_tasks.core.family import add_commands

    add_commands(commands)


COMMAND_GROUPS: tuple[Callable[[_Commands], None], ...] = (
    _plain_command(
        "list", "list the tasks with their -T defaults, and the datasets, metric_suite judges and layouts", _list
    ),
    _add_family_commands,
    _add_report,
    _add_agreement,
    _add_submit,
    _add_verify,
    _add_leaderboard,
    _plain_command(
        "lm-eval-path",
        "print the directory of the lm-evaluation-harness task configs (for --include_path)",
        _lm_eval_path,
    ),
    _add_task_docs,
)
"""What adds each command, in the order the help lists them: the shared commands around the families' own."""


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of `radiology-tasks`."""
    parser = argparse.ArgumentParser(
        prog="radiology-tasks", description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(
        dest="command", required=True, metavar="COMMAND", title="commands", help="one of these:"
    )
    for add in COMMAND_GROUPS:
        add(commands)
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
