"""Building blocks for GBNF grammars of JSON answers, each carrying the length of its longest string.

A grammar is assembled from `Piece` values; every piece knows the GBNF text it stands for and the longest
string it admits, so an output contract's length bound is computed from the very pieces its grammar is made
of, never stated by hand. Strings and whitespace are always bounded.

Two kinds of JSON string:

- `string`, for report text: any character but the quote, the backslash and control characters, plus the
  two-character escapes ``\\"``, ``\\\\``, ``\\/``, ``\\b``, ``\\f``, ``\\n``, ``\\r`` and ``\\t`` (so a report's line
  breaks can be kept). Bounded to ``n`` characters as decoded (the unit of JSON schema's ``maxLength``), it is
  at most ``2 + 2n`` characters long as written.
- `text`, for the model's own prose (explanations, reasons, differences): printable ASCII without the quote
  and the backslash, so it needs no escapes, is ``2 + n`` characters at most and costs one token a character.
"""

from __future__ import annotations

import json
import re
from typing import NamedTuple

WS_MAX = 2
"""Most whitespace characters allowed between two JSON tokens."""

_ESCAPED_CHAR_LENGTH = 2
_HELPER_RULES = {
    "ws": f"[ \\n]{{0,{WS_MAX}}}",
    "char": '[^"\\\\\\x00-\\x1F] | "\\\\" ["\\\\/bfnrt]',
    # Printable ASCII (0x20-0x7E) but the quote (0x22) and the backslash (0x5C).
    "prose": "[ !#-\\x5B\\x5D-~]",
}


class Piece(NamedTuple):
    """A stretch of grammar: its GBNF text and the length of the longest string it admits."""

    gbnf: str
    max_chars: int


WS = Piece("ws", WS_MAX)


def literal(text: str) -> Piece:
    """Exactly `text`."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return Piece('"' + escaped.replace("\t", "\\t") + '"', len(text))


def json_value(value: object) -> Piece:
    """Exactly the compact JSON form of `value` (a quoted sentence, a number, ``true``)."""
    return literal(json.dumps(value, ensure_ascii=False))


def sequence(*pieces: Piece) -> Piece:
    """The pieces one after another."""
    return Piece(" ".join(p.gbnf for p in pieces), sum(p.max_chars for p in pieces))


def choice(*pieces: Piece) -> Piece:
    """Any one of the pieces."""
    return Piece("(" + " | ".join(p.gbnf for p in pieces) + ")", max(p.max_chars for p in pieces))


def string(max_length: int, *, min_length: int = 0) -> Piece:
    """A JSON string of `min_length` to `max_length` characters (escapes count as one, as decoded)."""
    if not 0 <= min_length <= max_length or max_length < 1:
        raise ValueError(f"string bounds must satisfy 0 <= min <= max, max >= 1; got {min_length}, {max_length}")
    return Piece(f'"\\"" char{{{min_length},{max_length}}} "\\""', 2 + _ESCAPED_CHAR_LENGTH * max_length)


def text(max_length: int, *, min_length: int = 0) -> Piece:
    """A JSON string of `min_length` to `max_length` printable ASCII characters that need no escape."""
    if not 0 <= min_length <= max_length or max_length < 1:
        raise ValueError(f"text bounds must satisfy 0 <= min <= max, max >= 1; got {min_length}, {max_length}")
    return Piece(f'"\\"" prose{{{min_length},{max_length}}} "\\""', 2 + max_length)


def json_object(*members: tuple[str, Piece]) -> Piece:
    """A JSON object with exactly these members, in this order."""
    parts = [literal("{"), WS]
    for position, (name, value) in enumerate(members):
        if position:
            parts += [literal(","), WS]
        parts += [json_value(name), literal(":"), WS, value]
    return sequence(*parts, WS, literal("}"))


def json_array(items: list[Piece]) -> Piece:
    """A JSON array of exactly these items, in this order."""
    parts = [literal("["), WS]
    for position, item in enumerate(items):
        if position:
            parts += [literal(","), WS]
        parts.append(item)
    return sequence(*parts, WS, literal("]"))


def json_list(item: Piece, max_items: int) -> Piece:
    """A JSON array of 0 to `max_items` items, each matching `item`."""
    if max_items < 1:
        raise ValueError(f"max_items must be >= 1, got {max_items}")
    more = sequence(literal(","), WS, item)
    rest = Piece(f"({more.gbnf}){{0,{max_items - 1}}}", more.max_chars * (max_items - 1))
    items = sequence(item, rest)
    return sequence(literal("["), WS, Piece(f"({items.gbnf})?", items.max_chars), WS, literal("]"))


def rule(name: str, piece: Piece) -> Piece:
    """A reference to a named rule defined as `piece` (pass the pair to `grammar` too)."""
    return Piece(name, piece.max_chars)


def grammar(root: Piece, rules: dict[str, Piece] | None = None) -> str:
    """GBNF text: the root, the named rules, and the string, prose and whitespace helpers."""
    lines = [f"root ::= {root.gbnf}"]
    lines += [f"{name} ::= {piece.gbnf}" for name, piece in (rules or {}).items()]
    used = "\n".join(lines)
    lines += [f"{name} ::= {body}" for name, body in _HELPER_RULES.items() if re.search(rf"\b{name}\b", used)]
    return "\n".join(lines) + "\n"
