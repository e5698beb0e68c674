"""Which request fields `constrained_config` produces for each kind of judge backend."""

from __future__ import annotations

import importlib.util

import pytest
from inspect_ai.model import GenerateConfig, Model, ResponseSchema, get_model
from inspect_ai.util import JSONSchema

from radiology_tasks.core.constrain import constrained_config, judge_backend
from radiology_tasks.core.contract import OutputContract

GBNF = 'root ::= "yes" | "no"'
SCHEMA = {
    "type": "object",
    "properties": {"score": {"type": "integer"}, "reason": {"type": "string"}},
    "required": ["score"],
    "additionalProperties": False,
}
TEXT = OutputContract(name="verdict", max_chars=3, max_tokens=8, gbnf=GBNF, regex="yes|no")
GBNF_ONLY = OutputContract(name="green", max_chars=3, max_tokens=8, gbnf=GBNF)
REGEX_ONLY = OutputContract(name="yesno", max_chars=3, max_tokens=8, regex="yes|no")
JSON = OutputContract(name="vert", max_chars=3, max_tokens=8, json_schema=SCHEMA)

NO_SERVER = "http://127.0.0.1:9/v1"  # never contacted: building a Model makes no request


def server_model(spec: str, **kwargs: object) -> Model:
    return get_model(spec, base_url=NO_SERVER, api_key="x", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("spec", "backend"),
    [
        ("mockllm/model", "other"),
        ("openai/gpt-4o-mini", "other"),
        ("openai-api/together/x", "other"),
        ("vllm/x", "vllm"),
        ("vllm-completions/x", "vllm"),
        ("openai-api/vllm/x", "vllm"),
        ("openai-api/My-VLLM-Box/x", "vllm"),
        ("openai-api-completions/vllm/x", "vllm"),
        ("llama-cpp-python/x", "llama-cpp-server"),
        ("openai-api/llama-server/x", "llama-cpp-server"),
        ("openai-api/LlamaCpp/x", "llama-cpp-server"),
    ],
)
def test_judge_backend(spec: str, backend: str) -> None:
    assert judge_backend(server_model(spec)) == backend


@pytest.mark.parametrize("spec", ["vllm/x", "openai-api/vllm/x"])
def test_vllm_prefers_regex_for_text(spec: str) -> None:
    result = constrained_config(server_model(spec), TEXT)
    assert result.config == GenerateConfig(extra_body={"structured_outputs": {"regex": "yes|no"}})
    assert result.method == "structured_outputs"
    assert result.constrained is True
    assert result.description == f"constraint: structured_outputs.regex 'verdict' (backend {spec})"


def test_vllm_sends_gbnf_as_grammar_without_regex() -> None:
    result = constrained_config(server_model("vllm/x"), GBNF_ONLY)
    assert result.config == GenerateConfig(extra_body={"structured_outputs": {"grammar": GBNF}})


def test_vllm_sends_json_schema_in_structured_outputs() -> None:
    result = constrained_config(server_model("openai-api/vllm/x"), JSON)
    assert result.config == GenerateConfig(extra_body={"structured_outputs": {"json": SCHEMA}})
    assert result.config.response_schema is None


def test_vllm_never_gets_removed_guided_fields() -> None:
    for contract in (TEXT, GBNF_ONLY, REGEX_ONLY, JSON):
        extra_body = constrained_config(server_model("vllm/x"), contract).config.extra_body
        assert extra_body is not None
        assert [k for k in extra_body if k.startswith("guided")] == []


@pytest.mark.parametrize("spec", ["llama-cpp-python/x", "openai-api/llama-server/x"])
def test_llama_server_takes_gbnf(spec: str) -> None:
    result = constrained_config(server_model(spec), TEXT)
    assert result.config == GenerateConfig(extra_body={"grammar": GBNF})
    assert result.method == "grammar"
    assert result.description == f"constraint: GBNF grammar 'verdict' in extra_body.grammar (backend {spec})"


@pytest.mark.parametrize("spec", ["llama-cpp-python/x", "openai-api/llama-server/x"])
def test_llama_server_takes_json_object_with_schema(spec: str) -> None:
    result = constrained_config(server_model(spec), JSON)
    assert result.config == GenerateConfig(extra_body={"response_format": {"type": "json_object", "schema": SCHEMA}})
    # the server answers HTTP 500 to an OpenAI json_schema response format
    assert result.config.response_schema is None
    assert result.method == "json_object"


def test_llama_server_cannot_use_regex_only_contract() -> None:
    result = constrained_config(server_model("llama-cpp-python/x"), REGEX_ONLY)
    assert result.config == GenerateConfig()
    assert result.constrained is False
    assert result.description == (
        "constraint: none (backend llama-cpp-python/x takes GBNF or a JSON schema; contract 'yesno' has only a regex)"
    )


@pytest.mark.parametrize("spec", ["mockllm/model", "openai/gpt-4o-mini", "openai-api/together/x"])
def test_other_backends_leave_text_unconstrained_and_say_why(spec: str) -> None:
    result = constrained_config(server_model(spec), TEXT)
    assert result.config == GenerateConfig()
    assert result.method == "none"
    assert result.description == f"constraint: none (backend {spec} does not take grammars)"


@pytest.mark.parametrize("spec", ["mockllm/model", "openai/gpt-4o-mini"])
def test_other_backends_get_json_through_response_schema(spec: str) -> None:
    result = constrained_config(server_model(spec), JSON)
    assert result.config == GenerateConfig(
        response_schema=ResponseSchema(name="vert", json_schema=JSONSchema.model_validate(SCHEMA))
    )
    assert result.config.extra_body is None
    assert result.description == f"constraint: response_schema 'vert' (backend {spec})"


def test_response_schema_refuses_a_schema_inspect_would_truncate() -> None:
    lossy = OutputContract(name="list", max_chars=3, max_tokens=8, json_schema={"type": "array", "minItems": 1})
    with pytest.raises(ValueError, match="output contract 'list': Inspect's response_schema cannot"):
        constrained_config(server_model("openai/gpt-4o-mini"), lossy)


def test_off_sends_nothing() -> None:
    result = constrained_config(server_model("vllm/x"), TEXT, mode="off")
    assert result.config == GenerateConfig()
    assert result.description == "constraint: off (requested)"


def test_no_contract_sends_nothing() -> None:
    result = constrained_config(server_model("vllm/x"), None)
    assert result.config == GenerateConfig()
    assert result.description == "constraint: none (the judge prompt declares no output contract)"


def test_forced_modes_ignore_the_backend() -> None:
    model = server_model("mockllm/model")
    assert constrained_config(model, TEXT, "grammar").config == GenerateConfig(extra_body={"grammar": GBNF})
    assert constrained_config(model, TEXT, "structured_outputs").config == GenerateConfig(
        extra_body={"structured_outputs": {"regex": "yes|no"}}
    )
    assert constrained_config(server_model("vllm/x"), JSON, "response_format").config == GenerateConfig(
        response_schema=ResponseSchema(name="vert", json_schema=JSONSchema.model_validate(SCHEMA))
    )


def test_forced_mode_needs_the_matching_contract_form() -> None:
    model = server_model("mockllm/model")
    with pytest.raises(ValueError, match="output contract 'vert' has no GBNF grammar for mode 'grammar'"):
        constrained_config(model, JSON, "grammar")
    with pytest.raises(ValueError, match="output contract 'verdict' has no JSON schema for mode 'response_format'"):
        constrained_config(model, TEXT, "response_format")


def test_unknown_mode_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown constrain mode 'regex'"):
        constrained_config(server_model("vllm/x"), TEXT, "regex")  # type: ignore[arg-type]


def test_model_extra_body_is_kept() -> None:
    model = server_model(
        "vllm/x",
        config=GenerateConfig(extra_body={"chat_template_kwargs": {"enable_thinking": False}}),
    )
    result = constrained_config(model, TEXT)
    assert result.config.extra_body == {
        "chat_template_kwargs": {"enable_thinking": False},
        "structured_outputs": {"regex": "yes|no"},
    }


@pytest.mark.embedded
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_in_process_llama_gets_grammar_and_json_object() -> None:
    model = get_model("llama-cpp/smollm2-135m")
    assert judge_backend(model) == "llama-cpp"
    assert constrained_config(model, TEXT).config == GenerateConfig(extra_body={"grammar": GBNF})
    assert constrained_config(model, JSON).config == GenerateConfig(
        extra_body={"response_format": {"type": "json_object", "schema": SCHEMA}}
    )


def test_only_the_service_part_of_an_openai_api_name_names_the_server() -> None:
    # "llama" in the model's own name says nothing about the server it runs on.
    assert judge_backend(server_model("openai-api/together/meta-llama/Llama-3-8B")) == "other"
    assert judge_backend(server_model("openai-api/fireworks/vllm-tuned/x")) == "other"


def test_forced_modes_describe_the_backend_they_ignore() -> None:
    model = server_model("mockllm/model")
    assert constrained_config(model, TEXT, "grammar").description == (
        "constraint: GBNF grammar 'verdict' in extra_body.grammar (backend mockllm/model)"
    )
    assert constrained_config(model, TEXT, "structured_outputs").description == (
        "constraint: structured_outputs.regex 'verdict' (backend mockllm/model)"
    )
    forced = constrained_config(server_model("vllm/x"), JSON, "response_format")
    assert (forced.method, forced.description) == (
        "response_schema",
        "constraint: response_schema 'vert' (backend vllm/x)",
    )


def test_llama_server_json_object_is_described() -> None:
    result = constrained_config(server_model("llama-cpp-python/x"), JSON)
    assert result.description == (
        "constraint: JSON schema 'vert' as a json_object response_format in extra_body (backend llama-cpp-python/x)"
    )


def test_response_schema_names_are_sanitised_and_bounded() -> None:
    contract = OutputContract(name="My judge.V2/" + "x" * 70, max_chars=3, max_tokens=8, json_schema=SCHEMA)
    result = constrained_config(server_model("openai/gpt-4o-mini"), contract)
    name = "My_judge_V2_" + "x" * 52
    assert result.config.response_schema is not None and result.config.response_schema.name == name
    assert len(name) == 64
    assert result.method == "response_schema"


def test_unknown_mode_lists_the_modes() -> None:
    with pytest.raises(ValueError) as error:
        constrained_config(server_model("vllm/x"), TEXT, "regex")  # type: ignore[arg-type]
    assert str(error.value) == (
        "unknown constrain mode 'regex'; expected one of "
        "['auto', 'off', 'grammar', 'structured_outputs', 'response_format']"
    )


@pytest.mark.embedded
def test_the_in_process_llama_cpp_judge_takes_the_grammar() -> None:
    import radiology_tasks._registry  # noqa: F401  (registers the llama-cpp provider)

    model = get_model("llama-cpp/smollm2-135m")  # the GGUF file is loaded at the first generate, not here
    assert judge_backend(model) == "llama-cpp"
    result = constrained_config(model, GBNF_ONLY)
    assert result.config == GenerateConfig(extra_body={"grammar": GBNF})
    assert result.method == "grammar"
