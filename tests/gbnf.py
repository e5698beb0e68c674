"""An independent reading of the GBNF grammars the project sends to llama.cpp, for tests.

`GbnfLanguage` parses the subset of GBNF the output contracts use (string literals, character classes,
groups, alternatives, rule references, and the ``?``, ``*``, ``+``, ``{m}``, ``{m,n}``, ``{m,}`` suffixes)
straight from the grammar text, and gives back a Python regex of the language and the length of its longest
string. Tests compare those with what the contract builders state about themselves, so a contract's regex,
length bound and grammar cannot drift apart unnoticed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_RULE = re.compile(r"^([a-zA-Z0-9_-]+)\s*::=\s*(.*)$")
_LITERAL_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "\\": "\\", '"': '"'}


@dataclass(frozen=True)
class _Node:
    regex: str
    max_len: float


class GbnfLanguage:
    """The language of a GBNF grammar (one rule per line, no recursion)."""

    def __init__(self, grammar: str) -> None:
        self._rules: dict[str, str] = {}
        for line in grammar.strip().splitlines():
            match = _RULE.match(line.strip())
            if match is None:
                raise ValueError(f"not a GBNF rule line: {line!r}")
            self._rules[match.group(1)] = match.group(2)
        self._done: dict[str, _Node] = {}
        root = self._rule("root", ())
        self.regex = root.regex
        self.max_len = root.max_len

    def _rule(self, name: str, stack: tuple[str, ...]) -> _Node:
        if name in stack:
            raise ValueError(f"recursive rule {name}")
        if name not in self._done:
            text = self._rules[name]
            node, end = self._alternatives(text, 0, (*stack, name))
            if end != len(text):
                raise ValueError(f"rule {name}: cannot read {text[end:]!r}")
            self._done[name] = node
        return self._done[name]

    def _skip(self, text: str, i: int) -> int:
        while i < len(text) and text[i] in " \t":
            i += 1
        return i

    def _alternatives(self, text: str, i: int, stack: tuple[str, ...]) -> tuple[_Node, int]:
        options = []
        while True:
            node, i = self._sequence(text, i, stack)
            options.append(node)
            i = self._skip(text, i)
            if i < len(text) and text[i] == "|":
                i += 1
                continue
            return _Node("(?:" + "|".join(o.regex for o in options) + ")", max(o.max_len for o in options)), i

    def _sequence(self, text: str, i: int, stack: tuple[str, ...]) -> tuple[_Node, int]:
        items: list[_Node] = []
        while True:
            i = self._skip(text, i)
            if i >= len(text) or text[i] in "|)":
                return _Node("".join(n.regex for n in items), sum(n.max_len for n in items)), i
            item, i = self._item(text, i, stack)
            items.append(self._suffix(item, text, i))
            i = self._after_suffix(text, i)

    def _item(self, text: str, i: int, stack: tuple[str, ...]) -> tuple[_Node, int]:
        char = text[i]
        if char == '"':
            value, i = [], i + 1
            while text[i] != '"':
                if text[i] == "\\":
                    value.append(_LITERAL_ESCAPES[text[i + 1]])
                    i += 2
                else:
                    value.append(text[i])
                    i += 1
            literal = "".join(value)
            return _Node(re.escape(literal), len(literal)), i + 1
        if char == "[":
            end = i + 1
            while text[end] != "]":
                end += 2 if text[end] == "\\" else 1
            return _Node(text[i : end + 1], 1), end + 1
        if char == "(":
            node, i = self._alternatives(text, i + 1, stack)
            if text[i] != ")":
                raise ValueError(f"unclosed group at {i}")
            return node, i + 1
        name = re.match(r"[a-zA-Z0-9_-]+", text[i:])
        if name is None:
            raise ValueError(f"cannot read {text[i:]!r}")
        return self._rule(name.group(0), stack), i + len(name.group(0))

    def _suffix(self, node: _Node, text: str, i: int) -> _Node:
        group = f"(?:{node.regex})"
        if i < len(text) and text[i] in "?*+":
            bound = {"?": node.max_len, "*": math.inf, "+": math.inf}[text[i]]
            return _Node(group + text[i], bound)
        repeat = re.match(r"\{(\d+)(,(\d*))?\}", text[i:])
        if repeat is None:
            return node
        low, comma, high = repeat.group(1), repeat.group(2), repeat.group(3)
        upper = int(high) if high else (math.inf if comma else int(low))
        return _Node(group + repeat.group(0), node.max_len * upper)

    def _after_suffix(self, text: str, i: int) -> int:
        if i < len(text) and text[i] in "?*+":
            return i + 1
        repeat = re.match(r"\{\d+(,\d*)?\}", text[i:])
        return i + len(repeat.group(0)) if repeat else i

    def fullmatch(self, answer: str) -> bool:
        """Whether the grammar admits `answer` as a whole."""
        return re.fullmatch(self.regex, answer) is not None
