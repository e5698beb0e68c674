"""TRL's GRPOTrainer trains two steps of a tiny causal LM with this project's GREEN reward (a scripted judge)
and two lexical ones beside it."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import Any

import pytest
from inspect_ai.log import read_eval_log

from radiology_tasks import reward_function
from tests.api.scripted_judge import CANDIDATE
from tests.api.scripted_judge import reply as scripted_reply
from tests.openai_stub import StubServer, openai_stub

REFERENCES = [
    "Small left pleural effusion. No pneumothorax.",
    "Right upper lobe nodule of eight millimetres.",
]
WORDS = sorted({w for r in REFERENCES for w in r.replace(".", " .").split()} | {"clear", "lungs", "heart", "normal"})


def _garbled(candidate: str) -> bool:
    """About a third of the completions get an unreadable answer."""
    return zlib.crc32(candidate.encode()) % 3 == 0


def _reply(body: dict[str, Any]) -> str:
    (candidate,) = CANDIDATE.findall(body["messages"][-1]["content"])
    return "Sorry, no assessment today." if _garbled(candidate) else scripted_reply(body)


@pytest.fixture
def garbling_judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with openai_stub(_reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        yield server


def _tiny_model() -> tuple[Any, Any]:
    """A two-layer Llama of hidden size 32 over a word-level vocabulary of the references' words, built offline."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    vocab = {token: i for i, token in enumerate(["<pad>", "<s>", "</s>", "<unk>", *WORDS])}
    core = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    core.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    core.decoder = decoders.WordPiece()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core, pad_token="<pad>", bos_token="<s>", eos_token="</s>", unk_token="<unk>"
    )
    config = LlamaConfig(
        vocab_size=len(vocab),
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=128,
        pad_token_id=0,
        bos_token_id=1,
        eos_token_id=2,
    )
    return LlamaForCausalLM(config), tokenizer


@pytest.mark.slow
def test_grpo_trainer_gets_a_reward_per_completion_and_none_for_unscored_ones(garbling_judge, tmp_path):
    import torch
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    torch.manual_seed(0)
    model, tokenizer = _tiny_model()
    green = reward_function("green", judge="openai-api/stubsvc/stub-judge", judge_retries=0, log_dir=tmp_path / "logs")
    rouge = reward_function("baselines", baselines="rouge_l", log_dir=tmp_path / "logs")
    bleu = reward_function("baselines", baselines="bleu_1", log_dir=tmp_path / "logs")
    received: list[tuple[list[str], list[str], list[float | None]]] = []

    async def green_reward(**kwargs: Any) -> list[float | None]:
        rewards = await green(**kwargs)
        received.append((list(kwargs["completions"]), list(kwargs["reference"]), rewards))
        return rewards

    dataset = Dataset.from_dict(
        {"prompt": ["findings :", "report :"] * 2, "reference": REFERENCES * 2, "site": ["a", "b", "a", "b"]}
    )
    config = GRPOConfig(
        output_dir=str(tmp_path / "out"),
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=10,
        max_steps=2,
        beta=0.0,
        learning_rate=1e-3,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        use_cpu=True,
        seed=0,
    )
    trainer = GRPOTrainer(
        model=model,
        processing_class=tokenizer,
        reward_funcs=[green_reward, rouge, bleu],
        args=config,
        train_dataset=dataset,
    )
    trainer.train()

    assert len(received) == 2
    pairs = [(r, c) for completions, references, _ in received for c, r in zip(completions, references)]
    rewards = [reward for _, _, batch in received for reward in batch]
    assert len(rewards) == len(pairs) == 8
    for (_, completion), reward in zip(pairs, rewards):
        if not completion.strip() or _garbled(completion):
            assert reward is None, completion
        else:
            assert isinstance(reward, float) and 0.0 <= reward <= 1.0, completion
    assert any(r is None for r in rewards) and any(r is not None for r in rewards)
    judged = {pair for pair in pairs if pair[1].strip()}
    assert len(garbling_judge.requests) == len(judged) == green.judged
    history = {key for entry in trainer.state.log_history for key in entry}
    assert {
        "rewards/green_reward/mean",
        "rewards/baselines_rouge_l/mean",
        "rewards/baselines_bleu_1/mean",
        "green/unscored_share",
        "green/judge_tokens",
    } <= history
    # The two lexical rewards are told apart by the metric each computes (TRL names a reward by its __name__).
    assert "rewards/baselines/mean" not in history
    # The trainer awaits the functions together: each step's three logs come from one Inspect evaluation.
    assert len(green.logs) == len(rouge.logs) == len(bleu.logs) == 2
    runs = [{read_eval_log(log).eval.run_id for log in step} for step in zip(green.logs, rouge.logs, bleu.logs)]
    assert [len(r) for r in runs] == [1, 1]
