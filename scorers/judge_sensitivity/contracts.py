"""Output contracts of the injector, the paraphraser, the checker and the first pass of a two-pass judge.

The injection and paraphrase contracts are made per reference: their grammars quote the reference's own
sentences (a change's ``original`` can only be one of them, tied to its index) and size every string from
the reference's length, so a long report gets room and a short one no room to ramble. The JSON schema of
each contract carries the same string and index bounds; item counts, which Inspect's ``response_schema``
cannot carry, are fixed by the grammar and checked in code (`scorers.judge_sensitivity.checks`).

Report text may hold any Unicode character, so the injection and paraphrase budgets use
`UNICODE_TOKENS_PER_CHAR`; the checker's and the first pass's answers are the model's own printable-ASCII prose
(`scorers.json_gbnf.prose_string`), one token a character.

Every contract carries a regex as well, built from the same pieces (`scorers.json_gbnf`). A regex cannot name
a rule, so an injection's regex spells the reference's sentences out once per change: a few kilobytes for a
report. No backend is sent it today (vLLM gets the JSON schema first, `radiology_tasks.core.constrain`); it
keeps every form of the contract at hand, as in the other families, and tests hold it to the grammar.
"""

from __future__ import annotations

import math

from radiology_tasks.core.contract import ASCII_TOKENS_PER_CHAR, BUDGET_MARGIN, UNICODE_TOKENS_PER_CHAR, OutputContract
from radiology_tasks.scorers.gbnf import Piece, Rule, choice, grammar
from radiology_tasks.scorers.json_gbnf import (
    JSON_CHAR,
    Spacing,
    json_array,
    json_list,
    json_object,
    json_string,
    json_value,
    prose_string,
)
from radiology_tasks.scorers.judge_sensitivity.sentences import SplitReport

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

SPACING = Spacing(2)
"""Up to two whitespace characters after ``{``, ``[``, ``:`` and ``,`` and before ``}`` and ``]``."""


def paraphrase_chars(sentence: str) -> int:
    """Longest rewrite of `sentence`: twice its length and some, since plain rewordings often run longer."""
    return 2 * len(sentence) + 40


PROSE_PATTERN = "^[ !#-\\[\\]-~]*$"
"""The JSON schema form of `prose_string` strings: printable ASCII without the quote and the backslash."""


def _contract(
    name: str, root: Piece, rules: list[Rule], schema: dict[str, object], *, tokens_per_char: float
) -> OutputContract:
    tokens = math.ceil(root.max_chars * tokens_per_char) + 1
    return OutputContract(
        name=name,
        max_chars=root.max_chars,
        max_tokens=math.ceil(tokens * BUDGET_MARGIN),
        tokens_per_char=tokens_per_char,
        gbnf=grammar(root, [*rules, SPACING.rule]),
        regex=root.regex,
        json_schema=schema,
    )


def _object_schema(properties: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": properties, "required": list(properties), "additionalProperties": False}


def _string_schema(max_length: int, min_length: int = 0) -> dict[str, object]:
    schema: dict[str, object] = {"type": "string", "maxLength": max_length}
    if min_length:
        schema["minLength"] = min_length
    return schema


def _prose_schema(max_length: int) -> dict[str, object]:
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
    per_sentence = [
        Rule(
            f"sentence-{index}",
            json_object(
                [
                    ("sentence_index", json_value(index)),
                    ("original", json_value(sentence)),
                    ("modified", json_string(len(sentence) + ADDED_CHARS, min_length=minimum)),
                    ("explanation", prose_string(EXPLANATION_CHARS, min_length=1)),
                ],
                SPACING,
            ),
        )
        for index, sentence in enumerate(reference.sentences)
    ]
    # Naming each alternative keeps the grammar one copy of the sentences long, however many changes it holds.
    change = Rule("change", choice(*(rule.ref for rule in per_sentence)))
    report_chars = len(reference.join()) + n_changes * ADDED_CHARS
    root = json_object(
        [
            ("changes_detail", json_array([change.ref] * n_changes, SPACING)),
            ("modified_report", json_string(report_chars, min_length=1)),
        ],
        SPACING,
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
    rules = [change, *per_sentence, JSON_CHAR]
    return _contract("injection", root, rules, schema, tokens_per_char=UNICODE_TOKENS_PER_CHAR)


def paraphrase_contract(reference: SplitReport) -> OutputContract:
    """The contract of an answer that rewrites every sentence of `reference`, in order."""
    per_sentence = [
        Rule(
            f"sentence-{index}",
            json_object(
                [
                    ("sentence_index", json_value(index)),
                    ("paraphrase", json_string(paraphrase_chars(sentence), min_length=1)),
                ],
                SPACING,
            ),
        )
        for index, sentence in enumerate(reference.sentences)
    ]
    root = json_object([("sentences", json_array([rule.ref for rule in per_sentence], SPACING))], SPACING)
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
    return _contract("paraphrase", root, [*per_sentence, JSON_CHAR], schema, tokens_per_char=UNICODE_TOKENS_PER_CHAR)


def _verdict_contract() -> OutputContract:
    root = json_object(
        [
            ("plausible", choice(json_value(True), json_value(False))),
            ("reason", prose_string(REASON_CHARS, min_length=1)),
        ],
        SPACING,
    )
    schema = _object_schema({"plausible": {"type": "boolean"}, "reason": _prose_schema(REASON_CHARS)})
    return _contract("plausibility", root, [], schema, tokens_per_char=ASCII_TOKENS_PER_CHAR)


def _differences_contract() -> OutputContract:
    item = Rule("difference", prose_string(DIFFERENCE_CHARS, min_length=1))
    root = json_object([("differences", json_list(item.ref, MAX_DIFFERENCES, SPACING))], SPACING)
    schema = _object_schema({"differences": {"type": "array", "items": _prose_schema(DIFFERENCE_CHARS)}})
    return _contract("differences", root, [item], schema, tokens_per_char=ASCII_TOKENS_PER_CHAR)


VERDICT_CONTRACT = _verdict_contract()
"""The checker's answer: ``{"plausible": true|false, "reason": "..."}``."""

DIFFERENCES_CONTRACT = _differences_contract()
"""The first pass of a two-pass judge: ``{"differences": ["...", ...]}``, at most `MAX_DIFFERENCES` items."""
