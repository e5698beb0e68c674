"""The two JSON answers CT-FineBench asks its judge for, as output contracts built per report.

Both answers are one JSON object whose keys are the report's question ids, in order, each present once:

- extraction: ``{"q1": "8 mm", "q2": null}``; a string (an answer span from the candidate report, 1 to
  `ANSWER_MAX_CHARS` characters, any language) or ``null`` when the report does not say;
- comparison: ``{"q1": 1, "q2": 0.5}``; one of the grades ``0``, ``0.5`` and ``1``.

The GBNF grammar, its regex equivalent, the JSON schema and the longest admitted answer are built from the same
pieces (`scorers.json_gbnf`). The grammar is written here rather than converted from the schema because
llama.cpp's conversion admits unbounded whitespace: here whitespace between tokens is at most `MAX_WHITESPACE`
characters, strings have a length bound, and the object holds exactly the expected keys, so the longest answer
is known and fits the budget. The budgets per question are stated by hand; a test holds that they fit the
longest answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from radiology_tasks.core.contract import ASCII_TOKENS_PER_CHAR, UNICODE_TOKENS_PER_CHAR, OutputContract
from radiology_tasks.scorers.gbnf import Rule, choice, grammar
from radiology_tasks.scorers.json_gbnf import JSON_CHAR, Spacing, json_object, json_string, json_value

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


SPACING = Spacing(MAX_WHITESPACE, padded=True)
"""Whitespace around every JSON token of the answers, bounded."""

_ANSWER = Rule("answer", choice(json_string(ANSWER_MAX_CHARS, min_length=1), json_value(None)))
_GRADE = Rule("grade", choice(*(json_value(grade) for grade in GRADES)))


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
    root = json_object([(key, rules[0].ref) for key in ids], SPACING)
    return OutputContract(
        name=name,
        max_chars=root.max_chars,
        max_tokens=BASE_TOKENS + tokens_per_question * len(ids),
        tokens_per_char=tokens_per_char,
        gbnf=grammar(root, (*rules, SPACING.rule)),
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
    rules = (_ANSWER, JSON_CHAR)
    return keyed_contract(EXTRACTION, ids, rules, schema, UNICODE_TOKENS_PER_CHAR, EXTRACTION_TOKENS_PER_QUESTION)


def comparison_contract(ids: Sequence[str]) -> OutputContract:
    """The contract of the comparison answer for these question ids (a grade 0, 0.5 or 1 for each)."""
    schema = {"type": "number", "enum": list(GRADES)}
    return keyed_contract(COMPARISON, ids, (_GRADE,), schema, ASCII_TOKENS_PER_CHAR, COMPARISON_TOKENS_PER_QUESTION)
