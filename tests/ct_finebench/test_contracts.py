"""The per-report JSON contracts: grammar, regex, schema and length bound agree, and the budgets fit."""

from __future__ import annotations

import json
import re

import pytest

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.contract import UNICODE_TOKENS_PER_CHAR
from radiology_tasks.scorers.ct_finebench.answers import read_extraction, read_grades
from radiology_tasks.scorers.ct_finebench.contracts import (
    ANSWER_MAX_CHARS,
    MAX_WHITESPACE,
    comparison_contract,
    extraction_contract,
)
from tests.llama_grammar import llama_cpp_grammar_check

IDS = ["q1", "q2", "q3"]
WS = " " * MAX_WHITESPACE


def longest_extraction(ids: list[str]) -> str:
    """The longest answer the extraction contract admits, built by hand: every value 80 escaped quotes."""
    value = '"' + '\\"' * ANSWER_MAX_CHARS + '"'
    return "{" + ",".join(f'{WS}"{key}"{WS}:{WS}{value}{WS}' for key in ids) + "}"


def longest_comparison(ids: list[str]) -> str:
    return "{" + ",".join(f'{WS}"{key}"{WS}:{WS}0.5{WS}' for key in ids) + "}"


@pytest.mark.parametrize("count", [1, 2, 6, 15, 40, 99, 100, 200])
def test_budgets_fit_the_longest_answer(count: int) -> None:
    ids = [f"q{n}" for n in range(1, count + 1)]
    for contract in (extraction_contract(ids), comparison_contract(ids)):
        assert contract.fits(contract.max_tokens), contract.name


def test_extracted_answers_are_costed_as_unicode() -> None:
    assert extraction_contract(IDS).tokens_per_char == UNICODE_TOKENS_PER_CHAR


@pytest.mark.parametrize(
    ("contract", "longest"),
    [(extraction_contract(IDS), longest_extraction(IDS)), (comparison_contract(IDS), longest_comparison(IDS))],
    ids=["extraction", "comparison"],
)
def test_max_chars_is_the_longest_admitted_answer(contract, longest: str) -> None:
    assert re.fullmatch(contract.regex, longest)
    assert len(longest) == contract.max_chars
    assert not re.fullmatch(contract.regex, longest.replace("{", "{ ", 1))  # one more whitespace character


@pytest.mark.parametrize(
    "answer",
    [
        '{"q1": "8 mm", "q2": null, "q3": "right upper lobe"}',
        '{\n  "q1": "Größe 8 mm",\n  "q2": "肺结节",\n  "q3": "say \\"no\\""\n}',
        '{"q1":null,"q2":null,"q3":null}',
        '{"q1": "' + "x" * ANSWER_MAX_CHARS + '", "q2": null, "q3": null}',
    ],
)
def test_extraction_admits_well_formed_answers_that_the_reader_reads(answer: str) -> None:
    assert re.fullmatch(extraction_contract(IDS).regex, answer)
    reading = read_extraction(answer, IDS)
    assert not reading.problems and not reading.id_problems and set(reading.values) == set(IDS)


@pytest.mark.parametrize(
    "answer",
    [
        '{"q1": "8 mm", "q2": null}',  # a key missing
        '{"q2": null, "q1": "8 mm", "q3": null}',  # keys out of order
        '{"q1": "8 mm", "q2": null, "q3": null, "q4": null}',  # a key too many
        '{"q1": "", "q2": null, "q3": null}',  # an empty answer
        '{"q1": "' + "x" * (ANSWER_MAX_CHARS + 1) + '", "q2": null, "q3": null}',  # too long
        '{"q1": 8, "q2": null, "q3": null}',  # not a string
        '{"q1": "a\nb", "q2": null, "q3": null}',  # raw control character
        '{    "q1": null, "q2": null, "q3": null}',  # four spaces
        '```json\n{"q1": null, "q2": null, "q3": null}\n```',
    ],
)
def test_extraction_rejects(answer: str) -> None:
    assert not re.fullmatch(extraction_contract(IDS).regex, answer)


@pytest.mark.parametrize("grade", ["0", "0.5", "1"])
def test_comparison_admits_the_three_grades(grade: str) -> None:
    answer = f'{{"q1": {grade}, "q2": 1, "q3": 0}}'
    assert re.fullmatch(comparison_contract(IDS).regex, answer)
    assert read_grades(answer, IDS).values["q1"] == float(grade)


@pytest.mark.parametrize("grade", ["0.50", "1.0", "2", "true", '"1"', "0.7", "-1"])
def test_comparison_rejects_other_values(grade: str) -> None:
    assert not re.fullmatch(comparison_contract(IDS).regex, f'{{"q1": {grade}, "q2": 1, "q3": 0}}')


def test_json_schema_states_the_same_bounds() -> None:
    schema = extraction_contract(IDS).json_schema
    assert schema == {
        "type": "object",
        "properties": {
            key: {"anyOf": [{"type": "string", "minLength": 1, "maxLength": ANSWER_MAX_CHARS}, {"type": "null"}]}
            for key in IDS
        },
        "required": IDS,
        "additionalProperties": False,
    }
    assert comparison_contract(["q2"]).json_schema["properties"] == {"q2": {"type": "number", "enum": [0, 0.5, 1]}}


def test_grammar_text() -> None:
    assert extraction_contract(["q1", "q2"]).gbnf == (
        'root ::= "{" ws "\\"q1\\"" ws ":" ws answer ws "," ws "\\"q2\\"" ws ":" ws answer ws "}"\n'
        'answer ::= ( "\\"" ( char ){1,80} "\\"" | "null" )\n'
        'char ::= ( [^"\\\\\\x7F\\x00-\\x1F] | "\\\\" ["\\\\/bfnrt] )\n'
        "ws ::= [ \\t\\n]{0,3}\n"
    )
    assert comparison_contract(["q1"]).gbnf == (
        'root ::= "{" ws "\\"q1\\"" ws ":" ws grade ws "}"\ngrade ::= ( "0" | "0.5" | "1" )\nws ::= [ \\t\\n]{0,3}\n'
    )


@pytest.mark.parametrize("ids", [[], ["q1", "q1"]])
def test_ids_must_be_given_and_distinct(ids: list[str]) -> None:
    with pytest.raises(ValueError):
        extraction_contract(ids)


@pytest.mark.embedded
def test_grammars_load_in_llama_cpp() -> None:
    parses = llama_cpp_grammar_check()
    assert parses(extraction_contract(IDS).gbnf)
    assert parses(comparison_contract(IDS).gbnf)


def test_inspect_response_schema_carries_the_schema_unchanged() -> None:
    from inspect_ai.model import get_model

    model = get_model("openai/gpt-4o-mini", api_key="x", base_url="http://127.0.0.1:9/v1")
    for contract in (extraction_contract(IDS), comparison_contract(IDS)):
        config = constrained_config(model, contract, "auto").config
        assert config.response_schema is not None
        assert config.response_schema.json_schema.model_dump(exclude_none=True) == contract.json_schema
        assert json.dumps(contract.json_schema)
