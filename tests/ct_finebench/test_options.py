"""Task parameters are checked when the task is built; the data must have questions; registry names."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.util import registry_info

from radiology_tasks.cli import format_task_list
from radiology_tasks.core.errors import InputError
from radiology_tasks.ct_finebench.extraction import qa_extraction
from radiology_tasks.ct_finebench.metrics import question_breakdown
from radiology_tasks.ct_finebench.scorer import qa_comparison
from radiology_tasks.ct_finebench.tasks import ct_finebench
from tests.conftest import GOOD_ROWS, write_jsonl


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"qa_mode": "per_report"}, "-T qa_mode must be one of batch, per_question; got 'per_report'"),
        ({"constrain": "json"}, "-T constrain must be one of auto, off, grammar, structured_outputs, response_format"),
        ({"judge_max_tokens": 0}, "-T judge_max_tokens must be at least 1, got 0"),
        ({"judge_retries": -1}, "-T judge_retries must be at least 0, got -1"),
        ({"judge_retries": True}, "-T judge_retries must be a whole number, got True"),
        ({"unscored": "zero"}, "-T unscored must be one of worst, exclude; got 'zero'"),
        ({"limit": 0}, "-T limit must be at least 1, got 0"),
    ],
)
def test_bad_parameters_stop_the_task_with_one_line(arguments: dict, message: str) -> None:
    with pytest.raises(InputError) as error:
        ct_finebench(**arguments)
    assert str(error.value).startswith(message) and "\n" not in str(error.value)


def test_data_without_questions_is_refused(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "pairs.jsonl", GOOD_ROWS)
    with pytest.raises(InputError, match=r"no report in .*pairs\.jsonl has questions \(a 'qa' list\)"):
        ct_finebench(data=str(data))


def test_demo_reports_without_questions_are_left_out_and_counted() -> None:
    task = ct_finebench()
    assert len(task.dataset) == 21
    assert task.metadata["data"]["rows_without_questions"] == 20
    assert task.metadata["questions"] == 126  # 7 CT references, 6 questions each, 3 candidates per reference
    assert task.version == "1.5.0"


def test_registry_names_carry_the_package_prefix() -> None:
    names = [registry_info(component).name for component in (qa_extraction(), qa_comparison(), question_breakdown())]
    assert names == [
        "radiology_tasks/qa_extraction",
        "radiology_tasks/qa_comparison",
        "radiology_tasks/question_breakdown",
    ]
    text = format_task_list()
    assert "radiology_tasks/ct_finebench\n      CT-FineBench: a judge answers" in text
    assert "-T qa_mode=batch" in text and "-T judge_retries=1" in text and "-T unscored=worst" in text


def test_breakdown_of_no_samples_is_nan_and_zero_counts() -> None:
    values = question_breakdown()([])
    assert math.isnan(values["type_numeric_mean"]) and values["type_numeric_n"] == 0
    assert math.isnan(values["unanswered_share"]) and values["questions_total"] == 0


def test_breakdown_skips_samples_without_questions() -> None:
    question = {"answer_type": "numeric", "attribute": "Size", "grade": 0.5, "answered": True}
    samples = [
        SampleScore(
            score=Score(value={"ct_finebench": math.nan}, metadata={"unscored": {"ct_finebench": "no_response"}})
        ),
        SampleScore(score=Score(value={"ct_finebench": 0.5}, metadata={"questions": [question]})),
    ]
    values = question_breakdown()(samples)
    assert (values["type_numeric_mean"], values["attribute_size_mean"], values["questions_total"]) == (0.5, 0.5, 1)
