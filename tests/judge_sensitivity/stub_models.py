"""Fixed injector, checker and judge answers for the judge-sensitivity tests, served by `tests.openai_stub`.

The injector's prompts list the reference sentence by sentence; these helpers read them back from the
prompt the way a model would, and write answers that pass (or, on purpose, fail) the code checks.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable

INJECT = re.compile(r"Put errors into exactly (\d+) of them")
SENTENCE = re.compile(r"^Sentence (\d+): (.*)$", re.M)
PARAPHRASE_SENTENCE = re.compile(r"^Sentence (\d+) \(rewrite in at most \d+ characters\): (.*)$", re.M)
CANDIDATE = re.compile(r"<candidate_report>\n(.*?)\n</candidate_report>", re.S)


def prompt_of(body: dict) -> str:
    """The text of the last message of a chat request."""
    return body["messages"][-1]["content"]


def kind_of(prompt: str) -> str:
    """Which of the family's prompts this is: inject, paraphrase, plausibility, paraphrase_check,
    differences, or judge (a GREEN/VERT prompt, first or second pass)."""
    if INJECT.search(prompt):
        return "inject"
    if "Reword every sentence" in prompt:
        return "paraphrase"
    if "## Changed report" in prompt:
        return "plausibility"
    if "## Rewrite, sentence by sentence" in prompt:
        return "paraphrase_check"
    if '{"differences":' in prompt:
        return "differences"
    return "judge"


def sentences_of(prompt: str) -> list[str]:
    """The numbered sentences an injection or paraphrase prompt shows."""
    pattern = PARAPHRASE_SENTENCE if "Reword every sentence" in prompt else SENTENCE
    return [text for _, text in sorted((int(i), t) for i, t in pattern.findall(prompt))]


def injection(prompt: str, *, changed: list[int] | None = None, change: Callable[[str], str] | None = None) -> str:
    """A valid injection answer: the first N sentences (or `changed`) altered by `change`, the rest intact."""
    sentences = sentences_of(prompt)
    n = int(INJECT.search(prompt).group(1))  # type: ignore[union-attr]
    indices = changed if changed is not None else list(range(n))
    alter = change or (lambda s: s.rstrip(".") + ", with a new 2 cm mass.")
    modified = {i: alter(sentences[i]) for i in indices}
    report = " ".join(modified.get(i, s) for i, s in enumerate(sentences) if modified.get(i, s) != "")
    details = [
        {"sentence_index": i, "original": sentences[i], "modified": modified[i], "explanation": "added a mass"}
        for i in indices
    ]
    return json.dumps({"changes_detail": details, "modified_report": report})


def paraphrase_answer(prompt: str) -> str:
    """A valid paraphrase answer: every sentence reworded."""
    sentences = sentences_of(prompt)
    items = [{"sentence_index": i, "paraphrase": f"In other words: {s}"} for i, s in enumerate(sentences)]
    return json.dumps({"sentences": items})


def verdict(plausible: bool, reason: str = "ok") -> str:
    """A checker answer."""
    return json.dumps({"plausible": plausible, "reason": reason})


def candidate_of(prompt: str) -> str:
    """The candidate report shown in a judge prompt."""
    (text,) = CANDIDATE.findall(prompt)
    return text
