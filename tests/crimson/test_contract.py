"""The CRIMSON output contract: llama.cpp takes its grammar, whose language is the answers the reader accepts."""

from __future__ import annotations

import json
import random
import re

import jsonschema
import pytest
from inspect_ai.model import get_model

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.scorers.crimson.contract import (
    ATTRIBUTE_SEVERITY_WEIGHTS,
    CONTRACT,
    ERROR_TYPES,
    SIGNIFICANCE_WEIGHTS,
    crimson_contract,
)
from radiology_tasks.scorers.crimson.reading import read_crimson
from tests.crimson.answers import SIMPLE, answer, attribute
from tests.gbnf import GbnfLanguage
from tests.llama_grammar import llama_cpp_grammar_check

SMALL = crimson_contract(3, 3)
"""A contract whose grammar reads whole as a regex (the released one branches over 9 x 9 finding counts)."""


@pytest.fixture(scope="module")
def small_language() -> re.Pattern[str]:
    return re.compile(GbnfLanguage(SMALL.gbnf).regex, re.S)


def test_llama_cpp_builds_a_sampler_from_the_grammar():
    assert llama_cpp_grammar_check()(CONTRACT.gbnf)


def test_the_stated_longest_answer_is_the_grammars_and_fits_the_budget():
    assert GbnfLanguage(SMALL.gbnf).max_len == SMALL.max_chars
    assert CONTRACT.fits(CONTRACT.max_tokens)
    assert CONTRACT.max_tokens == 5953, "the task docstring states this budget"


@pytest.mark.parametrize(
    "text",
    [
        SIMPLE,
        answer(),
        answer(refs={"R1": "urgent"}, missing=["R1"]),
        answer(preds={"P1": "benign_expected"}, false=["P1"]),
        answer(
            refs={"R1": "urgent", "R2": "urgent", "R3": "benign_expected"},
            preds={"P1": "urgent", "P2": "urgent", "P3": "urgent"},
            matched=[("R1", "P1"), ("R2", "P2")],
            false=["P3"],
            missing=["R3"],
            attributes=[attribute("R2", "P2", "negligible", "location", "severity", "temporal")],
        ),
    ],
)
def test_the_grammar_admits_answers_the_reader_accepts(small_language, text):
    assert read_crimson(text).assessment is not None
    assert small_language.fullmatch(text)
    assert small_language.fullmatch(json.dumps(json.loads(text), separators=(",", ":")))


@pytest.mark.parametrize(
    ("text", "why"),
    [
        (answer(refs={"R2": "urgent"}, missing=["R2"]), "ids start at R1"),
        (answer(refs={"R1": "urgent"}, missing=["R2"]), "R2 is not listed"),
        (answer(preds={"P1": "urgent"}, false=["P2"]), "P2 is not listed"),
        (answer(refs={"R1": "urgent"}, preds={"P1": "urgent"}, matched=[("R1", "P2")], false=["P1"]), "P2 unlisted"),
        (answer(refs={"R1": "critical"}, missing=["R1"]), "unknown label"),
        (SIMPLE.replace('"significant"', '"major"'), "unknown severity"),
        (SIMPLE.replace('"severity"]', '"size"]'), "unknown error type"),
        (SIMPLE[:-1] + ', "crimson_score": 1.0}', "a field of its own"),
        (
            answer(refs={"R1": "urgent"}, preds={"P1": "urgent", "P2": "urgent"}, matched=[("R1", "P1"), ("R1", "P2")]),
            "one reference finding matched twice: beyond the grammar's canonical order",
        ),
        (
            answer(refs={"R1": "urgent"}, preds={"P1": "urgent", "P2": "urgent"}, matched=[("R1", "P2")], false=["P1"]),
            "the matched candidate finding is not numbered first",
        ),
        (
            answer(refs={"R1": "urgent"}, preds={"P1": "urgent"}, matched=[("R1", "P1")], false=["P1"]),
            "matched and false at once",
        ),
        (answer(refs={"R1": "urgent"}), "a reference finding neither matched nor missing"),
        ("```json\n" + SIMPLE + "\n```", "a code fence"),
        (
            answer(refs={f"R{i}": "urgent" for i in range(1, 5)}, missing=[f"R{i}" for i in range(1, 5)]),
            "four findings where the small grammar has room for three",
        ),
    ],
)
def test_the_grammar_refuses_what_the_contract_forbids(small_language, text, why):
    assert not small_language.fullmatch(text), why


def test_the_json_schema_holds_the_contracts_fields_and_labels():
    schema = CONTRACT.json_schema
    assert schema is not None
    jsonschema.validate(json.loads(SIMPLE), schema)
    for bad in (
        SIMPLE.replace('"urgent"', '"critical"', 1),
        SIMPLE.replace('"negligible"', '"minor"').replace('"significant"', '"minor"'),
        SIMPLE[:-1] + ', "crimson_score": 1.0}',
        SIMPLE.replace('"R2"', '"X2"'),
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(json.loads(bad), schema)


def test_inspects_response_schema_carries_the_json_schema_unchanged():
    constrained = constrained_config(get_model("mockllm/model"), CONTRACT, "response_format")
    assert constrained.method == "response_schema"


def _canonical_answer(rng: random.Random) -> str:
    labels, severities = list(SIGNIFICANCE_WEIGHTS), list(ATTRIBUTE_SEVERITY_WEIGHTS)
    n, m = rng.randint(0, 3), rng.randint(0, 3)
    k = rng.randint(0, min(n, m))
    attributes = [
        attribute(f"R{i}", f"P{i}", rng.choice(severities), *rng.sample(ERROR_TYPES, rng.randint(1, 3)))
        for i in (rng.randint(1, k) for _ in range(rng.randint(0, 3) if k else 0))
    ]
    return answer(
        refs={f"R{i}": rng.choice(labels) for i in range(1, n + 1)},
        preds={f"P{i}": rng.choice(labels) for i in range(1, m + 1)},
        matched=[(f"R{i}", f"P{i}") for i in range(1, k + 1)],
        false=[f"P{j}" for j in range(k + 1, m + 1)],
        missing=[f"R{j}" for j in range(k + 1, n + 1)],
        attributes=attributes,
    )


def test_every_answer_the_grammar_admits_reads(small_language):
    # The grammar's answers are the canonical ones: R1-P1 ... Rk-Pk matched, the rest false or missing. Each
    # reads; so a constrained judge never gives an answer the reader refuses.
    rng = random.Random(0)
    for _ in range(300):
        text = _canonical_answer(rng)
        assert small_language.fullmatch(text), text
        assert read_crimson(text).assessment is not None, text
