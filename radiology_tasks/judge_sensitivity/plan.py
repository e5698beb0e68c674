"""The variants planned for each reference, and how the injector makes them, from the task's settings.

Both the task (to make the variants) and its re-scoring (to list the sample ids a run's settings give) read the
plan from here, so the re-scoring does not import the task module.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING

from radiology_tasks.core.constrain import ConstrainMode
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.params import int_param
from radiology_tasks.core.task_options import option
from radiology_tasks.solvers.judge_sensitivity.variants import (
    DEFAULT_CATEGORIES,
    VariantSpec,
    parse_categories,
    plan_variants,
)

if TYPE_CHECKING:
    from radiology_tasks.judge_sensitivity.rewrite import RewriteSettings


def variant_plan(categories: str | list[str] | None, max_errors: int, paraphrases: int) -> list[VariantSpec]:
    """The variants planned for each reference (validated even when a variants file makes them moot)."""
    try:
        chosen = DEFAULT_CATEGORIES if categories is None else parse_categories(categories)
        return plan_variants(chosen, max_errors, paraphrases)
    except ValueError as error:
        raise InputError(f"-T {error}") from None


@dataclass(frozen=True)
class VariantOptions:
    """The parameters that shape the variants the injector makes, checked as `-T` gave them when built."""

    categories: str | list[str] | None = option(
        None, "Error types to inject: letters `a`-`f` separated by commas, or `all`. Not set: `a,b`."
    )
    max_errors: int = option(3, "Error variants with N = 1..`max_errors` errors of each type (at most 9).")
    paraphrases: int = option(1, "Paraphrases per reference (`0` turns robustness off).")
    injector_attempts: int = option(5, "Attempts per variant before it is excluded.")
    injector_temperature: float = option(
        0.0,
        "Temperature of the first attempt; later attempts bypass the cache with a new seed and a temperature of at "
        "least 0.7.",
    )
    injector_max_tokens: int | None = option(
        None,
        "Token budget of a rewrite. Not set: the output contract's budget, which can exceed an API's output cap "
        "(lower it for such APIs).",
    )

    def __post_init__(self) -> None:
        # Frozen: checked values replace the raw ones the way dataclasses themselves set fields.
        for name in ("max_errors", "paraphrases", "injector_attempts"):
            object.__setattr__(self, name, int_param(name, getattr(self, name), required=True))
        max_tokens = int_param("injector_max_tokens", self.injector_max_tokens, minimum=1)
        object.__setattr__(self, "injector_max_tokens", max_tokens)
        temperature = self.injector_temperature
        if isinstance(temperature, bool) or not isinstance(temperature, int | float):
            raise InputError(f"-T injector_temperature must be a number, got {temperature!r}")
        self.plan()
        self.settings("auto", 0)

    def plan(self) -> list[VariantSpec]:
        """The variants planned for each reference."""
        return variant_plan(self.categories, self.max_errors, self.paraphrases)

    def settings(self, constrain: ConstrainMode, seed: int) -> RewriteSettings:
        """How the injector makes each variant, under the judge's `constrain` and the run's `seed`."""
        from radiology_tasks.judge_sensitivity.rewrite import RewriteSettings

        return RewriteSettings(
            self.injector_attempts, constrain, self.injector_temperature, self.injector_max_tokens, seed
        )

    def changed(self) -> list[str]:
        """The `-T` parameters given other values than their defaults."""
        default = VariantOptions()
        return [f"-T {f.name}" for f in dataclasses.fields(self) if getattr(self, f.name) != getattr(default, f.name)]
