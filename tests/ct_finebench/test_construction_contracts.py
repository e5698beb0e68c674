"""The construction contracts (triplets, existence) and their strict readers."""

from __future__ import annotations

import json
import re

import pytest

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.contract import ASCII_TOKENS_PER_CHAR, UNICODE_TOKENS_PER_CHAR
from radiology_tasks.scorers.ct_finebench.construction_answers import Triplet, read_existence, read_triplets
from radiology_tasks.scorers.ct_finebench.construction_contracts import (
    ATTRIBUTE_MAX_CHARS,
    FINDING_MAX_CHARS,
    MAX_TRIPLETS_LIMIT,
    VALUE_MAX_CHARS,
    existence_contract,
    triplet_contract,
)
from radiology_tasks.scorers.ct_finebench.contracts import MAX_WHITESPACE
from tests.gbnf import GbnfLanguage
from tests.llama_grammar import llama_cpp_grammar_check

WS = " " * MAX_WHITESPACE


def text(length: int) -> str:
    return '"' + "é" * length + '"'


def longest_triplets(count: int) -> str:
    """The longest triplet answer, built by hand: every text at its bound, every whitespace run at 3."""
    triplet = (
        f'{{{WS}"finding"{WS}:{WS}{text(FINDING_MAX_CHARS)}{WS},'
        f'{WS}"attribute"{WS}:{WS}{text(ATTRIBUTE_MAX_CHARS)}{WS},'
        f'{WS}"value"{WS}:{WS}{text(VALUE_MAX_CHARS)}{WS}}}'
    )
    return "{" + ",".join(f'{WS}"t{n}"{WS}:{WS}{triplet}{WS}' for n in range(1, count + 1)) + "}"


def longest_existence(ids: list[str]) -> str:
    return "{" + ",".join(f'{WS}"{key}"{WS}:{WS}"not_mentioned"{WS}' for key in ids) + "}"


TRIPLET = {"finding": "lung nodule", "attribute": "size", "value": "8 mm"}
ONE = '{"finding": "a", "attribute": "b", "value": "c"}'


@pytest.mark.parametrize("count", [1, 2, 9, 10, 20, 99, 100, MAX_TRIPLETS_LIMIT])
def test_triplet_budget_fits_the_longest_answer(count: int) -> None:
    contract = triplet_contract(count)
    assert contract.fits(contract.max_tokens)
    assert contract.tokens_per_char == UNICODE_TOKENS_PER_CHAR


@pytest.mark.parametrize("count", [1, 2, 10, 100, 1000])
def test_existence_budget_fits_the_longest_answer(count: int) -> None:
    contract = existence_contract([f"f{n}" for n in range(1, count + 1)])
    assert contract.fits(contract.max_tokens)
    assert contract.tokens_per_char == ASCII_TOKENS_PER_CHAR


@pytest.mark.parametrize("count", [1, 3])
def test_stated_length_is_the_grammars_longest_answer(count: int) -> None:
    contract = triplet_contract(count)
    longest = longest_triplets(count)
    assert len(longest) == contract.max_chars == GbnfLanguage(contract.gbnf).max_len
    assert re.fullmatch(contract.regex, longest) and GbnfLanguage(contract.gbnf).fullmatch(longest)
    assert not re.fullmatch(contract.regex, longest.replace("{", "{ ", 1))  # one more whitespace character
    ids = ["f1", "f2"]
    existence = existence_contract(ids)
    assert len(longest_existence(ids)) == existence.max_chars == GbnfLanguage(existence.gbnf).max_len


def test_triplet_grammar_text() -> None:
    assert triplet_contract(2).gbnf == (
        'root ::= "{" ( slot1 | ws ) "}"\n'
        'slot1 ::= ws "\\"t1\\"" ws ":" ws triplet ws ( "," slot2 )?\n'
        'slot2 ::= ws "\\"t2\\"" ws ":" ws triplet ws\n'
        'triplet ::= "{" ws "\\"finding\\"" ws ":" ws finding-text ws "," ws "\\"attribute\\"" ws ":" ws '
        'attribute-text ws "," ws "\\"value\\"" ws ":" ws value-text ws "}"\n'
        'finding-text ::= "\\"" ( tchar ){1,40} "\\""\n'
        'attribute-text ::= "\\"" ( tchar ){1,24} "\\""\n'
        'value-text ::= "\\"" ( tchar ){1,48} "\\""\n'
        'tchar ::= [^"\\\\\\x7F\\x00-\\x1F]\n'
        "ws ::= [ \\t\\n]{0,3}\n"
    )


def test_json_schemas_state_the_same_bounds() -> None:
    triplet = {
        "type": "object",
        "properties": {
            "finding": {"type": "string", "minLength": 1, "maxLength": FINDING_MAX_CHARS},
            "attribute": {"type": "string", "minLength": 1, "maxLength": ATTRIBUTE_MAX_CHARS},
            "value": {"type": "string", "minLength": 1, "maxLength": VALUE_MAX_CHARS},
        },
        "required": ["finding", "attribute", "value"],
        "additionalProperties": False,
    }
    assert triplet_contract(2).json_schema == {
        "type": "object",
        "properties": {"t1": triplet, "t2": triplet},
        "additionalProperties": False,
    }
    assert existence_contract(["f1"]).json_schema == {
        "type": "object",
        "properties": {"f1": {"type": "string", "enum": ["present", "absent", "not_mentioned"]}},
        "required": ["f1"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(
    "answer",
    [
        "{}",
        "{ }",
        '{"t1": {"finding": "lung nodule", "attribute": "size", "value": "8 mm"}}',
        '{\n  "t1": {"finding": "肺结节", "attribute": "Größe", "value": "8 mm"},\n  "t2": '
        '{"finding": "x", "attribute": "y", "value": "z"}\n}',
    ],
)
def test_triplet_contract_admits_answers_the_reader_reads(answer: str) -> None:
    assert re.fullmatch(triplet_contract(3).regex, answer)
    assert read_triplets(answer, 3).problem is None


@pytest.mark.parametrize(
    "answer",
    [
        '{"t2": {"finding": "a", "attribute": "b", "value": "c"}}',  # keys start at t1
        f'{{"t1": {ONE}, "t1": {ONE}}}',  # a key twice
        '{"t1": {"attribute": "b", "finding": "a", "value": "c"}}',  # fields in another order
        '{"t1": {"finding": "a \\"b\\"", "attribute": "b", "value": "c"}}',  # escapes are not admitted
        '{"t1": {"finding": "", "attribute": "b", "value": "c"}}',
        '{"t1": {"finding": "a", "attribute": "b", "value": "' + "x" * (VALUE_MAX_CHARS + 1) + '"}}',
        '{"t4": {"finding": "a", "attribute": "b", "value": "c"}}',  # beyond max_triplets
        "{    }",  # four spaces
    ],
)
def test_triplet_contract_rejects(answer: str) -> None:
    assert not re.fullmatch(triplet_contract(3).regex, answer)


def test_reader_orders_triplets_by_key_and_trims_names() -> None:
    # A JSON-schema backend may write keys out of order; the reader takes them by number.
    answer = json.dumps({"t2": {"finding": "b", "attribute": "c", "value": "d"}, "t1": dict(TRIPLET, finding=" x ")})
    reading = read_triplets(answer, 3)
    assert reading.problems == {}
    assert reading.triplets == (
        Triplet(finding="x", attribute="size", value="8 mm"),
        Triplet(finding="b", attribute="c", value="d"),
    )
    assert read_triplets("{}", 3).triplets == ()


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("Here are the triplets.", "invalid_json: Expecting value at character 0"),
        ("", "invalid_json: the answer is empty"),
        ("[]", "not_an_object: the answer is a JSON list"),
        ('{"t1": 1, "t1": 2}', "duplicate_key: t1"),
        ('{"t4": {}}', 'unexpected_key: "t4" (keys are t1 to t3)'),
        ('{"triplets": []}', 'unexpected_key: "triplets" (keys are t1 to t3)'),
        ('{"t1": "lung nodule"}', "invalid_triplet: t1: Input should be a valid dictionary or instance of Triplet"),
        ('{"t1": {"finding": " ", "attribute": "b", "value": "c"}}', "invalid_triplet: t1.finding: String should"),
        ('{"t1": {"finding": "a", "attribute": "b"}}', "invalid_triplet: t1.value: Field required"),
        ('{"t1": {"finding": "a", "attribute": "b", "value": 8}}', "invalid_triplet: t1.value: Input should be"),
        ('{"t1": {"finding": "a", "attribute": "b", "value": "c", "note": "d"}}', "invalid_triplet: t1.note: Extra"),
    ],
)
def test_reader_refuses_the_whole_answer_with_its_problem(answer: str, problem: str) -> None:
    reading = read_triplets(answer, 3)
    assert reading.triplets == ()
    assert reading.problem is not None and reading.problem.startswith(problem)
    assert reading.problems == {"answer": reading.problem}


def test_existence_reader_reads_each_id() -> None:
    reading = read_existence('{"f1": "present", "f2": "maybe", "f4": "absent"}', ["f1", "f2", "f3"])
    assert reading.values == {"f1": "present"}
    assert set(reading.id_problems) == {"f2", "f3"} and reading.id_problems["f3"] == "missing"
    assert reading.unexpected_keys == ("f4",)


def test_triplet_contract_bounds_max_triplets() -> None:
    for bad in (0, MAX_TRIPLETS_LIMIT + 1):
        with pytest.raises(ValueError, match="max_triplets must be from 1 to 999"):
            triplet_contract(bad)


@pytest.mark.embedded
def test_grammars_load_in_llama_cpp() -> None:
    parses = llama_cpp_grammar_check()
    assert parses(triplet_contract(20).gbnf)
    assert parses(existence_contract(["f1", "f2"]).gbnf)


def test_inspect_response_schema_carries_the_schemas_unchanged() -> None:
    from inspect_ai.model import get_model

    model = get_model("openai/gpt-4o-mini", api_key="x", base_url="http://127.0.0.1:9/v1")
    for contract in (triplet_contract(3), existence_contract(["f1", "f2"])):
        config = constrained_config(model, contract, "auto").config
        assert config.response_schema is not None
        assert config.response_schema.json_schema.model_dump(exclude_none=True) == contract.json_schema
