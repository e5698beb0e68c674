"""A report's questions as the judge sees them: stable ids, answer types, and how each answer is graded."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from radiology_tasks.core.records import QAPair
from radiology_tasks.scorers.numeric import quantities

AnswerType = Literal["existence", "categorical", "location", "numeric", "other"]
ANSWER_TYPES: tuple[AnswerType, ...] = get_args(AnswerType)

# Attribute names that say what kind of answer a question has, for data that gives no attribute type.
_EXISTENCE_ATTRIBUTES = {"existence", "presence", "present", "exists"}
_LOCATION_WORDS = re.compile(r"location|laterality|position|side|site|segment|lobe|level", re.IGNORECASE)


@dataclass(frozen=True)
class Question:
    """One question of a report, under the id the judge answers it by.

    Attributes:
        id: ``q1``, ``q2``, ... in the order of the report's questions (the JSON key in the judge's answers).
        qa: The question, its reference answer, finding and attribute.
        answer_type: `AnswerType` (the data's, or inferred when the data gives none).
    """

    id: str
    qa: QAPair
    answer_type: AnswerType

    @property
    def graded_in_code(self) -> bool:
        """Numeric questions whose reference answer holds a number are graded by `grade_numeric`."""
        return self.answer_type == "numeric" and bool(quantities(self.qa.answer))


def answer_type(qa: QAPair) -> AnswerType:
    """The answer type given by the data; without one, inferred from the attribute name and the answer.

    An attribute named like existence/presence is ``existence``; one naming a place (location, laterality,
    side, segment, ...) is ``location``; an answer holding a number is ``numeric``; anything else is
    ``categorical``.
    """
    if qa.attribute_type is not None:
        return qa.attribute_type
    attribute = (qa.attribute or "").strip().lower()
    if attribute in _EXISTENCE_ATTRIBUTES:
        return "existence"
    if _LOCATION_WORDS.search(attribute):
        return "location"
    return "numeric" if quantities(qa.answer) else "categorical"


def numbered_questions(qa: Sequence[QAPair]) -> list[Question]:
    """The report's questions with ids ``q1``... in data order (ids are stable for a given data file)."""
    return [Question(f"q{number}", pair, answer_type(pair)) for number, pair in enumerate(qa, start=1)]


def metric_name(text: str | None) -> str:
    """A name fit for a metric key: ``"RV/LV diameter ratio"`` -> ``rv_lv_diameter_ratio``; None -> ``unspecified``."""
    name = re.sub(r"[^0-9a-z]+", "_", (text or "").lower()).strip("_")
    return name or "unspecified"
