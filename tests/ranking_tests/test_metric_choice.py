"""Which metrics the ranking task accepts, and the reason each refused one is refused."""

from __future__ import annotations

import pytest

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.records import ReportPair
from radiology_tasks.ranking_tests.metric_choice import choose_metric

PAIRS = [ReportPair(id="c/C1", reference="Effusion.", candidate="No effusion.")]


def _choose(name: str, key: str | None = None, direction: str = "auto"):
    return choose_metric(name, key, direction, JudgeOptions(), PAIRS)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["bleu_1", "bleu_4", "bleu_rexrank", "chrf", "rouge_l"])
def test_lexical_metrics_need_no_judge_and_rank_higher_first(name):
    chosen = _choose(name)
    assert (chosen.key, chosen.higher_is_better, chosen.judged, chosen.templates) == (name, True, False, ())


def test_judge_metrics_come_from_the_families_suite_metrics_with_their_templates():
    vert = _choose("vert")
    assert (vert.key, vert.higher_is_better, vert.judged) == ("vert", True, True)
    assert vert.templates == ("green_vert",)


def test_an_error_count_ranks_fewer_first_unless_told_otherwise():
    assert _choose("green").higher_is_better is True
    assert _choose("green", key="green_ec").higher_is_better is False
    assert _choose("green", key="green_ec", direction="higher").higher_is_better is True
    assert _choose("rouge_l", direction="lower").higher_is_better is False


@pytest.mark.parametrize(
    ("name", "key", "direction", "message"),
    [
        ("bleu", None, "auto", "-T metric=bleu gives four scores: name one order"),
        ("ran_score", None, "auto", "-T metric=ran_score: a ranking test needs one score per candidate; ran_score is"),
        ("ct_finebench", None, "auto", "-T metric=ct_finebench: ct_finebench needs questions"),
        ("bertscore", None, "auto", "-T metric: unknown metric 'bertscore' (known: bleu_1"),
        ("vert", "green", "auto", "-T key=green: metric vert gives vert"),
        ("rouge_l", None, "up", "-T direction must be one of auto, higher, lower; got 'up'"),
    ],
)
def test_refusals_say_why(name, key, direction, message):
    with pytest.raises(InputError) as error:
        _choose(name, key, direction)
    assert str(error.value).startswith(message), str(error.value)
