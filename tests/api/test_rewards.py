"""Reward functions in TRL's convention: one float per completion, None for an unscored one, judged once per
distinct (reference, completion), one log per call, and several functions awaited together."""

from __future__ import annotations

import asyncio
import math
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from radiology_tasks import reward_function, score
from radiology_tasks.core.errors import InputError
from radiology_tasks.rewards import completion_text
from tests.api.conftest import JUDGE, ROWS
from tests.api.scripted_judge import GARBAGE

REFERENCES = [row["reference"] for row in ROWS]
COMPLETIONS = [row["candidate"] for row in ROWS]


def _call(function: Any, completions: list[Any], references: list[Any], **extra: Any) -> list[float | None]:
    return asyncio.run(
        function(
            prompts=["Write the findings."] * len(completions), completions=completions, reference=references, **extra
        )
    )


def test_rewards_are_the_scores_of_score_and_none_for_an_unscored_completion(judge, tmp_path):
    expected = score(REFERENCES, COMPLETIONS, "green", judge=JUDGE, log_dir=tmp_path / "score")
    judge.requests.clear()
    green = reward_function("green", judge=JUDGE, log_dir=tmp_path / "rewards")
    rewards = _call(
        green, COMPLETIONS + ["  "], REFERENCES + [REFERENCES[0]], trainer_state=SimpleNamespace(global_step=7)
    )
    garbled = [GARBAGE in c for c in COMPLETIONS]
    assert rewards[:-1] == [None if bad else s.value["green"] for bad, s in zip(garbled, expected.samples)]
    assert rewards[-1] is None  # an empty completion: the policy wrote nothing, and no judge is asked
    assert any(isinstance(r, float) for r in rewards) and green.__name__ == "green"
    # Judge retries re-ask the garbled one; every other completion is asked once, the empty one never.
    prompts = [r["messages"][-1]["content"] for r in judge.requests]
    assert all(sum(c in p for p in prompts) == (1 if GARBAGE not in c else 2) for c in COMPLETIONS)
    (location,) = green.logs
    log = read_eval_log(location)
    assert log.status == "success" and log.eval.task == "radiology_tasks/green"
    assert log.eval.metadata["reward"] == {"function": "green", "step": 7}
    assert log.plan is not None and len(log.samples) == len(COMPLETIONS)


def test_unscored_reward_replaces_none(judge, tmp_path):
    green = reward_function("green", judge=JUDGE, unscored_reward=-1.0, log_dir=tmp_path)
    rewards = _call(green, COMPLETIONS + [""], REFERENCES + [REFERENCES[0]])
    assert [r == -1.0 for r in rewards] == [GARBAGE in c for c in COMPLETIONS] + [True]


def test_a_completion_already_judged_against_the_same_reference_is_not_judged_again(judge, tmp_path):
    vert = reward_function("vert", judge=JUDGE, log_dir=tmp_path)
    first = _call(vert, [COMPLETIONS[0], COMPLETIONS[0], COMPLETIONS[1]], REFERENCES[:1] * 2 + REFERENCES[1:2])
    assert first[0] == first[1] and len(judge.requests) == 2 and vert.judged == 2
    # The same completion against another reference is a new pair.
    again = _call(vert, [COMPLETIONS[1], COMPLETIONS[0], COMPLETIONS[0]], [REFERENCES[1], REFERENCES[0], REFERENCES[1]])
    assert again[:2] == [first[2], first[0]]
    assert len(judge.requests) == 3 and vert.judged == 3 and len(vert.logs) == 2


def test_the_score_key_and_conversational_completions(judge, tmp_path):
    errors = reward_function("green", judge=JUDGE, score="green_ec", log_dir=tmp_path)
    conversation = [
        [{"role": "assistant", "content": COMPLETIONS[0]}],
        [{"role": "assistant", "content": [{"type": "text", "text": COMPLETIONS[1]}]}],
    ]
    rewards = _call(errors, conversation, REFERENCES[:2])
    expected = score(REFERENCES[:2], COMPLETIONS[:2], "green", judge=JUDGE, log_dir=tmp_path)
    assert rewards == [s.value["green_ec"] for s in expected.samples]
    assert errors.__name__ == "green_green_ec"
    wrong = reward_function("green", judge=JUDGE, score="bleu_9", log_dir=tmp_path)
    with pytest.raises(InputError, match="gives no score 'bleu_9'"):
        _call(wrong, COMPLETIONS[:1], REFERENCES[:1])


def test_log_metric_gets_the_unscored_share_and_judge_tokens(judge, tmp_path):
    logged: dict[str, float] = {}
    extra: dict[str, list[Any]] = {}
    green = reward_function("green", judge=JUDGE, log_dir=tmp_path)
    _call(green, COMPLETIONS, REFERENCES, log_metric=logged.__setitem__, log_extra=extra.__setitem__)
    assert logged["green/unscored_share"] == 1 / len(COMPLETIONS)
    usage = read_eval_log(green.logs[0]).stats.role_usage["grader"]
    assert logged["green/judge_tokens"] == usage.input_tokens + usage.output_tokens > 0
    assert extra["green_unscored"] == ["invalid_response_format" if GARBAGE in c else None for c in COMPLETIONS]


def test_a_lexical_reward_needs_no_judge(tmp_path):
    rouge = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path)
    assert _call(rouge, ["No pneumothorax.", "Right effusion."], ["No pneumothorax.", "Left effusion."]) == [1.0, 0.5]


def test_two_reward_functions_awaited_together_share_one_evaluation(judge, tmp_path):
    green = reward_function("green", judge=JUDGE, log_dir=tmp_path)
    bleu = reward_function("baselines", baselines="bleu_rexrank", log_dir=tmp_path)
    other_judge = reward_function("vert", judge=JUDGE, log_dir=tmp_path)
    kwargs = {"prompts": [""] * len(ROWS), "completions": COMPLETIONS, "reference": REFERENCES}

    async def together() -> list[list[float | None]]:
        return await asyncio.gather(green(**kwargs), bleu(**kwargs), other_judge(**kwargs))

    by_green, by_bleu, by_vert = asyncio.run(together())
    logs = [read_eval_log(f.logs[0]) for f in (green, bleu, other_judge)]
    assert len({log.eval.run_id for log in logs}) == 1
    assert [log.eval.task for log in logs] == [
        "radiology_tasks/green",
        "radiology_tasks/baselines",
        "radiology_tasks/vert",
    ]
    alone = [
        _call(reward_function(m, judge=JUDGE, log_dir=tmp_path, **p), COMPLETIONS, REFERENCES)
        for m, p in (("green", {}), ("baselines", {"baselines": "bleu_rexrank"}), ("vert", {}))
    ]
    assert [by_green, by_bleu, by_vert] == alone
    assert all(isinstance(r, float) and not math.isnan(r) for r in by_bleu)


def test_reward_functions_computing_different_scores_have_different_names():
    lexical = [
        reward_function("baselines", baselines="rouge_l"),
        reward_function("baselines", baselines="bleu_rexrank"),
        reward_function("baselines", baselines="bleu,chrf"),
        reward_function("baselines", baselines=["bleu_1", "chrf"]),
        reward_function("baselines", baselines="rouge_l", score="rouge_l"),
    ]
    assert [f.__name__ for f in lexical] == [
        "baselines_rouge_l",
        "baselines_bleu_rexrank",
        "baselines_bleu_chrf",
        "baselines_bleu_1_chrf",
        "baselines_rouge_l_rouge_l",
    ]
    judged = [
        reward_function("radiology_tasks/vert", prompt="rubric"),
        reward_function("green", shots=2, judge_retries=0, unscored="exclude"),
        reward_function("green", score="green_ec"),
        reward_function("green", judge_retries=0),
        reward_function("green", name="mine", score="green_ec"),
    ]
    # The shared judge and data options say how the judge is called, not what is computed: no part of the name.
    assert [f.__name__ for f in judged] == ["vert_rubric", "green_shots_2", "green_green_ec", "green", "mine"]


def test_trl_logs_a_reward_under_its_name():
    utils = pytest.importorskip("trl.trainer.utils")
    rouge = reward_function("baselines", baselines="rouge_l")
    assert (
        utils.get_callable_name(rouge) == "baselines_rouge_l" != utils.get_callable_name(reward_function("baselines"))
    )


def test_bad_settings_are_refused_when_the_function_is_made():
    with pytest.raises(InputError, match="unknown metric"):
        reward_function("greenish")
    with pytest.raises(InputError, match="takes no parameter 'shots_'"):
        reward_function("vert", shots_=2)
    with pytest.raises(InputError, match="'data' chooses the data"):
        reward_function("vert", data="demo")


def test_a_missing_reference_column_is_named(tmp_path):
    rouge = reward_function("baselines", reference_column="findings", log_dir=tmp_path)
    with pytest.raises(InputError, match="no column 'findings' among the dataset's columns \\(reference\\)"):
        _call(rouge, ["A."], ["B."])


def test_completion_text_reads_text_and_the_last_assistant_message():
    assert completion_text("Clear lungs.") == "Clear lungs."
    assert completion_text([{"role": "user", "content": "q"}, {"role": "assistant", "content": "a"}]) == "a"
    assert (
        completion_text(
            [{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}]
        )
        == "ab"
    )
    with pytest.raises(InputError):
        completion_text(3)
    with pytest.raises(InputError):
        completion_text([{"role": "user", "content": "q"}])


def test_a_negative_cache_size_is_refused():
    with pytest.raises(InputError, match="cache_size must be at least 0"):
        reward_function("baselines", cache_size=-1)


def test_the_cache_keeps_at_most_cache_size_pairs(tmp_path):
    rouge = reward_function("baselines", baselines="rouge_l", cache_size=1, log_dir=tmp_path)
    _call(rouge, ["A b.", "C d."], ["A b.", "C d."])
    _call(rouge, ["C d.", "A b."], ["C d.", "A b."])
    # Only the last pair of the first call was kept: the second call judged the first pair again.
    assert rouge.judged == 3
