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
from collections.abc import Sequence
from typing import Any

from scorers.contract import ASCII_TOKENS_PER_CHAR, UNICODE_TOKENS_PER_CHAR, OutputContract
from scorers.gbnf import Piece, Rule, chars, choice, grammar, literal, repeat, sequence

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


WS = Rule("ws", chars("[ \\t\\n]", 0, MAX_WHITESPACE))
"""Whitespace between two JSON tokens, bounded."""

# One character of a JSON string: anything but a quote, a backslash or a control character, or a two-character
# escape. Unicode escapes (\uXXXX) are left out: the judge writes the character itself.
_CHAR = Rule(
    "char",
    choice(chars('[^"\\\\\\x7F\\x00-\\x1F]'), sequence(literal("\\"), chars('["\\\\/bfnrt]'))),
)
_STRING = sequence(literal('"'), repeat(_CHAR.ref, 1, ANSWER_MAX_CHARS), literal('"'))
_ANSWER = Rule("answer", choice(_STRING, literal("null")))
_GRADE = Rule("grade", choice(*(literal(str(grade)) for grade in GRADES)))


def member(key: str, value: Piece) -> Piece:
    """``"key" : value`` with bounded whitespace around every token."""
    ws = WS.ref
    return sequence(ws, literal(json.dumps(key)), ws, literal(":"), ws, value, ws)


def json_object(members: Sequence[Piece]) -> Piece:
    """``{ member, member, ... }``: the members once each, in this order."""
    separated = [item if index == 0 else sequence(literal(","), item) for index, item in enumerate(members)]
    return sequence(literal("{"), *separated, literal("}"))


def keyed_contract(
    name: str,
    ids: Sequence[str],
    rules: Sequence[Rule],
    schema: dict[str, Any],
    tokens_per_char: float,
    tokens_per_question: int,
) -> OutputContract:
    """A contract for one JSON object whose keys are `ids`; the first of `rules` is the value of every key."""
    if not ids:
        raise ValueError(f"{name}: a contract needs at least one question id")
    if len(set(ids)) != len(ids):
        raise ValueError(f"{name}: question ids must be distinct, got {list(ids)}")
    root = json_object([member(key, rules[0].ref) for key in ids])
    return OutputContract(
        name=name,
        max_chars=root.max_chars,
        max_tokens=BASE_TOKENS + tokens_per_question * len(ids),
        tokens_per_char=tokens_per_char,
        gbnf=grammar(root, (*rules, WS)),
        regex=root.regex,
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
    return keyed_contract(EXTRACTION, ids, rules, schema, UNICODE_TOKENS_PER_CHAR, EXTRACTION_TOKENS_PER_QUESTION)


def comparison_contract(ids: Sequence[str]) -> OutputContract:
    """The contract of the comparison answer for these question ids (a grade 0, 0.5 or 1 for each)."""
    schema = {"type": "number", "enum": list(GRADES)}
    return keyed_contract(COMPARISON, ids, (_GRADE,), schema, ASCII_TOKENS_PER_CHAR, COMPARISON_TOKENS_PER_QUESTION)
