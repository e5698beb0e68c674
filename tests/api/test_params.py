"""`score` refuses the parameters that choose the data, now read from the data options' fields."""

from __future__ import annotations

import pytest

from radiology_tasks.api import DATA_PARAMETERS, check_params, task_function
from radiology_tasks.core.errors import InputError


def test_the_refused_parameters_are_the_data_options_but_the_expert_scale() -> None:
    assert DATA_PARAMETERS == {
        "data",
        "candidates",
        "reports",
        "revision",
        "layout",
        "limit",
        "seed",
        "on_bad_rows",
        "track",
        "image_root",
        "generate",
        "report_max_tokens",
        "images",
        "missing_images",
    }


@pytest.mark.parametrize("metric", ["green", "vert", "ct_finebench", "ran_score", "baselines", "metric_suite"])
def test_shared_and_own_parameters_are_read_from_the_task_signature(metric: str) -> None:
    function = task_function(metric)
    check_params(metric, function, {"unscored": "exclude", "expert_scale": "1,5"})
    with pytest.raises(InputError, match="'generate' chooses the data"):
        check_params(metric, function, {"generate": True})
    with pytest.raises(InputError, match=f"^{metric} takes no parameter 'shot'; it takes: "):
        check_params(metric, function, {"shot": 1})


def test_a_task_that_does_not_take_a_shared_parameter_refuses_it() -> None:
    with pytest.raises(InputError, match="^ct_finebench takes no parameter 'detail'"):
        check_params("ct_finebench", task_function("ct_finebench"), {"detail": "brief"})
    check_params("green", task_function("green"), {"detail": "brief", "judge_retries": 0})
