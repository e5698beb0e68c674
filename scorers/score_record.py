"""The base of a family's typed score record: what its scorer writes into `Score.metadata`, read back by name.

A family's record declares every key its scorer writes as a field with a default; the scorer writes through
`ScoreRecord.written` (a key the record does not declare is refused) and its readers go through `ScoreRecord.read`
(a key a later release adds, or one a redacted log keeps, is ignored; a field an older log lacks reads as its default).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

R = TypeVar("R", bound="ScoreRecord")

PARSED_ANSWERS = "parsed_answers"
"""The score metadata key under which a record keeps what its scorer read from the judge's answers, which a redacted
log is re-scored from (the leaderboard's `radiology_tasks.leaderboard.rules.PARSED_ANSWERS` is this one)."""


class ScoreRecord(BaseModel):
    """Frozen, and lenient about keys it does not know when read."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    @classmethod
    def read(cls: type[R], metadata: Mapping[str, Any] | None) -> R:
        """The record a score's metadata holds (as a log stores it).

        Raises:
            ValueError: naming the field a log holds in a form the scorer never writes.
        """
        return cls.model_validate(dict(metadata or {}))

    @classmethod
    def written(cls, metadata: Mapping[str, Any]) -> dict[str, Any]:
        """`metadata` as the scorer writes it into `Score.metadata`: the fields it sets, each checked, no other.

        Raises:
            TypeError: for a key that is not one of the record's fields (nothing the scorer writes goes unnamed).
        """
        unknown = sorted(set(metadata) - set(cls.model_fields))
        if unknown:
            raise TypeError(f"{cls.__name__} has no field {', '.join(unknown)}")
        return cls.model_validate(dict(metadata)).model_dump(exclude_unset=True)
