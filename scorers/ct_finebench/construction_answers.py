"""Read the judge's construction answers strictly: triplets (step 1) and existence statuses (step 3).

Nothing is guessed. A triplet answer is read as a whole: one JSON object whose keys are ``t1`` ... ``tN``
(N = the contract's ``max_triplets``) and whose values each hold exactly a finding, an attribute and a value
within the contract's lengths. Anything else makes the whole answer unreadable (`TripletReading.problem`), so
the caller asks again and, in the end, records the report as a failure rather than keep part of it. Existence
answers are read per id like CT-FineBench's own answers (`scorers.ct_finebench.answers`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, StringConstraints, TypeAdapter, ValidationError

# The per-id reader of the CT-FineBench answers; existence answers share its rules.
from radiology_tasks.scorers.ct_finebench.answers import IdReading, _read
from radiology_tasks.scorers.ct_finebench.construction_contracts import (
    ATTRIBUTE_MAX_CHARS,
    FINDING_MAX_CHARS,
    VALUE_MAX_CHARS,
    ExistenceStatus,
)

_KEY = re.compile(r"t([1-9][0-9]*)")


# Surrounding whitespace is trimmed before the bounds apply: " " is no name.
_FindingText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=FINDING_MAX_CHARS)]
_AttributeText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=ATTRIBUTE_MAX_CHARS)]
_ValueText = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=VALUE_MAX_CHARS)]


class Triplet(BaseModel):
    """One detail of one finding, as the judge read it from a report.

    Attributes:
        finding: The finding, e.g. ``lung nodule``.
        attribute: What the value describes, e.g. ``size``.
        value: The report's words for it, e.g. ``8 mm``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    finding: _FindingText
    attribute: _AttributeText
    value: _ValueText


@dataclass(frozen=True)
class TripletReading:
    """The triplets of one answer, in key order, or why the answer cannot be read.

    Attributes:
        triplets: The triplets (empty for ``{}``: the report describes no abnormality).
        problem: Why the answer as a whole could not be read; None when it could.
    """

    triplets: tuple[Triplet, ...] = ()
    problem: str | None = None

    @property
    def problems(self) -> Mapping[str, str]:
        """The problems that make the answer worth asking again (`radiology_tasks.core.judge.Reading`)."""
        return {"answer": self.problem} if self.problem else {}


def _object(text: str) -> tuple[dict[str, Any] | None, str | None]:
    """The answer as a JSON object with distinct keys, or the problem."""
    repeated: list[str] = []

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        repeated.extend(sorted({key for key in keys if keys.count(key) > 1}))
        return dict(pairs)

    try:
        answer = json.loads(text, object_pairs_hook=unique)
    except json.JSONDecodeError as error:
        detail = "the answer is empty" if not text.strip() else f"{error.msg} at character {error.pos}"
        return None, f"invalid_json: {detail}"
    if repeated:
        return None, f"duplicate_key: {', '.join(repeated)}"
    if not isinstance(answer, dict):
        return None, f"not_an_object: the answer is a JSON {type(answer).__name__}"
    return answer, None


def read_triplets(text: str, max_triplets: int) -> TripletReading:
    """Read a triplet answer.

    Args:
        text: The judge's raw answer.
        max_triplets: The highest key number the contract admits (``t1`` ... ``t<max_triplets>``).

    Returns:
        The triplets ordered by key number, or the first problem found.
    """
    answer, problem = _object(text)
    if answer is None:
        return TripletReading(problem=problem)
    numbered: list[tuple[int, Triplet]] = []
    for key, value in answer.items():
        match = _KEY.fullmatch(key)
        if match is None or int(match.group(1)) > max_triplets:
            return TripletReading(problem=f"unexpected_key: {json.dumps(key)[:60]} (keys are t1 to t{max_triplets})")
        try:
            numbered.append((int(match.group(1)), Triplet.model_validate(value)))
        except ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            detail = f"{key}.{where}" if where else key
            return TripletReading(problem=f"invalid_triplet: {detail}: {first['msg']} (got {json.dumps(value)[:100]})")
    return TripletReading(triplets=tuple(triplet for _, triplet in sorted(numbered, key=lambda item: item[0])))


_STATUS = TypeAdapter(ExistenceStatus)


def read_existence(text: str, ids: Sequence[str]) -> IdReading[ExistenceStatus]:
    """Read an existence answer: for each schema finding id, ``present``, ``absent`` or ``not_mentioned``.

    Args:
        text: The judge's raw answer.
        ids: The finding ids asked, each expected once.
    """
    return _read(text, ids, _STATUS)
