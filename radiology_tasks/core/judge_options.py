"""The judge parameters every task family takes, checked once when a task is built.

``-T constrain``, ``judge_max_tokens``, ``judge_retries`` and ``unscored`` mean the same in every task, so they
are read in one place, with the same one-line errors.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast, get_args

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.params import choice_param, int_param
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy


@dataclass(frozen=True)
class JudgeOptions:
    """The shared judge parameters, checked.

    Attributes:
        constrain: How the judge's answer is constrained (see `radiology_tasks.core.constrain`).
        judge_max_tokens: The answer budget; None sends each contract's own budget.
        judge_retries: Re-asks of an answer that cannot be read.
        unscored: What a score the judge did not give counts as (`radiology_tasks.core.unscored`).
    """

    constrain: ConstrainMode
    judge_max_tokens: int | None
    judge_retries: int
    unscored: UnscoredPolicy


def constrain_param(value: object) -> ConstrainMode:
    """Check ``-T constrain``. Inspect reads ``-T`` values as YAML 1.1, where a bare ``off`` is False."""
    mode = "off" if value is False else value
    return cast(ConstrainMode, choice_param("constrain", mode, get_args(ConstrainMode)))


def judge_options(
    *, constrain: object, judge_max_tokens: object, judge_retries: object, unscored: object
) -> JudgeOptions:
    """Check the shared judge parameters as `-T` gave them.

    Raises:
        InputError: one line naming the parameter and what it accepts.
    """
    return JudgeOptions(
        constrain=constrain_param(constrain),
        judge_max_tokens=int_param("judge_max_tokens", judge_max_tokens, minimum=1),
        judge_retries=int_param("judge_retries", judge_retries, minimum=0, required=True),
        unscored=check_policy(unscored),  # type: ignore[arg-type]
    )
