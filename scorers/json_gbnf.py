"""JSON answers built from the grammar pieces of `scorers.gbnf`: whitespace, strings, literals, objects and arrays.

Every family that asks its judge for JSON takes these pieces, so each JSON answer format has its GBNF grammar,
its regex and its longest answer from one place. Everything is bounded: whitespace runs, string lengths and
list lengths, so the longest admitted answer is known.

Two rules are shared by name and must be passed to `scorers.gbnf.grammar` by the contract that uses them:
`JSON_CHAR` (one character of a `json_string`) and the whitespace rule of the contract's `Spacing`.

Strings come in two kinds:

- `json_string`, for text that may need escapes (report sentences): any character but the quote, the backslash
  and the control characters (DEL included), or a two-character escape (``\\"``, ``\\\\``, ``\\/``, ``\\b``,
  ``\\f``, ``\\n``, ``\\r``, ``\\t``). ``\\uXXXX`` escapes are left out: a model writes the character itself.
  Its length bound counts characters as decoded (JSON schema's ``maxLength``), so ``n`` characters may be
  written with up to ``2 + 2n``.
- `prose_string`, for the model's own words: printable ASCII without the quote and the backslash, which never
  needs an escape, so ``n`` characters are written with ``2 + n`` and cost one token each.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import NamedTuple

from radiology_tasks.scorers.gbnf import Piece, Rule, chars, choice, literal, repeat, sequence

JSON_CHAR = Rule(
    "char",
    choice(chars('[^"\\\\\\x7F\\x00-\\x1F]'), sequence(literal("\\"), chars('["\\\\/bfnrt]'))),
)
"""One character of a `json_string` as written: a plain character or a two-character escape."""

PROSE_CHAR = "[ !#-\\x5B\\x5D-~]"
"""One character of a `prose_string`: printable ASCII (0x20-0x7E) but the quote (0x22) and the backslash (0x5C)."""


def whitespace(max_chars: int) -> Rule:
    """The rule ``ws``: 0 to `max_chars` spaces, tabs or line feeds between two JSON tokens."""
    return Rule("ws", chars("[ \\t\\n]", 0, max_chars))


class Spacing(NamedTuple):
    """How much whitespace a JSON answer may hold between two tokens, and where.

    Whitespace may always follow ``{``, ``[``, ``:`` and ``,`` and precede ``}`` and ``]``: every layout
    ``json.dumps`` writes, compact or indented. With `padded` it may also precede ``:`` and ``,``, as JSON
    itself allows, at the cost of a longer longest answer.

    Attributes:
        max_whitespace: The longest whitespace run between two tokens.
        padded: Whether whitespace may also come before a colon or a comma.
    """

    max_whitespace: int
    padded: bool = False

    @property
    def rule(self) -> Rule:
        """The whitespace rule (pass it to `scorers.gbnf.grammar`)."""
        return whitespace(self.max_whitespace)


def json_value(value: object) -> Piece:
    """Exactly the compact JSON text of `value`: a quoted sentence, a key, a number, ``true``, ``null``."""
    return literal(json.dumps(value, ensure_ascii=False))


def json_string(max_length: int, *, min_length: int = 0) -> Piece:
    """A JSON string of `min_length` to `max_length` characters as decoded (escapes allowed, `JSON_CHAR`)."""
    return sequence(literal('"'), repeat(JSON_CHAR.ref, min_length, max_length), literal('"'))


def prose_string(max_length: int, *, min_length: int = 0) -> Piece:
    """A JSON string of `min_length` to `max_length` printable ASCII characters that need no escape."""
    return sequence(literal('"'), chars(PROSE_CHAR, min_length, max_length), literal('"'))


def json_member(key: str, value: Piece, spacing: Spacing) -> Piece:
    """``"key": value`` as it stands after ``{`` or ``,``, with the whitespace `spacing` allows around it.

    With padded spacing a member is self-contained (whitespace before and after it), so members can be chained
    by commas into larger structures, as `json_object` does.
    """
    pad = _pad(spacing)
    return _element(sequence(json_value(key), *pad, literal(":"), spacing.rule.ref, value), spacing)


def json_object(members: Sequence[tuple[str, Piece]], spacing: Spacing) -> Piece:
    """A JSON object with exactly these members (key and value), in this order."""
    return _container("{", [json_member(key, value, spacing) for key, value in members], "}", spacing)


def json_array(items: Sequence[Piece], spacing: Spacing) -> Piece:
    """A JSON array of exactly these items, in this order."""
    return _container("[", [_element(item, spacing) for item in items], "]", spacing)


def json_list(item: Piece, max_items: int, spacing: Spacing) -> Piece:
    """A JSON array of 0 to `max_items` items, each matching `item`."""
    if max_items < 1:
        raise ValueError(f"max_items must be >= 1, got {max_items}")
    element = _element(item, spacing)
    items = element if max_items == 1 else sequence(element, repeat(sequence(literal(","), element), 0, max_items - 1))
    return sequence(literal("["), choice(sequence(items, *_tail(spacing)), spacing.rule.ref), literal("]"))


def _pad(spacing: Spacing) -> list[Piece]:
    """The whitespace before a colon or a comma: none unless padded."""
    return [spacing.rule.ref] if spacing.padded else []


def _tail(spacing: Spacing) -> list[Piece]:
    """The whitespace before a closing bracket that the last element does not already end with."""
    return [] if spacing.padded else [spacing.rule.ref]


def _element(piece: Piece, spacing: Spacing) -> Piece:
    """`piece` after an opening bracket or a comma: whitespace before it, and after it when padded."""
    return sequence(spacing.rule.ref, piece, *_pad(spacing))


def _container(opening: str, elements: list[Piece], closing: str, spacing: Spacing) -> Piece:
    if not elements:
        return sequence(literal(opening), spacing.rule.ref, literal(closing))
    separated = [element if index == 0 else sequence(literal(","), element) for index, element in enumerate(elements)]
    return sequence(literal(opening), *separated, *_tail(spacing), literal(closing))
