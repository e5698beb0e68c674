"""How a judge prompt declares the shape of the answer it expects."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class OutputContract:
    """The output contract of one judge prompt, in every form a backend may understand.

    Attributes:
        name: Short name shown in logs (e.g. ``green``, ``vert``).
        gbnf: A llama.cpp GBNF grammar for the answer, when the answer is free-form text.
        regex: A regular expression equivalent to ``gbnf`` (for backends that take regexes).
        json_schema: A JSON schema, when the answer is a JSON object.
    """

    name: str
    gbnf: str | None = None
    regex: str | None = None
    json_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.gbnf is None and self.regex is None and self.json_schema is None:
            raise ValueError(f"output contract '{self.name}' declares no grammar, regex or schema")
