"""The judge options the CT-FineBench solver and scorer share, checked once when they are built."""

from __future__ import annotations

from typing import Any, Literal, cast, get_args

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.errors import InputError

QAMode = Literal["batch", "per_question"]
"""``batch``: one judge call answers all of a report's questions (and one grades all judged answers);
``per_question``: one call per question in each step, the paper's protocol."""


def _one_of(name: str, value: Any, choices: tuple[Any, ...]) -> None:
    if value not in choices:
        raise InputError(f"-T {name} must be one of {', '.join(map(str, choices))}; got {value!r}")


def _whole_number(value: Any, *, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def check_judge_options(
    *, qa_mode: str, constrain: str | bool, judge_max_tokens: int | None, judge_retries: int
) -> ConstrainMode:
    """Validate ``-T qa_mode``, ``constrain``, ``judge_max_tokens`` and ``judge_retries``.

    Returns:
        The constrain mode. Inspect reads ``-T`` values as YAML 1.1, where a bare ``off`` is false, so
        ``-T constrain=off`` arrives as False and means ``off``.

    Raises:
        InputError: naming the parameter and what it accepts.
    """
    _one_of("qa_mode", qa_mode, get_args(QAMode))
    mode = "off" if constrain is False else constrain
    _one_of("constrain", mode, get_args(ConstrainMode))
    if judge_max_tokens is not None and not _whole_number(judge_max_tokens, minimum=1):
        raise InputError(f"-T judge_max_tokens must be a whole number of at least 1; got {judge_max_tokens!r}")
    if not _whole_number(judge_retries, minimum=0):
        raise InputError(f"-T judge_retries must be a whole number of at least 0; got {judge_retries!r}")
    return cast(ConstrainMode, mode)
