"""The variants planned for each reference from the task's settings.

Both the task (to make the variants) and its re-scoring (to list the sample ids a run's settings give) read the
plan from here, so the re-scoring does not import the task module.
"""

from __future__ import annotations

from typing import Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.solvers.judge_sensitivity.variants import (
    DEFAULT_CATEGORIES,
    VariantSpec,
    parse_categories,
    plan_variants,
)

PLAN_DEFAULTS: dict[str, Any] = {"categories": None, "max_errors": 3, "paraphrases": 1}
"""The task's defaults of the parameters that shape the plan (its signature spells out the same values)."""


def variant_plan(categories: str | list[str] | None, max_errors: int, paraphrases: int) -> list[VariantSpec]:
    """The variants planned for each reference (validated even when a variants file makes them moot)."""
    try:
        chosen = DEFAULT_CATEGORIES if categories is None else parse_categories(categories)
        return plan_variants(chosen, max_errors, paraphrases)
    except ValueError as error:
        raise InputError(f"-T {error}") from None
