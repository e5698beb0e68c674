"""A scripted judge for every metric, answering each request from its prompt alone (so from its pair alone).

The answer depends on the pair (a checksum of the candidate), so two pairs rarely get the same score and a
result mapped to the wrong pair shows; a candidate containing `GARBAGE` gets an answer no reader accepts.
"""

from __future__ import annotations

import json
import re
import zlib
from typing import Any

from tests.ct_finebench.stub_judge import QUESTION, asked_ids, candidate_in, is_extraction, items_in
from tests.judge_answers import assessment
from tests.ran_score.helpers import ASKED, batch_answer

GARBAGE = "GARBAGE"
"""A candidate holding this word gets an unreadable answer."""

CANDIDATE = re.compile(r"<candidate_report>\n?(.*?)\n?</candidate_report>", re.S)
RAN_REPORT = re.compile(r"<report>\n(.*?)\n</report>", re.S)


def _checksum(text: str) -> int:
    return zlib.crc32(text.encode())


def reply(body: dict[str, Any]) -> str:
    """The scripted answer to one request of any metric's judge."""
    prompt = body["messages"][-1]["content"]
    if GARBAGE in prompt:
        return "I would rather not say."
    if "<candidate_report>" in prompt and QUESTION.search(prompt) and is_extraction(body):
        candidate = candidate_in(body)
        words = candidate.split()
        return json.dumps({key: " ".join(words[i : i + 3]) for i, key in enumerate(asked_ids(body))})
    items = items_in(body)
    if items:
        return json.dumps({key: [0.5, 1][_checksum(key + candidate) % 2] for key, (_, _, candidate) in items.items()})
    ran = RAN_REPORT.findall(prompt)
    if ran:
        code = _checksum(ran[0])
        return batch_answer({key: "seen" for i, key in enumerate(ASKED) if (code >> i) & 1})
    (candidate,) = CANDIDATE.findall(prompt)
    code = _checksum(candidate)
    score = (code % 11) / 10 if "[Overall Accuracy Score]" in prompt else None
    return assessment({"b": code % 3, "c": (code >> 3) % 2}, 1 + (code >> 5) % 3, score)
