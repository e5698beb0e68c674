"""The extraction contracts: grammar, regex, JSON schema, length bound and reader describe one language.

The GBNF grammar is read independently (`tests.gbnf`); answers drawn from its language with Hypothesis must be
matched by the contract's regex and read back by the reader with the labels and evidence they state.
"""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai.model import get_model

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.contract import BUDGET_MARGIN, UNICODE_TOKENS_PER_CHAR
from radiology_tasks.scorers.ran_score.contract import (
    BREAK_MAX_CHARS,
    EVIDENCE_MAX_CHARS,
    batch_contract,
    label_contract,
)
from radiology_tasks.scorers.ran_score.reading import read_batch_answer, read_label_answer
from tests.gbnf import GbnfLanguage
from tests.ran_score.helpers import ASKED

CONTRACTS = {"batch": batch_contract(ASKED), "per_label": label_contract()}


@pytest.mark.parametrize("name", CONTRACTS)
def test_the_longest_admitted_answer_fits_the_budget(name):
    contract = CONTRACTS[name]
    assert contract.max_chars == GbnfLanguage(contract.gbnf).max_len  # the stated bound is the grammar's own
    assert contract.tokens_per_char == UNICODE_TOKENS_PER_CHAR  # evidence may be in any script
    assert contract.max_tokens >= contract.max_answer_tokens * BUDGET_MARGIN
    assert contract.fits(contract.max_tokens)


def _longest_value(evidence_char: str) -> str:
    return '{ "present": 1, "evidence": "' + evidence_char * EVIDENCE_MAX_CHARS + '" }'


def test_the_longest_answer_is_admitted_and_one_character_more_is_not():
    contract = CONTRACTS["batch"]
    pad = "\n" + " " * (BREAK_MAX_CHARS - 1)
    longest = "{" + ",".join(f'{pad}"{key}": {_longest_value("肺")}' for key in ASKED) + pad + "}"
    assert len(longest) == contract.max_chars
    language = GbnfLanguage(contract.gbnf)
    assert language.fullmatch(longest) and re.fullmatch(contract.regex, longest)
    assert read_batch_answer(longest, ASKED).problems == {}
    too_long = longest.replace("肺", "肺肺", 1)
    wide_break = longest.replace(pad, pad + " ", 1)
    for broken in (too_long, wide_break, longest.replace('"present": 1', '"present": true', 1)):
        assert not language.fullmatch(broken) and not re.fullmatch(contract.regex, broken)
    single = CONTRACTS["per_label"]
    assert len(_longest_value("x")) == single.max_chars
    assert GbnfLanguage(single.gbnf).fullmatch(_longest_value("x"))


def test_evidence_admits_any_script_but_no_quote_backslash_or_line_break():
    language = GbnfLanguage(CONTRACTS["per_label"].gbnf)
    for evidence in ("心影增大", "épanchement pleural", "плевральный выпот", "🙂 small effusion"):
        assert language.fullmatch(json.dumps({"present": 1, "evidence": evidence}, ensure_ascii=False))
    for evidence in ('a "quoted" word', "back\\slash", "two\nlines", "", " leading space", "\u3000"):
        assert not language.fullmatch('{"present": 1, "evidence": "' + evidence + '"}')
    assert not language.fullmatch('{"present": 0, "evidence": "none"}')


def _drawn(name: str) -> st.SearchStrategy[str]:
    return st.from_regex(GbnfLanguage(CONTRACTS[name].gbnf).regex, fullmatch=True)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_batch_answer_the_grammar_admits_is_matched_and_read(data):
    answer = data.draw(_drawn("batch"))
    assert re.fullmatch(CONTRACTS["batch"].regex, answer)
    reading = read_batch_answer(answer, ASKED)
    assert reading.problems == {}
    stated = json.loads(answer)
    assert reading.labels == {key: stated[key]["present"] for key in ASKED}
    assert reading.evidence == {key: value["evidence"] for key, value in stated.items() if value["present"] == 1}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_per_label_answer_the_grammar_admits_is_matched_and_read(data):
    answer = data.draw(_drawn("per_label"))
    assert re.fullmatch(CONTRACTS["per_label"].regex, answer)
    reading = read_label_answer(answer, "edema")
    assert reading.labels == {"edema": json.loads(answer)["present"]} and reading.problems == {}


def test_the_json_schema_states_the_same_bounds_and_reaches_every_backend():
    schema = CONTRACTS["batch"].json_schema
    assert schema["required"] == ASKED and list(schema["properties"]) == ASKED
    assert schema["additionalProperties"] is False
    absent, present = schema["properties"]["edema"]["anyOf"]
    assert absent["additionalProperties"] is False and present["additionalProperties"] is False
    assert present["properties"]["evidence"]["maxLength"] == EVIDENCE_MAX_CHARS
    assert present["required"] == ["present", "evidence"]
    model = get_model("mockllm/model")
    for name, contract in CONTRACTS.items():
        # Inspect's response_schema must carry the schema unchanged (constrained_config raises otherwise).
        assert constrained_config(model, contract, "response_format").method == "response_schema", name
        assert constrained_config(model, contract, "grammar").config.extra_body == {"grammar": contract.gbnf}


def test_the_embedded_judge_compiles_both_grammars():
    llama_cpp = pytest.importorskip("llama_cpp")
    for contract in CONTRACTS.values():
        assert llama_cpp.LlamaGrammar.from_string(contract.gbnf, verbose=False) is not None
