"""The judge's answer formats for finding extraction, as GBNF, regex and JSON schema, with their length bounds.

Batch extraction (one call per report) answers one JSON object with every asked label's key, in taxonomy
order; per-label extraction answers the value of one label:

    {"atelectasis": {"present": 0}, "cardiomegaly": {"present": 1, "evidence": "heart is enlarged"}, ...}
    {"present": 1, "evidence": "心影增大"}

The grammar, the regex and the longest admitted answer are built from the same pieces, and the JSON schema from
the same constants (keys, `EVIDENCE_MAX_CHARS`). Whitespace is bounded: up to `BREAK_MAX_CHARS` characters
(spaces, tabs, newlines) around the labels of the outer object, at most one space inside a label's value. Evidence
is a passage of the report in any script, not starting with whitespace, without double quotes, backslashes or
control characters (so no JSON escapes are needed); hence the contracts count `UNICODE_TOKENS_PER_CHAR` tokens per
character.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, NamedTuple

from scorers.contract import BUDGET_MARGIN, UNICODE_TOKENS_PER_CHAR, OutputContract

EVIDENCE_MAX_CHARS = 80
"""Longest evidence passage a constrained judge may write for one label."""

BREAK_MAX_CHARS = 4
"""Longest whitespace run between the labels of a batch answer (a newline and an indent)."""

BUDGET_STEP = 256
"""Token budgets are the contract's need with `BUDGET_MARGIN`, rounded up to a multiple of this."""

_REGEX_SPECIAL = set(r"\.^$*+?{}[]|()")
# Any character but a double quote, a backslash or a control character; the same text in GBNF and Python regex.
_EVIDENCE_CHAR = r'[^"\\\x00-\x1f]'
# The first character is not whitespace either (Python's `str.isspace` set), so evidence is never blank.
_EVIDENCE_FIRST = r'[^"\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]'


class _Piece(NamedTuple):
    """One part of the format, written once in GBNF and once as a regex, with its longest length."""

    gbnf: str
    regex: str
    max_chars: int


def _literal(text: str) -> _Piece:
    gbnf = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    regex = "".join("\\" + char if char in _REGEX_SPECIAL else char for char in text)
    return _Piece(f'"{gbnf}"', regex, len(text))


def _repeat(char_class: str, low: int, high: int) -> _Piece:
    bounded = f"{char_class}{{{low},{high}}}"
    return _Piece(bounded, bounded, high)


def _sequence(*pieces: _Piece) -> _Piece:
    return _Piece(" ".join(p.gbnf for p in pieces), "".join(p.regex for p in pieces), sum(p.max_chars for p in pieces))


def _either(*pieces: _Piece) -> _Piece:
    return _Piece(
        "(" + " | ".join(p.gbnf for p in pieces) + ")",
        "(?:" + "|".join(p.regex for p in pieces) + ")",
        max(p.max_chars for p in pieces),
    )


def _reference(name: str, piece: _Piece) -> _Piece:
    """Use a named rule in GBNF (its definition is emitted once) and its regex inline."""
    return _Piece(name, f"(?:{piece.regex})", piece.max_chars)


_SPACE = _repeat("[ ]", 0, 1)
_BREAK = _repeat(r"[ \t\n]", 0, BREAK_MAX_CHARS)
_ABSENT = _sequence(_literal("{"), _SPACE, _literal('"present":'), _SPACE, _literal("0"), _SPACE, _literal("}"))
_PRESENT = _sequence(
    _literal("{"),
    _SPACE,
    _literal('"present":'),
    _SPACE,
    _literal("1,"),
    _SPACE,
    _literal('"evidence":'),
    _SPACE,
    _literal('"'),
    _Piece(_EVIDENCE_FIRST, _EVIDENCE_FIRST, 1),
    _repeat(_EVIDENCE_CHAR, 0, EVIDENCE_MAX_CHARS - 1),
    _literal('"'),
    _SPACE,
    _literal("}"),
)
_VALUE = _either(_reference("absent", _ABSENT), _reference("present", _PRESENT))
_VALUE_RULES = [("value", _VALUE), ("absent", _ABSENT), ("present", _PRESENT)]


def _budget(max_chars: int) -> int:
    needed = (math.ceil(max_chars * UNICODE_TOKENS_PER_CHAR) + 1) * BUDGET_MARGIN
    return math.ceil(needed / BUDGET_STEP) * BUDGET_STEP


def _value_schema() -> dict[str, Any]:
    absent = {
        "type": "object",
        "properties": {"present": {"type": "integer", "enum": [0]}},
        "required": ["present"],
        "additionalProperties": False,
    }
    present = {
        "type": "object",
        "properties": {
            "present": {"type": "integer", "enum": [1]},
            "evidence": {"type": "string", "minLength": 1, "maxLength": EVIDENCE_MAX_CHARS},
        },
        "required": ["present", "evidence"],
        "additionalProperties": False,
    }
    return {"anyOf": [absent, present]}


def _contract(name: str, root: _Piece, json_schema: dict[str, Any]) -> OutputContract:
    rules = [("root", root), *_VALUE_RULES]
    return OutputContract(
        name=name,
        max_chars=root.max_chars,
        max_tokens=_budget(root.max_chars),
        tokens_per_char=UNICODE_TOKENS_PER_CHAR,
        gbnf="".join(f"{rule} ::= {piece.gbnf}\n" for rule, piece in rules),
        regex=root.regex,
        json_schema=json_schema,
    )


def batch_contract(keys: Sequence[str]) -> OutputContract:
    """The contract of a batch answer: one JSON object with a value for each of `keys`, in that order.

    Args:
        keys: The asked labels' keys (lower-case ASCII identifiers).
    """
    if not keys:
        raise ValueError("a batch contract needs at least one label key")
    value = _reference("value", _VALUE)
    members = []
    for index, key in enumerate(keys):
        separator = _literal("{" if index == 0 else ",")
        members.append(_sequence(separator, _BREAK, _literal(f'"{key}":'), _SPACE, value))
    root = _sequence(*members, _BREAK, _literal("}"))
    schema = {
        "type": "object",
        "properties": {key: _value_schema() for key in keys},
        "required": list(keys),
        "additionalProperties": False,
    }
    return _contract(f"ran-labels-{len(keys)}", root, schema)


def label_contract() -> OutputContract:
    """The contract of a per-label answer: the value of one label."""
    return _contract("ran-label", _reference("value", _VALUE), _value_schema())
