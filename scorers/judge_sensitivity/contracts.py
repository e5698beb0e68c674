"""Output contracts of the injector, the paraphraser, the checker and the first pass of a two-pass judge.

The injection and paraphrase contracts are made per reference: their grammars quote the reference's own
sentences (a change's ``original`` can only be one of them, tied to its index) and size every string from
the reference's length, so a long report gets room and a short one no room to ramble. The JSON schema of
each contract carries the same string and index bounds; item counts, which Inspect's ``response_schema``
cannot carry, are fixed by the grammar and checked in code (`scorers.judge_sensitivity.checks`).

Report text may hold any Unicode character, so the injection and paraphrase budgets use
`UNICODE_TOKENS_PER_CHAR`; the checker's and the first pass's answers are the model's own printable-ASCII prose
(`scorers.judge_sensitivity.json_grammar.text`), one token a character.
"""

from __future__ import annotations

import math
from typing import Any

from scorers.contract import ASCII_TOKENS_PER_CHAR, BUDGET_MARGIN, UNICODE_TOKENS_PER_CHAR, OutputContract
from scorers.judge_sensitivity.json_grammar import (
    Piece,
    choice,
    grammar,
    json_array,
    json_list,
    json_object,
    json_value,
    literal,
    rule,
    string,
    text,
)
from scorers.judge_sensitivity.sentences import SplitReport

ADDED_CHARS = 160
"""How much longer than its original a changed sentence may grow (room for an added finding)."""

EXPLANATION_CHARS = 160
"""Longest explanation of one change."""

REASON_CHARS = 200
"""Longest reason of a checker's verdict."""

DIFFERENCE_CHARS = 160
"""Longest description of one difference (two-pass judge, first pass)."""

MAX_DIFFERENCES = 12
"""Most differences a first pass may list."""


def paraphrase_chars(sentence: str) -> int:
    """Longest rewrite of `sentence`: twice its length and some, since plain rewordings often run longer."""
    return 2 * len(sentence) + 40


PROSE_PATTERN = "^[ !#-\\[\\]-~]*$"
"""The JSON schema form of `text` strings: printable ASCII without the quote and the backslash."""


def _contract(
    name: str, root: Piece, rules: dict[str, Piece], schema: dict[str, Any], *, tokens_per_char: float
) -> OutputContract:
    tokens = math.ceil(root.max_chars * tokens_per_char) + 1
    return OutputContract(
        name=name,
        max_chars=root.max_chars,
        max_tokens=math.ceil(tokens * BUDGET_MARGIN),
        tokens_per_char=tokens_per_char,
        gbnf=grammar(root, rules),
        json_schema=schema,
    )


def _object_schema(properties: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _string_schema(max_length: int, min_length: int = 0) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string", "maxLength": max_length}
    if min_length:
        schema["minLength"] = min_length
    return schema


def _prose_schema(max_length: int) -> dict[str, Any]:
    return {**_string_schema(max_length, 1), "pattern": PROSE_PATTERN}


def injection_contract(reference: SplitReport, n_changes: int, *, deletions: bool) -> OutputContract:
    """The contract of an answer that changes `n_changes` sentences of `reference`.

    Args:
        reference: The reference as split for the prompt.
        n_changes: The number of entries in ``changes_detail`` (the grammar admits no other number).
        deletions: Whether ``modified`` may be empty (a deleted sentence).
    """
    if not 1 <= n_changes <= len(reference.sentences):
        raise ValueError(f"cannot change {n_changes} of {len(reference.sentences)} sentences")
    minimum = 0 if deletions else 1
    per_sentence = {
        f"sentence-{index}": json_object(
            ("sentence_index", json_value(index)),
            ("original", json_value(sentence)),
            ("modified", string(len(sentence) + ADDED_CHARS, min_length=minimum)),
            ("explanation", text(EXPLANATION_CHARS, min_length=1)),
        )
        for index, sentence in enumerate(reference.sentences)
    }
    # Naming each alternative keeps the grammar one copy of the sentences long, however many changes it holds.
    change = choice(*(rule(name, piece) for name, piece in per_sentence.items()))
    report_chars = len(reference.join()) + n_changes * ADDED_CHARS
    root = json_object(
        ("changes_detail", json_array([rule("change", change)] * n_changes)),
        ("modified_report", string(report_chars, min_length=1)),
    )
    longest = max(len(s) for s in reference.sentences)
    schema = _object_schema(
        {
            "changes_detail": {
                "type": "array",
                "items": _object_schema(
                    {
                        "sentence_index": {"type": "integer", "minimum": 0, "maximum": len(reference.sentences) - 1},
                        "original": _string_schema(longest, 1),
                        "modified": _string_schema(longest + ADDED_CHARS, minimum),
                        "explanation": _prose_schema(EXPLANATION_CHARS),
                    }
                ),
            },
            "modified_report": _string_schema(report_chars, 1),
        }
    )
    rules = {"change": change, **per_sentence}
    return _contract("injection", root, rules, schema, tokens_per_char=UNICODE_TOKENS_PER_CHAR)


def paraphrase_contract(reference: SplitReport) -> OutputContract:
    """The contract of an answer that rewrites every sentence of `reference`, in order."""
    per_sentence = {
        f"sentence-{index}": json_object(
            ("sentence_index", json_value(index)),
            ("paraphrase", string(paraphrase_chars(sentence), min_length=1)),
        )
        for index, sentence in enumerate(reference.sentences)
    }
    root = json_object(("sentences", json_array([rule(name, piece) for name, piece in per_sentence.items()])))
    schema = _object_schema(
        {
            "sentences": {
                "type": "array",
                "items": _object_schema(
                    {
                        "sentence_index": {"type": "integer", "minimum": 0, "maximum": len(reference.sentences) - 1},
                        "paraphrase": _string_schema(max(map(paraphrase_chars, reference.sentences)), 1),
                    }
                ),
            }
        }
    )
    return _contract("paraphrase", root, per_sentence, schema, tokens_per_char=UNICODE_TOKENS_PER_CHAR)


def _verdict_contract() -> OutputContract:
    root = json_object(
        ("plausible", choice(literal("true"), literal("false"))),
        ("reason", text(REASON_CHARS, min_length=1)),
    )
    schema = _object_schema({"plausible": {"type": "boolean"}, "reason": _prose_schema(REASON_CHARS)})
    return _contract("plausibility", root, {}, schema, tokens_per_char=ASCII_TOKENS_PER_CHAR)


def _differences_contract() -> OutputContract:
    item = text(DIFFERENCE_CHARS, min_length=1)
    root = json_object(("differences", json_list(rule("difference", item), MAX_DIFFERENCES)))
    schema = _object_schema({"differences": {"type": "array", "items": _prose_schema(DIFFERENCE_CHARS)}})
    return _contract("differences", root, {"difference": item}, schema, tokens_per_char=ASCII_TOKENS_PER_CHAR)


VERDICT_CONTRACT = _verdict_contract()
"""The checker's answer: ``{"plausible": true|false, "reason": "..."}``."""

DIFFERENCES_CONTRACT = _differences_contract()
"""The first pass of a two-pass judge: ``{"differences": ["...", ...]}``, at most `MAX_DIFFERENCES` items."""
