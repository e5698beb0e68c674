"""How the GREEN/VERT judge's answer is asked for and read: the `-T` parameters every task asking this judge
shares (`green`, `vert` and `judge_sensitivity`), declared and documented once (see
`radiology_tasks.core.task_options`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, get_args

from radiology_tasks.core.params import choice_param
from radiology_tasks.core.task_options import option
from radiology_tasks.scorers.report_judge.grammar import Detail
from radiology_tasks.scorers.report_judge.parse import MISSING_CATEGORIES, MissingCategories
from radiology_tasks.scorers.report_judge.reading import read_scores
from radiology_tasks.scorers.report_judge.scores import ZeroMatchedPolicy

if TYPE_CHECKING:
    from radiology_tasks.scorers.report_judge.reading import JudgePrompt, ScoreReading

ZeroMatched = ZeroMatchedPolicy
"""GREEN's value when no finding matched (`radiology_tasks.scorers.report_judge.scores.ZeroMatchedPolicy`)."""

DETAILS: tuple[Detail, ...] = get_args(Detail)
ZERO_MATCHED: tuple[ZeroMatched, ...] = get_args(ZeroMatched)


@dataclass(frozen=True)
class ReadingOptions:
    """How the GREEN/VERT answer is asked for and read, checked as `-T` gave them when built."""

    zero_matched: ZeroMatched = option(
        "perfect_if_no_errors",
        "GREEN's score when no finding matched (M = 0): `perfect_if_no_errors` gives 1.0 when there are no "
        "significant errors either, else 0; `original` gives 0, as the original GREEN code does.",
    )
    missing_categories: MissingCategories = option(
        "zero",
        "`zero` reads terse answers as GREEN's reference parser does: a category line absent from a present error "
        'section, or "No errors.", counts 0 (recorded in `filled_categories`); `strict` leaves such a section '
        "unreadable.",
    )
    detail: Detail = option(
        "full",
        "`full`: the paper's answer, with an explanation and each error described; `brief`: the same counts, "
        "matched count and score with a few words per error (fewer output tokens).",
    )

    def __post_init__(self) -> None:
        choice_param("zero_matched", self.zero_matched, ZERO_MATCHED)
        choice_param("missing_categories", self.missing_categories, MISSING_CATEGORIES)
        choice_param("detail", self.detail, DETAILS)

    def read(self, answer: str, *, prompt: JudgePrompt, candidate: str | None) -> ScoreReading:
        """Every score of `prompt` read from one judge answer under these options (the scorer's reading and the
        leaderboard's, so the two cannot differ)."""
        return read_scores(
            answer,
            prompt=prompt,
            candidate=candidate,
            missing_categories=self.missing_categories,
            zero_matched=self.zero_matched,
        )

    def _repr_params_(self) -> dict[str, object]:
        """The fields, as Inspect records a scorer's arguments in the log (its hook for an object argument)."""
        return dataclasses.asdict(self)
