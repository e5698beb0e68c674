"""Turn a judge prompt's output contract into the request fields its backend understands.

Each judge backend takes constrained decoding in a different request shape:

- llama.cpp (our in-process ``llama-cpp`` provider, Inspect's ``llama-cpp-python`` provider,
  or an ``openai-api/<service>`` whose service name contains ``llama``): a GBNF string in
  ``extra_body["grammar"]``, or ``extra_body["response_format"] = {"type": "json_object",
  "schema": ...}`` for JSON. Its server answers HTTP 500 to an OpenAI ``json_schema``
  response format, so that form is never chosen for it automatically.
- vLLM (Inspect's ``vllm``/``vllm-completions`` providers, or an ``openai-api/<service>``
  whose service name contains ``vllm``): ``extra_body["structured_outputs"]`` with one of
  ``json``, ``regex`` or ``grammar``. vLLM silently ignores the removed ``guided_*`` fields,
  so those are never sent.
- Any other provider: JSON contracts through Inspect's ``response_schema``; text contracts
  cannot be constrained and the result says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

from inspect_ai.model import GenerateConfig, Model, ResponseSchema
from inspect_ai.util import JSONSchema

from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.llama_cpp_provider import LlamaCppAPI

ConstrainMode = Literal["auto", "off", "grammar", "structured_outputs", "response_format"]
"""How to constrain the judge: pick by backend (``auto``), not at all (``off``), or force one
request shape (``grammar``: GBNF in ``extra_body``; ``structured_outputs``: vLLM's body field;
``response_format``: Inspect's ``response_schema``)."""

Backend = Literal["llama-cpp", "llama-cpp-server", "vllm", "other"]
"""Kind of judge backend, as far as constrained decoding is concerned."""

Method = Literal["none", "grammar", "json_object", "structured_outputs", "response_schema"]
"""Request shape a `ConstrainedConfig` uses."""

_VLLM_PROVIDERS = {"vllm", "vllm-completions"}
_OPENAI_COMPATIBLE_PROVIDERS = {"openai-api", "openai-api-completions"}


@dataclass(frozen=True)
class ConstrainedConfig:
    """Generation settings that constrain a judge's answer, and what they do.

    Attributes:
        config: Settings to merge into the judge's generate config (``base.merge(config)``).
        method: Request shape used; ``none`` when the answer is not constrained.
        description: One line for logs, e.g. ``constraint: none (backend openai/gpt-4o
            does not take grammars)``.
    """

    config: GenerateConfig
    method: Method
    description: str

    @property
    def constrained(self) -> bool:
        """Whether the backend is asked to enforce the contract."""
        return self.method != "none"


def judge_backend(model: Model) -> Backend:
    """Classify a model by the constrained-decoding request shape its backend takes.

    Args:
        model: The judge model.

    Returns:
        ``llama-cpp`` for this package's in-process provider, ``llama-cpp-server`` or
        ``vllm`` for those servers, otherwise ``other``.
    """
    if isinstance(model.api, LlamaCppAPI):
        return "llama-cpp"
    provider = _provider(model)
    if provider == "llama-cpp-python":
        return "llama-cpp-server"
    if provider in _VLLM_PROVIDERS:
        return "vllm"
    if provider in _OPENAI_COMPATIBLE_PROVIDERS:
        # openai-api model names are `<service>/<model>`; the service names the server.
        service = model.name.split("/", 1)[0].lower()
        if "vllm" in service:
            return "vllm"
        if "llama" in service:
            return "llama-cpp-server"
    return "other"


def constrained_config(
    model: Model, contract: OutputContract | None, mode: ConstrainMode = "auto"
) -> ConstrainedConfig:
    """Build the generate config that makes `model` follow `contract`.

    The model's own ``extra_body`` entries are kept (a merged config replaces ``extra_body``
    as a whole), with the constraint's keys added on top.

    Args:
        model: The judge model.
        contract: The judge prompt's output contract; None when it declares none.
        mode: ``auto`` picks the shape from `judge_backend`; the other modes force one.

    Returns:
        The config, the request shape used and a one-line description.

    Raises:
        ValueError: A forced mode needs a contract form the contract lacks, a JSON schema uses
            keywords Inspect's ``response_schema`` would drop, or the shape travels in ``extra_body``
            while the judge is in batch mode.
    """
    chosen = _shaped(model, contract, mode)
    if chosen.method in _EXTRA_BODY_METHODS and model.config.batch:
        raise ValueError(
            f"constrain={chosen.method} cannot be sent in batch mode: Inspect's OpenAI batcher nests extra_body in "
            "each batch line, so the constraint would not reach the provider; use constrain=auto or "
            "response_format, or turn batch mode off"
        )
    return chosen


_EXTRA_BODY_METHODS = ("grammar", "structured_outputs")
"""Request shapes that travel in ``extra_body``, which batch requests do not carry as a direct call does."""


def _shaped(model: Model, contract: OutputContract | None, mode: ConstrainMode) -> ConstrainedConfig:
    backend = judge_backend(model)
    label = str(model)
    if mode == "off":
        return _unconstrained("constraint: off (requested)")
    if contract is None:
        return _unconstrained("constraint: none (the judge prompt declares no output contract)")

    if mode == "auto":
        if backend in ("llama-cpp", "llama-cpp-server"):
            if contract.gbnf is not None:
                return _grammar(model, contract, label)
            return _json_object(model, contract, label)
        if backend == "vllm":
            return _structured_outputs(model, contract, label)
        if contract.json_schema is not None:
            return _response_schema(contract, label)
        return _unconstrained(f"constraint: none (backend {label} does not take grammars)")
    if mode == "grammar":
        return _grammar(model, contract, label)
    if mode == "structured_outputs":
        return _structured_outputs(model, contract, label)
    if mode == "response_format":
        return _response_schema(contract, label)
    raise ValueError(f"unknown constrain mode '{mode}'; expected one of {list(get_args(ConstrainMode))}")


def _provider(model: Model) -> str:
    """Unqualified provider name, e.g. ``openai-api`` for ``openai-api/vllm/x``."""
    return str(model).split("/", 1)[0]


def _unconstrained(description: str) -> ConstrainedConfig:
    return ConstrainedConfig(config=GenerateConfig(), method="none", description=description)


def _with_extra_body(model: Model, fields: dict[str, Any]) -> GenerateConfig:
    return GenerateConfig(extra_body={**(model.config.extra_body or {}), **fields})


def _grammar(model: Model, contract: OutputContract, label: str) -> ConstrainedConfig:
    if contract.gbnf is None:
        raise ValueError(f"output contract '{contract.name}' has no GBNF grammar for mode 'grammar'")
    return ConstrainedConfig(
        config=_with_extra_body(model, {"grammar": contract.gbnf}),
        method="grammar",
        description=(f"constraint: GBNF grammar '{contract.name}' in extra_body.grammar (backend {label})"),
    )


def _json_object(model: Model, contract: OutputContract, label: str) -> ConstrainedConfig:
    if contract.json_schema is None:
        # __post_init__ guarantees one form; this contract has only a regex.
        return _unconstrained(
            f"constraint: none (backend {label} takes GBNF or a JSON schema; "
            f"contract '{contract.name}' has only a regex)"
        )
    response_format = {"type": "json_object", "schema": contract.json_schema}
    return ConstrainedConfig(
        config=_with_extra_body(model, {"response_format": response_format}),
        method="json_object",
        description=(
            f"constraint: JSON schema '{contract.name}' as a json_object response_format "
            f"in extra_body (backend {label})"
        ),
    )


def _structured_outputs(model: Model, contract: OutputContract, label: str) -> ConstrainedConfig:
    # A JSON schema states the whole contract; a regex is vLLM's most portable text form;
    # GBNF is last because vLLM's grammar backends accept only part of llama.cpp's syntax.
    value: dict[str, Any] | str | None
    if contract.json_schema is not None:
        kind, value = "json", contract.json_schema
    elif contract.regex is not None:
        kind, value = "regex", contract.regex
    else:
        kind, value = "grammar", contract.gbnf
    return ConstrainedConfig(
        config=_with_extra_body(model, {"structured_outputs": {kind: value}}),
        method="structured_outputs",
        description=f"constraint: structured_outputs.{kind} '{contract.name}' (backend {label})",
    )


def _response_schema(contract: OutputContract, label: str) -> ConstrainedConfig:
    if contract.json_schema is None:
        raise ValueError(f"output contract '{contract.name}' has no JSON schema for mode 'response_format'")
    schema = JSONSchema.model_validate(contract.json_schema)
    kept = schema.model_dump(exclude_none=True)
    if kept != contract.json_schema:
        raise ValueError(
            f"output contract '{contract.name}': Inspect's response_schema cannot carry this JSON "
            f"schema unchanged (it keeps only {sorted(JSONSchema.model_fields)}); simplify it"
        )
    name = re.sub(r"[^A-Za-z0-9_-]", "_", contract.name)[:64]
    return ConstrainedConfig(
        config=GenerateConfig(response_schema=ResponseSchema(name=name, json_schema=schema)),
        method="response_schema",
        description=f"constraint: response_schema '{name}' (backend {label})",
    )
