"""How a judge prompt declares the shape of the answer it expects, and how long that answer can be."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

BUDGET_MARGIN = 1.1
"""A contract's token budget must exceed its longest admitted answer by this factor."""

ASCII_TOKENS_PER_CHAR = 1.0
"""Conservative tokens per character when every free-text character is printable ASCII: byte-level and
byte-fallback tokenizers never spend more than one token on one byte."""

UNICODE_TOKENS_PER_CHAR = 4.0
"""Conservative tokens per character when free text admits any Unicode character (up to four UTF-8 bytes,
one byte-fallback token each)."""


@dataclass(frozen=True)
class OutputContract:
    """The output contract of one judge prompt, in every form a backend may understand, with its length bound.

    Attributes:
        name: Short name shown in logs (e.g. ``green``, ``vert``).
        max_chars: The longest answer the contract admits, in characters (computed from the same pieces
            as the grammar, never written by hand).
        max_tokens: The answer budget tasks send by default; must exceed `max_answer_tokens` by
            `BUDGET_MARGIN`, so a constrained answer always finishes before the budget cuts it.
        tokens_per_char: Conservative tokens per character of this contract's answers
            (`ASCII_TOKENS_PER_CHAR` or `UNICODE_TOKENS_PER_CHAR`).
        gbnf: A llama.cpp GBNF grammar for the answer.
        regex: A regular expression equivalent to ``gbnf`` (for backends that take regexes).
        json_schema: A JSON schema, when the answer is a JSON object.
    """

    name: str
    max_chars: int
    max_tokens: int
    tokens_per_char: float = ASCII_TOKENS_PER_CHAR
    gbnf: str | None = None
    regex: str | None = None
    json_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.gbnf is None and self.regex is None and self.json_schema is None:
            raise ValueError(f"output contract '{self.name}' declares no grammar, regex or schema")
        if self.max_chars < 1 or self.max_tokens < 1:
            raise ValueError(f"output contract '{self.name}': max_chars and max_tokens must be >= 1")

    @property
    def max_answer_tokens(self) -> int:
        """Conservative token count of the longest admitted answer, end-of-sequence token included."""
        return math.ceil(self.max_chars * self.tokens_per_char) + 1

    def fits(self, max_tokens: int) -> bool:
        """Whether a budget of `max_tokens` holds the longest admitted answer with `BUDGET_MARGIN` to spare."""
        return max_tokens >= self.max_answer_tokens * BUDGET_MARGIN
