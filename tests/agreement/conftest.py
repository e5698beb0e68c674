"""Runs shared by the agreement tests that read real logs (built once per test session)."""

from __future__ import annotations

import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.suite.tasks import metric_suite
from tests.agreement.logs import LEXICAL, REXVAL_ERRORS, rate_eval_copy, run_task
from tests.real_layouts import radpref_copy, rexval_copy


@pytest.fixture(scope="session")
def rate_logs(tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """On a RaTE-Eval copy: the seven lexical metrics, a scripted VERT judge and a scripted GREEN judge."""
    root = tmp_path_factory.mktemp("rate")
    data = str(rate_eval_copy(root / "RaTE-Eval"))
    return [
        run_task(metric_suite(metrics=LEXICAL, data=data), root / "logs"),
        run_task(vert(data=data), root / "logs", judged=True),
        run_task(green(data=data), root / "logs", judged=True),
    ]


@pytest.fixture(scope="session")
def rexval_logs(tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """On a ReXVal copy: the seven lexical metrics and a scripted GREEN judge."""
    root = tmp_path_factory.mktemp("rexval")
    data = str(rexval_copy(root / "ReXVal", REXVAL_ERRORS))
    return [
        run_task(metric_suite(metrics=LEXICAL, data=data), root / "logs"),
        run_task(green(data=data), root / "logs", judged=True),
    ]


@pytest.fixture(scope="session")
def radpref_logs(tmp_path_factory: pytest.TempPathFactory) -> list[EvalLog]:
    """On a RadPref copy (two candidates per study, three radiologists' ratings): the lexical metrics and a scripted
    VERT judge."""
    root = tmp_path_factory.mktemp("radpref")
    data = str(radpref_copy(root / "CRIMSON"))
    return [
        run_task(metric_suite(metrics=LEXICAL, data=data), root / "logs"),
        run_task(vert(data=data), root / "logs", judged=True),
    ]
