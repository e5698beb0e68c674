"""CT-FineBench's part of `metric_suite` (its `SuiteMetric`) and its subcommands, built from the family's own
modules."""

from __future__ import annotations

import argparse
import math
from collections.abc import Iterator
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import MemoryDataset
from inspect_ai.model import get_model

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.family import SuiteJudge
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.records import QAPair, ReportPair
from radiology_tasks.core.solvers import replay_candidate
from radiology_tasks.core.task_data import pair_to_sample
from radiology_tasks.ct_finebench import commands
from radiology_tasks.ct_finebench.family import FAMILY
from radiology_tasks.ct_finebench.suite import SUITE
from tests.judge_answers import mock_output

SETTINGS = SuiteJudge(JudgeOptions())
PAIR = ReportPair(
    id="c1",
    reference="An 8 mm nodule in the right upper lobe.",
    candidate="A 9 mm nodule in the right upper lobe.",
    qa=[
        QAPair(question="What is the size of the nodule?", answer="8 mm", attribute_type="numeric"),
        QAPair(question="Where is the nodule?", answer="right upper lobe", attribute_type="location"),
    ],
)


def test_the_family_adds_ct_finebench_with_its_key():
    assert FAMILY.suite_metrics() is SUITE
    metric = SUITE["ct_finebench"]
    assert metric.keys == ("ct_finebench",) and metric.solver is not None and metric.check is not None


def test_the_check_names_rows_without_questions_with_the_suite_s_text():
    check = SUITE["ct_finebench"].check
    assert check is not None
    without = [PAIR.model_copy(update={"id": "n1", "qa": []}), PAIR, PAIR.model_copy(update={"id": "n2", "qa": []})]
    assert check([PAIR]) is None
    assert check(without) == (
        "ct_finebench needs questions (a 'qa' list) on every row; 2 of 3 rows have none, the first 'n1' (give -T "
        "data with questions, e.g. -T data=ct-finebench -T reports=FILE)"
    )


def unreadable() -> Iterator[Any]:
    while True:
        yield mock_output("not JSON at all")


@pytest.mark.parametrize("policy", ["worst", "exclude"])
def test_the_suite_s_settings_reach_the_solver_and_the_scorer(policy):
    settings = SuiteJudge(JudgeOptions(judge_retries=0, judge_max_tokens=77, unscored=policy), "per_question")
    metric = SUITE["ct_finebench"]
    assert metric.solver is not None
    task = Task(
        dataset=MemoryDataset([pair_to_sample(PAIR)]),
        solver=[replay_candidate(), metric.solver(settings)],
        scorer=metric.scorer(settings),
    )
    judge = get_model("mockllm/model", custom_outputs=unreadable())
    (log,) = inspect_eval(task, model="none", model_roles={"grader": judge}, display="none")
    assert log.status == "success", log.error
    score = log.samples[0].scores["qa_comparison"]  # type: ignore[index]
    attempts = score.metadata["extraction_judge"]["attempts"]
    # per_question: one call per question; no re-ask (retries 0); each call's budget is the suite's 77 tokens.
    assert [a["max_tokens"] for a in attempts] == [77, 77]
    assert score.metadata["qa_mode"] == "per_question"
    value = score.value["ct_finebench"]
    assert value == 0.0 if policy == "worst" else math.isnan(value)


def test_bad_suite_settings_are_refused_when_built():
    with pytest.raises(InputError, match="qa_mode"):
        SUITE["ct_finebench"].scorer(SuiteJudge(JudgeOptions(), "all_at_once"))
    solver = SUITE["ct_finebench"].solver
    assert solver is not None
    with pytest.raises(InputError, match="qa_mode"):
        solver(SuiteJudge(JudgeOptions(), "all_at_once"))


def parser() -> argparse.ArgumentParser:
    built = argparse.ArgumentParser(prog="radiology-tasks")
    commands.add_commands(built.add_subparsers(dest="command", required=True))
    return built


RUN = ["--data", "reports.jsonl", "--out", "out.jsonl", "--model", "openai-api/vllm/Qwen/Qwen3-8B"]


def test_ctfb_triplets_parses_its_options_and_defaults():
    args = parser().parse_args(["ctfb-triplets", *RUN, "-M", "n_ctx=8192", "--max-triplets", "5"])
    assert vars(args) | {"run": None} == {
        "command": "ctfb-triplets",
        "data": "reports.jsonl",
        "out": "out.jsonl",
        "model": "openai-api/vllm/Qwen/Qwen3-8B",
        "model_arg": ["n_ctx=8192"],
        "constrain": "auto",
        "max_tokens": None,
        "retries": 1,
        "max_connections": 4,
        "limit": None,
        "restart": False,
        "max_triplets": 5,
        "run": None,
    }


def test_ctfb_schema_and_ctfb_qa_parse_their_options():
    schema = parser().parse_args(["ctfb-schema", "triplets.jsonl", "--out", "schema.yaml", "--min-count", "3"])
    assert (schema.triplets, schema.out, schema.min_count, schema.force) == ("triplets.jsonl", "schema.yaml", 3, False)
    qa = parser().parse_args(["ctfb-qa", *RUN, "--schema", "schema.yaml", "--existence", "present", "--limit", "2"])
    assert (qa.schema, qa.existence, qa.limit, qa.constrain) == ("schema.yaml", "present", 2, "auto")
    assert parser().parse_args(["ctfb-qa", *RUN, "--schema", "s.yaml"]).existence == "stated"


@pytest.mark.parametrize(
    "argv",
    [
        ["ctfb-triplets", *RUN, "--max-tokens", "0"],
        ["ctfb-triplets", *RUN, "--retries", "-1"],
        ["ctfb-triplets", *RUN, "--constrain", "json"],
        ["ctfb-triplets", "--data", "r.jsonl", "--out", "o.jsonl"],
        ["ctfb-schema", "triplets.jsonl"],
        ["ctfb-schema", "triplets.jsonl", "--out", "s.yaml", "--min-count", "0"],
        ["ctfb-qa", *RUN],
        ["ctfb-qa", *RUN, "--schema", "s.yaml", "--existence", "absent"],
    ],
)
def test_bad_arguments_are_refused_by_the_parser(argv):
    with pytest.raises(SystemExit):
        parser().parse_args(argv)


def test_the_help_lines_are_today_s():
    subparsers = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {action.dest: action.help for action in subparsers._choices_actions} == {
        "ctfb-triplets": "CT-FineBench construction 1/3: the judge lists (finding, attribute, value) per report",
        "ctfb-schema": "CT-FineBench construction 2/3: group the triplets into a schema file to edit",
        "ctfb-qa": "CT-FineBench construction 3/3: questions and answers per report from the edited schema",
    }


def test_each_command_calls_its_step_with_the_judge_options(monkeypatch):
    calls: list[tuple[str, Any]] = []
    steps = {
        "triplets": "triplets_command",
        "schema": "schema_command",
        "qa": "qa_command",
    }
    for module, name in steps.items():
        monkeypatch.setattr(
            f"radiology_tasks.ct_finebench.construct.{module}.{name}",
            lambda args, *options, step=module: calls.append((step, options)) or 7,
        )
    built = parser()
    triplets = built.parse_args(["ctfb-triplets", *RUN, "-M", "n_ctx=8192", "--max-tokens", "64", "--retries", "0"])
    assert triplets.run(triplets) == 7
    schema = built.parse_args(["ctfb-schema", "t.jsonl", "--out", "s.yaml"])
    assert schema.run(schema) == 7
    qa = built.parse_args(["ctfb-qa", *RUN, "--schema", "s.yaml", "--constrain", "off", "--max-connections", "2"])
    assert qa.run(qa) == 7
    assert [step for step, _ in calls] == ["triplets", "schema", "qa"]
    (options,) = calls[0][1]
    assert (options.model, options.model_args, options.max_tokens, options.retries) == (
        "openai-api/vllm/Qwen/Qwen3-8B",
        {"n_ctx": 8192},
        64,
        0,
    )
    assert calls[1][1] == ()
    (qa_options,) = calls[2][1]
    assert (qa_options.constrain, qa_options.max_connections) == ("off", 2)
