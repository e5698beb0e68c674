"""The two JSON answers CT-FineBench asks its judge for, as output contracts built per report.

Both answers are one JSON object whose keys are the report's question ids, in order, each present once:

- extraction: ``{"q1": "8 mm", "q2": null}``; a string (an answer span from the candidate report, 1 to
  `ANSWER_MAX_CHARS` characters, any language) or ``null`` when the report does not say;
- comparison: ``{"q1": 1, "q2": 0.5}``; one of the grades ``0``, ``0.5`` and ``1``.

The GBNF grammar, its regex equivalent, the JSON schema and the longest admitted answer are built from the same
pieces. The grammar is written here rather than converted from the schema because llama.cpp's conversion admits
unbounded whitespace: here whitespace between tokens is at most `MAX_WHITESPACE` characters, strings have a
length bound, and the object holds exactly the expected keys, so the longest answer is known and fits the
budget. The budgets per question are stated by hand; a test holds that they fit the longest answer.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any, NamedTuple

from scorers.contract import ASCII_TOKENS_PER_CHAR, UNICODE_TOKENS_PER_CHAR, OutputContract

ANSWER_MAX_CHARS = 80
"""Longest extracted answer, in characters (JSON ``maxLength``); answers are short spans such as sizes."""

MAX_WHITESPACE = 3
"""Whitespace characters admitted between two JSON tokens (a newline and a two-space indent)."""

GRADES = (0, 0.5, 1)
"""The grades of the answer comparison."""

EXTRACTION_TOKENS_PER_QUESTION = 820
"""Token budget of the extraction answer per question (a test holds that it fits the longest answer)."""

COMPARISON_TOKENS_PER_QUESTION = 28
"""Token budget of the comparison answer per question."""

BASE_TOKENS = 16
"""Token budget for the braces and the end of the answer."""

EXTRACTION = "ct_finebench_extraction"
COMPARISON = "ct_finebench_comparison"


class _Piece(NamedTuple):
    """A part of the answer, written once in GBNF and once as a regex, with its longest length in characters."""

    gbnf: str
    regex: str
    max_chars: int


class _Rule(NamedTuple):
    """A named GBNF rule; the grammar refers to it by name (so llama.cpp expands its body once)."""

    name: str
    body: _Piece

    @property
    def ref(self) -> _Piece:
        return _Piece(self.name, f"(?:{self.body.regex})", self.body.max_chars)

    @property
    def gbnf(self) -> str:
        return f"{self.name} ::= {self.body.gbnf}"


def _literal(text: str) -> _Piece:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return _Piece(f'"{escaped}"', re.escape(text), len(text))


def _sequence(*pieces: _Piece) -> _Piece:
    return _Piece(" ".join(p.gbnf for p in pieces), "".join(p.regex for p in pieces), sum(p.max_chars for p in pieces))


def _choice(*pieces: _Piece) -> _Piece:
    return _Piece(
        " | ".join(p.gbnf for p in pieces),
        "|".join(f"(?:{p.regex})" for p in pieces),
        max(p.max_chars for p in pieces),
    )


_WS = _Rule("ws", _Piece(f"[ \\t\\n]{{0,{MAX_WHITESPACE}}}", f"[ \\t\\n]{{0,{MAX_WHITESPACE}}}", MAX_WHITESPACE))

# One character of a JSON string: anything but a quote, a backslash or a control character, or a two-character
# escape. Unicode escapes (\uXXXX) are left out: the judge writes the character itself.
_CHAR = _Rule(
    "char",
    _Piece(
        '[^"\\\\\\x7F\\x00-\\x1F] | "\\\\" ["\\\\/bfnrt]',
        '[^"\\\\\\x7f\\x00-\\x1f]|\\\\["\\\\/bfnrt]',
        2,
    ),
)

_STRING = _Piece(
    f'"\\"" {_CHAR.name}{{1,{ANSWER_MAX_CHARS}}} "\\""',
    f'"{_CHAR.ref.regex}{{1,{ANSWER_MAX_CHARS}}}"',
    2 + _CHAR.body.max_chars * ANSWER_MAX_CHARS,
)
_ANSWER = _Rule("answer", _choice(_STRING, _literal("null")))
_GRADE = _Rule("grade", _choice(*(_literal(str(grade)) for grade in GRADES)))


def _object(ids: Sequence[str], value: _Piece) -> _Piece:
    """``{ "id": value, ... }`` with every id once, in order, and bounded whitespace around every token."""
    ws = _WS.ref
    members = [_sequence(ws, _literal(json.dumps(key)), ws, _literal(":"), ws, value, ws) for key in ids]
    separated = [member if index == 0 else _sequence(_literal(","), member) for index, member in enumerate(members)]
    return _sequence(_literal("{"), *separated, _literal("}"))


def _contract(
    name: str,
    ids: Sequence[str],
    rules: Sequence[_Rule],
    schema: dict[str, Any],
    tokens_per_char: float,
    tokens_per_question: int,
) -> OutputContract:
    """A contract whose keys are `ids`; the first of `rules` is the value of every key."""
    if not ids:
        raise ValueError(f"{name}: a contract needs at least one question id")
    if len(set(ids)) != len(ids):
        raise ValueError(f"{name}: question ids must be distinct, got {list(ids)}")
    root = _Rule("root", _object(ids, rules[0].ref))
    return OutputContract(
        name=name,
        max_chars=root.body.max_chars,
        max_tokens=BASE_TOKENS + tokens_per_question * len(ids),
        tokens_per_char=tokens_per_char,
        gbnf="".join(f"{rule.gbnf}\n" for rule in (root, *rules, _WS)),
        regex=root.body.regex,
        json_schema={
            "type": "object",
            "properties": {key: schema for key in ids},
            "required": list(ids),
            "additionalProperties": False,
        },
    )


def extraction_contract(ids: Sequence[str]) -> OutputContract:
    """The contract of the extraction answer for these question ids (an answer span or null for each)."""
    schema = {"anyOf": [{"type": "string", "minLength": 1, "maxLength": ANSWER_MAX_CHARS}, {"type": "null"}]}
    # Answer spans may be in any language: every character may cost several tokens.
    rules = (_ANSWER, _CHAR)
    return _contract(EXTRACTION, ids, rules, schema, UNICODE_TOKENS_PER_CHAR, EXTRACTION_TOKENS_PER_QUESTION)


def comparison_contract(ids: Sequence[str]) -> OutputContract:
    """The contract of the comparison answer for these question ids (a grade 0, 0.5 or 1 for each)."""
    schema = {"type": "number", "enum": list(GRADES)}
    return _contract(COMPARISON, ids, (_GRADE,), schema, ASCII_TOKENS_PER_CHAR, COMPARISON_TOKENS_PER_QUESTION)
