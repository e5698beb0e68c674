"""Read the judge's JSON answers strictly: one value per question id, or the reason there is none.

Nothing is guessed. The answer must be exactly one JSON object (whitespace around it is allowed, prose or a
code fence is not). Each expected id is read on its own, so one bad value costs only its own question:

- the whole answer is unreadable (not JSON, not an object, a key given twice, or no question answered in
  it): `IdReading.format_problem`, and the caller asks again;
- an id is missing or its value breaks the contract: `IdReading.id_problems`, and the caller asks again
  for those ids only;
- keys that are not question ids are ignored and listed in `IdReading.unexpected_keys`.

An extracted answer written as the benchmark's ``[NULL]`` token counts as ``null`` (the report does not say).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Generic, TypeVar

from pydantic import AfterValidator, StrictFloat, StrictInt, StringConstraints, TypeAdapter, ValidationError

from radiology_tasks.scorers.ct_finebench.contracts import ANSWER_MAX_CHARS, GRADES
from radiology_tasks.scorers.numeric import NULL_ANSWER

T = TypeVar("T")


def _known_grade(value: float) -> float:
    if value not in GRADES:
        raise ValueError("must be one of 0, 0.5, 1")
    return float(value)


def _null_token(value: str | None) -> str | None:
    return None if value is not None and value.strip().upper() == NULL_ANSWER else value


ExtractedAnswer = Annotated[
    Annotated[str, StringConstraints(min_length=1, max_length=ANSWER_MAX_CHARS)] | None, AfterValidator(_null_token)
]
"""An answer span from the candidate report, or None when the report does not say."""

Grade = Annotated[StrictInt | StrictFloat, AfterValidator(_known_grade)]
"""A comparison grade: 0, 0.5 or 1 (a JSON number; ``true`` or ``"1"`` is not a grade)."""

_EXTRACTED = TypeAdapter(ExtractedAnswer)
_GRADE = TypeAdapter(Grade)


@dataclass(frozen=True)
class IdReading(Generic[T]):
    """What one judge answer says about each question id.

    Attributes:
        values: The value read for each id that could be read.
        id_problems: ``id -> reason`` for each expected id that is missing or whose value breaks the contract.
        format_problem: Why the answer as a whole could not be read (None when it could).
        unexpected_keys: Keys of the answer that are not expected ids (ignored).
    """

    values: dict[str, T] = field(default_factory=dict)
    id_problems: dict[str, str] = field(default_factory=dict)
    format_problem: str | None = None
    unexpected_keys: tuple[str, ...] = ()

    @property
    def problems(self) -> Mapping[str, str]:
        """The problems that make the whole answer worth asking again (`radiology_tasks.core.judge.Reading`)."""
        return {"answer": self.format_problem} if self.format_problem else {}


class _DuplicateKeyError(ValueError):
    pass


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    repeated = sorted({key for key in keys if keys.count(key) > 1})
    if repeated:
        raise _DuplicateKeyError(", ".join(repeated))
    return dict(pairs)


def _read(text: str, ids: Sequence[str], adapter: TypeAdapter[Any]) -> IdReading[Any]:
    try:
        answer = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKeyError as error:
        return IdReading(format_problem=f"duplicate_key: {error}")
    except json.JSONDecodeError as error:
        detail = "the answer is empty" if not text.strip() else f"{error.msg} at character {error.pos}"
        return IdReading(format_problem=f"invalid_json: {detail}")
    if not isinstance(answer, dict):
        return IdReading(format_problem=f"not_an_object: the answer is a JSON {type(answer).__name__}")
    values: dict[str, Any] = {}
    problems: dict[str, str] = {}
    for key in ids:
        if key not in answer:
            problems[key] = "missing"
            continue
        try:
            values[key] = adapter.validate_python(answer[key], strict=True)
        except ValidationError as error:
            problems[key] = f"invalid_value: {error.errors()[0]['msg']} (got {json.dumps(answer[key])[:100]})"
    unexpected = tuple(key for key in answer if key not in ids)
    if not values:
        first = next(iter(problems.items()), ("", ""))
        detail = f"{first[0]} {first[1]}" if first[0] else "no keys"
        return IdReading(
            id_problems=problems,
            format_problem=f"no_question_answered: none of {len(ids)} question ids could be read ({detail})",
            unexpected_keys=unexpected,
        )
    return IdReading(values=values, id_problems=problems, unexpected_keys=unexpected)


def read_extraction(text: str, ids: Sequence[str]) -> IdReading[str | None]:
    """Read an extraction answer: for each question id an answer span, or None when the report does not say.

    Args:
        text: The judge's raw answer.
        ids: The question ids asked, each expected once.
    """
    return _read(text, ids, _EXTRACTED)


def read_grades(text: str, ids: Sequence[str]) -> IdReading[float]:
    """Read a comparison answer: for each question id a grade of 0.0, 0.5 or 1.0.

    Args:
        text: The judge's raw answer.
        ids: The question ids asked, each expected once.
    """
    return _read(text, ids, _GRADE)
