"""A call that `score()` or a reward function refuses leaves nothing behind: no pairs file, no log, no folder.

Every way a call can be refused is here, from the shape of the lists to a score key found missing only once the
metric has run.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from radiology_tasks import InputError, reward_function, score, score_async
from radiology_tasks.api import write_pairs
from tests.api.conftest import JUDGE, NODULE

PAIR = (["No pneumothorax."], ["No pneumothorax."])


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize(
    ("references", "candidates", "kwargs", "message"),
    [
        (["A.", "B."], ["A."], {}, "2 references and 1 candidates"),
        (["A.", "B."], ["A.", "   "], {}, r"candidates\[1\]: empty candidate report"),
        (["A.", ""], ["A.", "B."], {}, r"references\[1\]: missing or empty reference report"),
        ([{"reference": "A.", "expert_score": "high"}], ["B."], {}, r"references\[0\], field 'expert_score'"),
        (["A."], ["A."], {"baselines": "nonsense"}, "unknown lexical metric 'nonsense'"),
        (["A."], ["A."], {"metric": "green", "judge": JUDGE, "detail": "verbose"}, "detail must be one of"),
        (["A 2 cm cyst."], ["A cyst."], {"metric": "ct_finebench", "judge": JUDGE}, "has questions"),
        (["A."], ["A."], {"metric": "green"}, "green needs a judge: give judge= a model"),
    ],
)
def test_a_refused_score_call_writes_nothing(tmp_path, references, candidates, kwargs, message):
    kwargs = {"metric": "baselines", **kwargs}
    with pytest.raises(InputError, match=message):
        score(references, candidates, log_dir=tmp_path / "logs", **kwargs)
    assert _files(tmp_path) == []


@pytest.mark.parametrize(
    ("metric", "reference", "params"),
    [
        ("green", "A.", {}),
        ("vert", "A.", {}),
        ("crimson", "A.", {}),
        ("ct_finebench", {"reference": "A solid 8 mm nodule.", "qa": NODULE}, {}),
        ("ran_score", "A.", {}),
        ("metric_suite", "A.", {"metrics": "bleu,vert"}),
    ],
)
def test_a_judged_metric_without_a_judge_is_refused_before_anything_is_written(tmp_path, metric, reference, params):
    with pytest.raises(InputError, match=f"^{metric} needs a judge: give judge= a model \\(No judge model is bound"):
        score([reference], ["B."], metric, log_dir=tmp_path / "logs", **params)
    assert _files(tmp_path) == []


def test_a_judge_bound_through_eval_args_is_a_judge(tmp_path):
    # The grader role given to Inspect directly is checked by Inspect's own run, not refused as missing.
    with pytest.raises(InputError, match="detail must be one of"):
        score(*PAIR, "green", log_dir=tmp_path, eval_args={"model_roles": {"grader": JUDGE}}, detail="x")
    built = score(*PAIR, "metric_suite", log_dir=tmp_path / "lexical", metrics="bleu")
    assert built.log.status == "success"  # a suite of lexical metrics needs no judge


def test_arguments_inspect_refuses_leave_nothing(tmp_path):
    with pytest.raises(ValueError, match="epochs must be a positive integer"):
        score(*PAIR, "baselines", log_dir=tmp_path / "logs", eval_args={"epochs": -1})
    with pytest.raises(ValueError, match="epochs must be a positive integer"):
        asyncio.run(score_async(*PAIR, "baselines", log_dir=tmp_path / "logs", eval_args={"epochs": -1}))
    assert _files(tmp_path) == []


def test_a_refused_call_keeps_the_file_and_folders_an_earlier_call_wrote(tmp_path):
    done = score(*PAIR, "baselines", log_dir=tmp_path, baselines="rouge_l")
    before = _files(tmp_path)
    with pytest.raises(InputError, match="unknown lexical metric"):
        score(*PAIR, "baselines", log_dir=tmp_path, baselines="nonsense")
    assert _files(tmp_path) == before
    assert done.log.eval.task_args["data"] in [str(p) for p in (tmp_path / "data").iterdir()]


def test_discarding_removes_only_what_writing_created(tmp_path):
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "kept.txt").write_text("x")
    written = write_pairs([{"id": "1", "reference": "A.", "candidate": "B."}], tmp_path / "logs" / "deep")
    assert written.created == (
        written.path,
        tmp_path / "logs" / "deep" / "data",
        tmp_path / "logs" / "deep",
    )
    again = write_pairs([{"id": "1", "reference": "A.", "candidate": "B."}], tmp_path / "logs" / "deep")
    assert again.path == written.path and again.created == ()
    again.discard()
    assert written.path.is_file()
    written.discard()
    assert _files(tmp_path) == ["logs", "logs/kept.txt"]


def _call(function: Any, completions: Any, references: Any, **extra: Any) -> list[float | None]:
    return asyncio.run(function(prompts=["Findings:"] * 2, completions=completions, reference=references, **extra))


@pytest.mark.parametrize(
    ("make", "completions", "columns", "message"),
    [
        ({}, None, {"reference": ["A."]}, "needs the completions"),
        ({}, ["A."], {"findings": ["A."]}, "no column 'reference'"),
        ({}, ["A.", "B."], {"reference": ["A."]}, "2 completions and 1 references"),
        ({}, [3], {"reference": ["A."]}, "must be text or a list of chat messages"),
        ({}, ["A."], {"reference": [""]}, r"references\[0\]: missing or empty reference report"),
        ({"baselines": "nonsense"}, ["A."], {"reference": ["A."]}, "unknown lexical metric 'nonsense'"),
        ({"metric": "vert"}, ["A."], {"reference": ["A."]}, "vert needs a judge"),
    ],
)
def test_a_refused_reward_call_writes_nothing(tmp_path, make, completions, columns, message):
    function = reward_function(**{"metric": "baselines", **make}, log_dir=tmp_path / "logs")
    with pytest.raises(InputError, match=message):
        asyncio.run(function(prompts=["Findings:"], completions=completions, **columns))
    assert _files(tmp_path) == [] and function.logs == [] and function.judged == 0


def test_a_score_key_the_metric_does_not_give_takes_its_log_and_data_away(tmp_path):
    rouge = reward_function("baselines", baselines="rouge_l", score="bleu_9", log_dir=tmp_path / "logs")
    with pytest.raises(InputError, match="^baselines gives no score 'bleu_9'; it gives: rouge_l$"):
        _call(rouge, ["A b.", "C d."], ["A b.", "C e."])
    assert _files(tmp_path) == [] and rouge.logs == [] and rouge.judged == 0


def test_another_prerequisite_is_refused_as_the_task_says_and_an_input_error_as_it_is():
    from radiology_tasks.api import construct
    from radiology_tasks.core.inspect_compat import PrerequisiteError

    def needs_a_tool(**args: Any) -> Any:
        raise PrerequisiteError("Bind an injector with --model-role injector=<model>.")

    def refuses(**args: Any) -> Any:
        raise InputError("-T detail must be one of full, brief; got 'x'")

    with pytest.raises(InputError, match=r"^metric: Bind an injector with --model-role injector=<model>\.$"):
        construct("metric", needs_a_tool, with_judge=False)
    with pytest.raises(InputError, match=r"^-T detail must be one of full, brief; got 'x'$"):
        construct("metric", refuses, with_judge=True)
