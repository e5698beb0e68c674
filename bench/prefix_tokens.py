"""How much of each judge prompt is the same for every report: the part a server's prefix cache can reuse.

For each judge prompt, the prompts of every bundled demo report are rendered with the task's own
prompt-building code, tokenized, and the longest token prefix they all share is measured. A server that caches
prefixes (vLLM's automatic prefix caching, llama.cpp's prompt cache, a provider's prompt caching) computes
that part once; the rest is new for each report. Printed per prompt: prompts rendered, the shared prefix in
tokens, the mean prompt length, and the share of the mean prompt the prefix is.

Tokenizer, the first that works offline: tiktoken's ``o200k_base`` (when its encoding file is cached), the
embedded judge's SmolLM2 vocabulary through llama.cpp (``vocab_only``), or whitespace-separated words. The
one used is printed. A prefix counted in one tokenizer's tokens is close to, not equal to, the prefix another
model's tokenizer gives, and a server caches whole blocks (vLLM: 16 tokens by default), so the reusable part
is the shared prefix rounded down to a block.

Usage::

    python bench/prefix_tokens.py
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import get_args

from radiology_tasks.core.loading import load_pairs
from radiology_tasks.core.records import ReportPair
from radiology_tasks.ct_finebench.extraction import extraction_prompt as qa_extraction_prompt
from radiology_tasks.ct_finebench.scorer import _item as comparison_item
from radiology_tasks.ct_finebench.scorer import _prompt as comparison_prompt
from radiology_tasks.judge_sensitivity.scorer import SensitivityPrompt, classify_prompt, differences_prompt
from radiology_tasks.ran_score.extraction import extraction_prompt as labels_prompt
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from radiology_tasks.report_judge.scorer import JUDGE_PROMPTS, judge_prompt
from radiology_tasks.scorers.ct_finebench.questions import numbered_questions

Tokenize = Callable[[str], Sequence[int | str]]


@dataclass(frozen=True)
class PrefixStats:
    """The shared prefix of one judge prompt's renderings."""

    name: str
    prompts: int
    shared: int
    mean_length: float

    @property
    def share(self) -> float:
        """Shared prefix as a fraction of the mean prompt length."""
        return self.shared / self.mean_length if self.mean_length else 0.0


def tokenizer() -> tuple[str, Tokenize]:
    """The first tokenizer that loads offline, and its name."""
    try:
        import tiktoken

        encoding = tiktoken.get_encoding("o200k_base")
        return "tiktoken o200k_base", lambda text: encoding.encode(text, disallowed_special=())
    except Exception:  # not installed, or its encoding file cannot be fetched offline
        pass
    try:
        import llama_cpp

        from radiology_tasks.core.llama_cpp_provider import SMOLLM2_SHORT_NAME, resolve_model_path

        vocab = llama_cpp.Llama(str(resolve_model_path(SMOLLM2_SHORT_NAME)), vocab_only=True, verbose=False)
        return "SmolLM2-135M vocabulary (llama.cpp)", lambda text: vocab.tokenize(text.encode(), add_bos=False)
    except Exception:  # llama.cpp or the model package is not installed
        pass
    return "whitespace words", str.split


def shared_prefix(sequences: Sequence[Sequence[int | str]]) -> int:
    """Length of the longest prefix every sequence starts with."""
    shortest = min(len(s) for s in sequences)
    for i in range(shortest):
        token = sequences[0][i]
        if any(s[i] != token for s in sequences[1:]):
            return i
    return shortest


def measure(name: str, prompts: Sequence[str], tokenize: Tokenize) -> PrefixStats:
    """Shared-prefix figures of `prompts`."""
    tokens = [tokenize(p) for p in prompts]
    return PrefixStats(name, len(prompts), shared_prefix(tokens), sum(len(t) for t in tokens) / len(tokens))


def judge_prompts(report_pairs: Sequence[ReportPair], ran_pairs: Sequence[ReportPair]) -> dict[str, list[str]]:
    """Every judge prompt of every task, rendered for each demo report, by prompt name."""
    with_candidate = [p for p in report_pairs if p.candidate]
    rendered: dict[str, list[str]] = {}
    for prompt in JUDGE_PROMPTS:
        rendered[f"green_vert {prompt}"] = [
            judge_prompt(prompt, reference=p.reference, candidate=p.candidate or "") for p in with_candidate
        ]

    with_questions = [p for p in with_candidate if p.qa]
    rendered["ct_finebench extraction"] = [
        qa_extraction_prompt(numbered_questions(p.qa), p.candidate or "") for p in with_questions
    ]
    comparisons = []
    for p in with_questions:
        # The reference answer stands in for the candidate's extracted answer.
        items = {q.id: comparison_item(q, q.qa.answer) for q in numbered_questions(p.qa)}
        comparisons.append(comparison_prompt(items, list(items)))
    rendered["ct_finebench comparison"] = comparisons

    taxonomy = load_taxonomy()
    reports = [text for p in ran_pairs for text in (p.reference, p.candidate) if text]
    rendered["ran_score extraction (batch)"] = [
        labels_prompt(taxonomy, taxonomy.asked, report, "batch") for report in reports
    ]
    rendered["ran_score extraction (per_label)"] = [
        labels_prompt(taxonomy, [label], report, "per_label") for report in reports for label in taxonomy.asked
    ]

    rendered["judge_sensitivity differences (pass 1)"] = [
        differences_prompt(reference=p.reference, candidate=p.candidate or "") for p in with_candidate
    ]
    for prompt in get_args(SensitivityPrompt):
        # The first pass's answer depends on the judge; the candidate's sentences stand in for it.
        rendered[f"judge_sensitivity classify {prompt} (pass 2)"] = [
            classify_prompt(
                prompt,
                reference=p.reference,
                candidate=p.candidate or "",
                differences=[s.strip() for s in (p.candidate or "").split(".") if s.strip()],
            )
            for p in with_candidate
        ]
    return rendered


def main() -> None:
    """Render, tokenize and print the shared prefix of every judge prompt."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    name, tokenize = tokenizer()
    report_pairs = load_pairs(None).pairs
    ran_pairs = load_pairs("ran-score-demo").pairs
    stats = [measure(prompt, prompts, tokenize) for prompt, prompts in judge_prompts(report_pairs, ran_pairs).items()]
    print(f"tokenizer: {name}")
    print(f"demo reports: {len(report_pairs)} (ran-score-demo: {len(ran_pairs)} pairs)")
    width = max(len(s.name) for s in stats)
    print(f"{'prompt':<{width}}  {'prompts':>7}  {'shared':>7}  {'mean':>7}  {'share':>6}")
    for s in stats:
        print(f"{s.name:<{width}}  {s.prompts:>7}  {s.shared:>7}  {s.mean_length:>7.0f}  {s.share:>6.1%}")


if __name__ == "__main__":
    main()
