"""The injector's, checker's and first-pass contracts: grammar, schema, length bound and budget agree.

The GBNF grammar is read independently (`tests.gbnf`); answers drawn from its language must match the contract's
regex, be read by the strict reader, satisfy the contract's JSON schema, and stay within the stated length,
which must be the grammar's own longest string. A string one character past its bound is refused by grammar,
regex and schema alike.
"""

from __future__ import annotations

import json
import re

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.util import JSONSchema

from radiology_tasks.core.contract import ASCII_TOKENS_PER_CHAR, UNICODE_TOKENS_PER_CHAR
from radiology_tasks.scorers.judge_sensitivity.answers import (
    Differences,
    InjectionAnswer,
    ParaphraseAnswer,
    Verdict,
    read_json_answer,
)
from radiology_tasks.scorers.judge_sensitivity.contracts import (
    DIFFERENCES_CONTRACT,
    EXPLANATION_CHARS,
    VERDICT_CONTRACT,
    injection_contract,
    paraphrase_contract,
)
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from tests.gbnf import GbnfLanguage

REFERENCES = {
    "plain": "Small left pleural effusion. No pneumothorax. Heart size is normal.",
    "awkward": 'A "ground-glass" opacity, 12\u00d78 mm.\nBackslash \\ kept. Lung bases clear.',
}
CONTRACTS = {
    "injection-1": lambda r: injection_contract(r, 1, deletions=False),
    "injection-3": lambda r: injection_contract(r, 3, deletions=True),
    "paraphrase": paraphrase_contract,
}
CASES = [(ref, name) for ref in REFERENCES for name in CONTRACTS]


def contract_for(reference: str, name: str):
    return CONTRACTS[name](split_sentences(reference))


@pytest.mark.parametrize(("reference", "name"), CASES)
def test_report_contracts_state_their_grammars_longest_answer_and_a_budget_that_holds_it(reference, name) -> None:
    contract = contract_for(REFERENCES[reference], name)
    assert contract.max_chars == GbnfLanguage(contract.gbnf).max_len
    assert contract.tokens_per_char == UNICODE_TOKENS_PER_CHAR
    assert contract.fits(contract.max_tokens)
    assert not contract.fits(contract.max_tokens - 1)


@pytest.mark.parametrize("contract", [VERDICT_CONTRACT, DIFFERENCES_CONTRACT])
def test_prose_contracts_are_ascii_and_fit_their_budget(contract) -> None:
    assert contract.max_chars == GbnfLanguage(contract.gbnf).max_len
    assert contract.tokens_per_char == ASCII_TOKENS_PER_CHAR
    assert contract.fits(contract.max_tokens)


@pytest.mark.parametrize(("reference", "name"), CASES)
def test_every_schema_goes_through_inspects_response_schema_unchanged(reference, name) -> None:
    for contract in (contract_for(REFERENCES[reference], name), VERDICT_CONTRACT, DIFFERENCES_CONTRACT):
        assert JSONSchema.model_validate(contract.json_schema).model_dump(exclude_none=True) == contract.json_schema


def test_the_grammars_compile_in_llama_cpp() -> None:
    llama_cpp = pytest.importorskip("llama_cpp")
    for reference in REFERENCES.values():
        for name in CONTRACTS:
            llama_cpp.LlamaGrammar.from_string(contract_for(reference, name).gbnf, verbose=False)
    for contract in (VERDICT_CONTRACT, DIFFERENCES_CONTRACT):
        llama_cpp.LlamaGrammar.from_string(contract.gbnf, verbose=False)


def drawn(gbnf: str) -> st.SearchStrategy[str]:
    return st.from_regex(GbnfLanguage(gbnf).regex, fullmatch=True)


SETTINGS = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large]
)


@pytest.mark.parametrize("reference", REFERENCES)
@SETTINGS
@given(data=st.data())
def test_admitted_injections_read_fit_the_schema_and_quote_the_reference(reference: str, data) -> None:
    split = split_sentences(REFERENCES[reference])
    contract = injection_contract(split, 2, deletions=True)
    answer = data.draw(drawn(contract.gbnf))
    assert len(answer) <= contract.max_chars
    assert re.fullmatch(contract.regex, answer)
    reading = read_json_answer(answer, InjectionAnswer)
    assert reading.problems == {}
    jsonschema.validate(json.loads(answer), contract.json_schema)
    changes = reading.value.changes_detail
    assert len(changes) == 2
    assert all(c.original == split.sentences[c.sentence_index] for c in changes)


@pytest.mark.parametrize("reference", REFERENCES)
@SETTINGS
@given(data=st.data())
def test_admitted_paraphrases_rewrite_each_sentence_in_order(reference: str, data) -> None:
    split = split_sentences(REFERENCES[reference])
    contract = paraphrase_contract(split)
    answer = data.draw(drawn(contract.gbnf))
    assert re.fullmatch(contract.regex, answer)
    reading = read_json_answer(answer, ParaphraseAnswer)
    assert reading.problems == {}
    jsonschema.validate(json.loads(answer), contract.json_schema)
    assert [s.sentence_index for s in reading.value.sentences] == list(range(len(split.sentences)))


@SETTINGS
@given(data=st.data())
def test_admitted_verdicts_and_difference_lists_read(data) -> None:
    for contract, shape in ((VERDICT_CONTRACT, Verdict), (DIFFERENCES_CONTRACT, Differences)):
        answer = data.draw(drawn(contract.gbnf))
        assert re.fullmatch(contract.regex, answer)
        assert read_json_answer(answer, shape).problems == {}
        jsonschema.validate(json.loads(answer), contract.json_schema)


def test_an_explanation_one_character_too_long_is_outside_grammar_and_schema() -> None:
    split = split_sentences(REFERENCES["plain"])
    contract = injection_contract(split, 1, deletions=False)

    def answer(explanation: str) -> str:
        change = {"sentence_index": 1, "original": "No pneumothorax.", "modified": "Small pneumothorax."}
        report = "Small left pleural effusion. Small pneumothorax. Heart size is normal."
        return json.dumps({"changes_detail": [change | {"explanation": explanation}], "modified_report": report})

    language = GbnfLanguage(contract.gbnf)
    assert language.fullmatch(answer("x" * EXPLANATION_CHARS))
    assert re.fullmatch(contract.regex, answer("x" * EXPLANATION_CHARS))
    jsonschema.validate(json.loads(answer("x" * EXPLANATION_CHARS)), contract.json_schema)
    assert not language.fullmatch(answer("x" * (EXPLANATION_CHARS + 1)))
    assert not re.fullmatch(contract.regex, answer("x" * (EXPLANATION_CHARS + 1)))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json.loads(answer("x" * (EXPLANATION_CHARS + 1))), contract.json_schema)


def test_the_grammar_fixes_the_number_of_changes_and_ties_each_original_to_its_index() -> None:
    contract = injection_contract(split_sentences(REFERENCES["plain"]), 1, deletions=False)
    language = GbnfLanguage(contract.gbnf)
    good = {"sentence_index": 1, "original": "No pneumothorax.", "modified": "Pneumothorax.", "explanation": "e"}
    report = "Small left pleural effusion. Pneumothorax. Heart size is normal."
    assert language.fullmatch(json.dumps({"changes_detail": [good], "modified_report": report}))
    assert not language.fullmatch(json.dumps({"changes_detail": [good, good], "modified_report": report}))
    swapped = good | {"sentence_index": 0}
    assert not language.fullmatch(json.dumps({"changes_detail": [swapped], "modified_report": report}))
    assert not re.fullmatch(contract.regex, json.dumps({"changes_detail": [swapped], "modified_report": report}))
    assert not language.fullmatch(json.dumps({"changes_detail": [good | {"modified": ""}], "modified_report": report}))
