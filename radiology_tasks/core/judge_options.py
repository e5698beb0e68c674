"""The judge parameters the judge tasks share, checked once when a task is built.

``-T constrain``, ``judge_max_tokens``, ``judge_retries`` and ``unscored`` mean the same in every task, so they
are read in one place, with the same one-line errors.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import cast, get_args

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.params import choice_param, int_param
from radiology_tasks.core.task_options import option
from radiology_tasks.core.unscored import UnscoredPolicy, check_policy


@dataclass(frozen=True)
class JudgeOptions:
    """The shared judge parameters, checked as `-T` gave them when built (a bad one is a one-line `InputError`).

    Each field is one `-T` parameter, documented once here; a task whose judge gives a field a narrower meaning
    (its own token budgets, what its unscored result is) documents it in its own `Args:`.
    """

    constrain: ConstrainMode = option(
        "auto",
        "Constrain the judge's answer to its format: `auto` picks the backend's way where it has one (GBNF for "
        "llama.cpp, `structured_outputs` for vLLM, a JSON schema for JSON answers elsewhere); `off`; or force one "
        "request shape: `grammar`, `structured_outputs`, `response_format`.",
    )
    judge_max_tokens: int | None = option(
        None, "Upper bound on each judge answer. Not set: the budget of the answer's output contract."
    )
    judge_retries: int = option(
        1,
        "Re-asks of an answer that leaves a score unreadable, each with Inspect's cache bypassed, a new seed and, "
        "for a greedy judge, temperature 0.7; every attempt's answer is kept.",
    )
    unscored: UnscoredPolicy = option(
        "worst",
        "A score the judge did not give: `worst` counts it as 0 in the means (error counts stay excluded), "
        "`exclude` leaves it out.",
    )

    def __post_init__(self) -> None:
        # Frozen: checked values replace the raw ones the way dataclasses themselves set fields.
        object.__setattr__(self, "constrain", constrain_param(self.constrain))
        object.__setattr__(self, "judge_max_tokens", int_param("judge_max_tokens", self.judge_max_tokens, minimum=1))
        object.__setattr__(
            self, "judge_retries", int_param("judge_retries", self.judge_retries, minimum=0, required=True)
        )
        object.__setattr__(self, "unscored", check_policy(self.unscored))

    def _repr_params_(self) -> dict[str, object]:
        """The fields, as Inspect records a scorer's or solver's arguments in the log (its hook for an object
        argument, which it would otherwise record by its class name)."""
        return dataclasses.asdict(self)


def constrain_param(value: object) -> ConstrainMode:
    """Check ``-T constrain``. Inspect reads ``-T`` values as YAML 1.1, where a bare ``off`` is False."""
    mode = "off" if value is False else value
    return cast(ConstrainMode, choice_param("constrain", mode, get_args(ConstrainMode)))
