"""Output contracts of the two new judge answers that benchmark construction asks for.

- Triplets (step 1): ``{"t1": {"finding": "lung nodule", "attribute": "size", "value": "8 mm"}, "t2": ...}``,
  the keys ``t1`` ... ``tk`` in order for some k up to ``max_triplets`` (``{}`` when the report describes no
  abnormality). Keys stand in for an array because Inspect's ``response_schema`` cannot carry ``maxItems``:
  a finite set of optional properties bounds the count in every backend's form.
- Existence (step 3): ``{"f1": "present", "f2": "absent", "f3": "not_mentioned"}``, one status per schema
  finding id.

The attribute answers of step 3 use CT-FineBench's own extraction contract (an answer span or null per id).

Triplet texts admit any Unicode character except quotes, backslashes and control characters: names and short
values never need them, and leaving out escapes halves the longest answer and so the token budget. Both
grammars are built from the same pieces as their regexes and length bounds (`scorers.json_gbnf`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from radiology_tasks.core.contract import ASCII_TOKENS_PER_CHAR, UNICODE_TOKENS_PER_CHAR, OutputContract
from radiology_tasks.scorers.ct_finebench.contracts import SPACING, keyed_contract
from radiology_tasks.scorers.gbnf import Rule, chars, choice, grammar, literal, optional, repeat, sequence
from radiology_tasks.scorers.json_gbnf import json_member, json_object, json_value

FINDING_MAX_CHARS = 40
"""Longest finding name in a triplet, in characters."""

ATTRIBUTE_MAX_CHARS = 24
"""Longest attribute name in a triplet, in characters."""

VALUE_MAX_CHARS = 48
"""Longest attribute value in a triplet, in characters (a size, a place, a short description)."""

DEFAULT_MAX_TRIPLETS = 20
"""Triplets one answer may hold unless ``--max-triplets`` says otherwise."""

MAX_TRIPLETS_LIMIT = 999
"""Most triplets a contract can admit: a longer key (``t1000``) would outgrow `TRIPLET_TOKENS`."""

TRIPLET_TOKENS = 920
"""Token budget per triplet slot (a test holds that it fits the longest answer)."""

EXISTENCE_TOKENS_PER_FINDING = 44
"""Token budget per schema finding of the existence answer."""

BASE_TOKENS = 16
"""Token budget for the braces and the end of the answer."""

TRIPLETS = "ct_finebench_triplets"
EXISTENCE = "ct_finebench_existence"

ExistenceStatus = Literal["present", "absent", "not_mentioned"]
"""What a report says about a schema finding."""
EXISTENCE_STATUSES: tuple[ExistenceStatus, ...] = get_args(ExistenceStatus)

TRIPLET_FIELDS = ("finding", "attribute", "value")
_FIELD_MAX_CHARS = dict(zip(TRIPLET_FIELDS, (FINDING_MAX_CHARS, ATTRIBUTE_MAX_CHARS, VALUE_MAX_CHARS)))

# One character of a triplet text: anything but a quote, a backslash or a control character.
_TEXT_CHAR = Rule("tchar", chars('[^"\\\\\\x7F\\x00-\\x1F]'))


def _text_rule(field: str) -> Rule:
    return Rule(
        f"{field}-text", sequence(literal('"'), repeat(_TEXT_CHAR.ref, 1, _FIELD_MAX_CHARS[field]), literal('"'))
    )


_TEXT_RULES = {field: _text_rule(field) for field in TRIPLET_FIELDS}
_TRIPLET = Rule("triplet", json_object([(field, _TEXT_RULES[field].ref) for field in TRIPLET_FIELDS], SPACING))


def _slots(max_triplets: int) -> list[Rule]:
    """Rules ``slot1`` ... ``slotN``: slot k is member ``tk``, then optionally a comma and slot k+1.

    The nesting makes the keys a prefix ``t1`` ... ``tk`` of the slots, in order, with no key twice.
    """
    rules: list[Rule] = []
    following: Rule | None = None
    for number in range(max_triplets, 0, -1):
        item = json_member(f"t{number}", _TRIPLET.ref, SPACING)
        body = item if following is None else sequence(item, optional(sequence(literal(","), following.ref)))
        following = Rule(f"slot{number}", body)
        rules.append(following)
    return rules[::-1]


def triplet_contract(max_triplets: int = DEFAULT_MAX_TRIPLETS) -> OutputContract:
    """The contract of a triplet answer holding at most `max_triplets` triplets.

    Raises:
        ValueError: `max_triplets` is outside 1 to `MAX_TRIPLETS_LIMIT`.
    """
    if not 1 <= max_triplets <= MAX_TRIPLETS_LIMIT:
        raise ValueError(f"max_triplets must be from 1 to {MAX_TRIPLETS_LIMIT}, got {max_triplets}")
    slots = _slots(max_triplets)
    # An empty answer is "{}" with at most the bounded whitespace inside.
    root = sequence(literal("{"), choice(slots[0].ref, SPACING.rule.ref), literal("}"))
    rules = (*slots, _TRIPLET, *_TEXT_RULES.values(), _TEXT_CHAR, SPACING.rule)
    triplet_schema: dict[str, Any] = {
        "type": "object",
        "properties": {
            field: {"type": "string", "minLength": 1, "maxLength": bound} for field, bound in _FIELD_MAX_CHARS.items()
        },
        "required": list(TRIPLET_FIELDS),
        "additionalProperties": False,
    }
    return OutputContract(
        name=TRIPLETS,
        max_chars=root.max_chars,
        max_tokens=BASE_TOKENS + TRIPLET_TOKENS * max_triplets,
        tokens_per_char=UNICODE_TOKENS_PER_CHAR,
        gbnf=grammar(root, rules),
        regex=root.regex,
        json_schema={
            "type": "object",
            "properties": {f"t{number}": triplet_schema for number in range(1, max_triplets + 1)},
            "additionalProperties": False,
        },
    )


def existence_contract(ids: Sequence[str]) -> OutputContract:
    """The contract of the existence answer for these schema finding ids (a status for each)."""
    status = Rule("status", choice(*(json_value(value) for value in EXISTENCE_STATUSES)))
    schema = {"type": "string", "enum": list(EXISTENCE_STATUSES)}
    return keyed_contract(EXISTENCE, ids, (status,), schema, ASCII_TOKENS_PER_CHAR, EXISTENCE_TOKENS_PER_FINDING)
