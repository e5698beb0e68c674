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
from typing import Any

from radiology_tasks.core.contract import BUDGET_MARGIN, UNICODE_TOKENS_PER_CHAR, OutputContract
from radiology_tasks.scorers.gbnf import Piece, Rule, chars, choice, grammar, literal, sequence

EVIDENCE_MAX_CHARS = 80
"""Longest evidence passage a constrained judge may write for one label."""

BREAK_MAX_CHARS = 4
"""Longest whitespace run between the labels of a batch answer (a newline and an indent)."""

BUDGET_STEP = 256
"""Token budgets are the contract's need with `BUDGET_MARGIN`, rounded up to a multiple of this."""

# Any character but a double quote, a backslash or a control character; the same text in GBNF and Python regex.
_EVIDENCE_CHAR = r'[^"\\\x00-\x1f]'
# The first character is not whitespace either (Python's `str.isspace` set), so evidence is never blank.
_EVIDENCE_FIRST = r'[^"\\\x00-\x20\x7f-\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]'

_SPACE = chars("[ ]", 0, 1)
_BREAK = chars(r"[ \t\n]", 0, BREAK_MAX_CHARS)
_ABSENT = Rule(
    "absent", sequence(literal("{"), _SPACE, literal('"present":'), _SPACE, literal("0"), _SPACE, literal("}"))
)
_PRESENT = Rule(
    "present",
    sequence(
        literal("{"),
        _SPACE,
        literal('"present":'),
        _SPACE,
        literal("1,"),
        _SPACE,
        literal('"evidence":'),
        _SPACE,
        literal('"'),
        chars(_EVIDENCE_FIRST),
        chars(_EVIDENCE_CHAR, 0, EVIDENCE_MAX_CHARS - 1),
        literal('"'),
        _SPACE,
        literal("}"),
    ),
)
_VALUE = Rule("value", choice(_ABSENT.ref, _PRESENT.ref))
_VALUE_RULES = [_VALUE, _ABSENT, _PRESENT]


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


def _contract(name: str, root: Piece, json_schema: dict[str, Any]) -> OutputContract:
    return OutputContract(
        name=name,
        max_chars=root.max_chars,
        max_tokens=_budget(root.max_chars),
        tokens_per_char=UNICODE_TOKENS_PER_CHAR,
        gbnf=grammar(root, _VALUE_RULES),
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
    members = []
    for index, key in enumerate(keys):
        separator = literal("{" if index == 0 else ",")
        members.append(sequence(separator, _BREAK, literal(f'"{key}":'), _SPACE, _VALUE.ref))
    root = sequence(*members, _BREAK, literal("}"))
    schema = {
        "type": "object",
        "properties": {key: _value_schema() for key in keys},
        "required": list(keys),
        "additionalProperties": False,
    }
    return _contract(f"ran-labels-{len(keys)}", root, schema)


def label_contract() -> OutputContract:
    """The contract of a per-label answer: the value of one label."""
    return _contract("ran-label", _VALUE.ref, _value_schema())
