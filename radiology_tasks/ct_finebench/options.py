"""The judge options the CT-FineBench solver and scorer share, checked once when they are built."""

from __future__ import annotations

from typing import Literal, cast, get_args

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.judge_options import constrain_param
from radiology_tasks.core.params import choice_param, int_param

QAMode = Literal["batch", "per_question"]
"""``batch``: one judge call answers all of a report's questions (and one grades all judged answers);
``per_question``: one call per question in each step, the paper's protocol."""


def qa_mode_param(value: object) -> QAMode:
    """Check ``-T qa_mode`` (an `InputError` naming it and what it accepts)."""
    return cast(QAMode, choice_param("qa_mode", value, get_args(QAMode)))


def check_judge_options(
    *, qa_mode: object, constrain: object, judge_max_tokens: object, judge_retries: object
) -> ConstrainMode:
    """Validate ``-T qa_mode`` and the shared ``constrain``, ``judge_max_tokens`` and ``judge_retries``.

    Returns:
        The constrain mode (``-T constrain=off`` arrives as False; see `constrain_param`).

    Raises:
        InputError: naming the parameter and what it accepts.
    """
    qa_mode_param(qa_mode)
    int_param("judge_max_tokens", judge_max_tokens, minimum=1)
    int_param("judge_retries", judge_retries, minimum=0, required=True)
    return constrain_param(constrain)
