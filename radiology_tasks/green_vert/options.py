"""The examples and error descriptions GREEN/VERT's tasks (`green` and `vert`) put into the prompt, declared and
documented once (see `radiology_tasks.core.task_options`). How the judge's answer is asked for and read is shared
with judge sensitivity: `radiology_tasks.report_judge.options`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, cast, get_args

from radiology_tasks.core.params import bool_param, choice_param, int_param, text_param
from radiology_tasks.core.task_options import option

Curated = Literal["none", "error-types"]
"""The team's curated examples put before any pool examples: none, or one per error category (a)-(f)."""


@dataclass(frozen=True)
class ExampleOptions:
    """What the GREEN/VERT prompt shows before the reports: examples and error descriptions, checked when built."""

    shots: int = option(
        0, "Number of pool examples (reference, candidate, expert score) drawn from `shot_pool` into the prompt."
    )
    shot_pool: str | None = option(
        None,
        "Dataset name or file with `candidate` and `expert_score` to draw the examples from; pairs being evaluated "
        "are excluded by id and by text.",
    )
    shot_seed: int = option(0, "Seed of the draw from `shot_pool`.")
    curated: Curated = option(
        "none",
        "`error-types` puts the team's six curated examples, one per error category (a)-(f), before any pool "
        "examples; `none` adds none.",
    )
    error_descriptions: bool = option(
        False, "`true` adds the team's description of each error category (a)-(f) to the prompt."
    )

    def __post_init__(self) -> None:
        # Frozen: checked values replace the raw ones the way dataclasses themselves set fields.
        object.__setattr__(self, "shots", int_param("shots", self.shots, minimum=0, required=True))
        object.__setattr__(self, "shot_pool", text_param("shot_pool", self.shot_pool))
        object.__setattr__(self, "shot_seed", int_param("shot_seed", self.shot_seed, required=True))
        object.__setattr__(self, "curated", cast(Curated, choice_param("curated", self.curated, get_args(Curated))))
        object.__setattr__(self, "error_descriptions", bool_param("error_descriptions", self.error_descriptions))

    @property
    def any(self) -> bool:
        """Whether the prompt gets anything besides the reports (the score-only prompt takes nothing)."""
        return bool(self.shots or self.curated != "none" or self.error_descriptions)
