"""Building blocks of output contracts: each piece is written once as GBNF and once as a regex, with its length.

Every family builds its answer grammar from these pieces, so a contract's llama.cpp grammar, its regex (for vLLM
``structured_outputs``) and the length of its longest admitted answer can never disagree:

    piece = sequence(literal("["), chars("[0-9]", 1, 2), literal("]"))
    piece.gbnf       '"[" [0-9]{1,2} "]"'
    piece.regex      '\\[[0-9]{1,2}\\]'
    piece.max_chars  4

Character classes are written in the syntax GBNF and Python/xgrammar/outlines regexes share (``[^"\\\\]``,
``[ -~]``, ``\\x00-\\x1f`` escapes). A `Rule` names a piece: the grammar refers to it by name and defines it once,
while the regex inlines it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

_REGEX_SPECIAL = set(r"\.^$*+?{}[]|()")
_GBNF_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_REGEX_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


class Piece(NamedTuple):
    """One part of an answer format.

    Attributes:
        gbnf: The part in llama.cpp GBNF.
        regex: The same part as a regex (no anchors).
        max_chars: The longest text the part admits, in characters.
    """

    gbnf: str
    regex: str
    max_chars: int


class Rule(NamedTuple):
    """A named GBNF rule: referred to by name in the grammar, inlined in the regex."""

    name: str
    body: Piece

    @property
    def ref(self) -> Piece:
        """The piece that stands for this rule inside another."""
        return Piece(self.name, f"(?:{self.body.regex})", self.body.max_chars)

    @property
    def gbnf(self) -> str:
        """The rule's definition line (without the line break)."""
        return f"{self.name} ::= {self.body.gbnf}"


def literal(text: str) -> Piece:
    """Exactly `text`."""
    gbnf = "".join(_GBNF_ESCAPES.get(char, char) for char in text)
    regex = "".join(_REGEX_ESCAPES.get(char) or ("\\" + char if char in _REGEX_SPECIAL else char) for char in text)
    return Piece(f'"{gbnf}"', regex, len(text))


def chars(char_class: str, low: int = 1, high: int = 1) -> Piece:
    """From `low` to `high` characters of a class such as ``[0-9]``, in the syntax GBNF and regexes share."""
    _check_bounds(low, high)
    if (low, high) == (1, 1):
        return Piece(char_class, char_class, 1)
    times = f"{{{low}}}" if low == high else f"{{{low},{high}}}"
    return Piece(char_class + times, char_class + times, high)


def repeat(piece: Piece, low: int, high: int) -> Piece:
    """`piece` from `low` to `high` times (bounded on purpose: an unbounded answer has no length bound)."""
    _check_bounds(low, high)
    return Piece(f"( {piece.gbnf} ){{{low},{high}}}", f"(?:{piece.regex}){{{low},{high}}}", piece.max_chars * high)


def sequence(*pieces: Piece) -> Piece:
    """The pieces one after another."""
    return Piece(" ".join(p.gbnf for p in pieces), "".join(p.regex for p in pieces), sum(p.max_chars for p in pieces))


def choice(*pieces: Piece) -> Piece:
    """One of the pieces."""
    return Piece(
        "( " + " | ".join(p.gbnf for p in pieces) + " )",
        "(?:" + "|".join(p.regex for p in pieces) + ")",
        max(p.max_chars for p in pieces),
    )


def optional(piece: Piece) -> Piece:
    """`piece` or nothing."""
    return Piece(f"( {piece.gbnf} )?", f"(?:{piece.regex})?", piece.max_chars)


def grammar(root: Piece, rules: Iterable[Rule] = ()) -> str:
    """The GBNF text of a grammar: ``root`` first, then each named rule once, in order."""
    lines = [Rule("root", root).gbnf, *(rule.gbnf for rule in rules)]
    return "".join(f"{line}\n" for line in lines)


def _check_bounds(low: int, high: int) -> None:
    if not 0 <= low <= high or high < 1:
        raise ValueError(f"a repetition needs 0 <= low <= high and high >= 1, got {low} and {high}")
