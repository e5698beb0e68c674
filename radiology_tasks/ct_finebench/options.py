"""The question mode the CT-FineBench solver and scorer share, checked once when they are built."""

from __future__ import annotations

from typing import Literal, cast, get_args

from radiology_tasks.core.params import choice_param

QAMode = Literal["batch", "per_question"]
"""``batch``: one judge call answers all of a report's questions (and one grades all judged answers);
``per_question``: one call per question in each step, the paper's protocol."""


def qa_mode_param(value: object) -> QAMode:
    """Check ``-T qa_mode`` (an `InputError` naming it and what it accepts)."""
    return cast(QAMode, choice_param("qa_mode", value, get_args(QAMode)))
