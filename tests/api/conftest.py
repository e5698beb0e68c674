"""The scripted judge behind a local OpenAI-compatible server, and pairs every metric can score."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.api.scripted_judge import GARBAGE, reply
from tests.openai_stub import StubServer, openai_stub

JUDGE = "openai-api/stubsvc/stub-judge"


def _qa(question: str, answer: str, attribute: str, kind: str, finding: str) -> dict[str, str]:
    return {"question": question, "answer": answer, "finding": finding, "attribute": attribute, "attribute_type": kind}


NODULE = [
    _qa("What is the size of the nodule?", "8 mm", "size", "numeric", "lung nodule"),
    _qa("Where is the nodule?", "right upper lobe", "location", "location", "lung nodule"),
    _qa("Is there a pleural effusion?", "present", "existence", "existence", "pleural effusion"),
]
CYST = [
    _qa("What is the size of the renal cyst?", "2 cm", "size", "numeric", "renal cyst"),
    _qa("Where is the renal cyst?", "left kidney", "location", "location", "renal cyst"),
]

ROWS: list[dict[str, Any]] = [
    {
        "id": "p-3",
        "reference": "A solid 8 mm nodule in the right upper lobe. Small left pleural effusion.",
        "candidate": "A 9 mm nodule in the right upper lobe. Fluid in the left pleural space.",
        "qa": NODULE,
    },
    {
        "id": "p-1",
        "reference": "A 2 cm simple cyst in the left kidney.",
        "candidate": "Simple cyst of the left kidney, about 2 cm.",
        "qa": CYST,
    },
    {
        "id": "p-2",
        "reference": "A solid 8 mm nodule in the right upper lobe. Small left pleural effusion.",
        "candidate": f"Lungs are clear. {GARBAGE}",
        "qa": NODULE,
    },
    {
        "id": "p-0",
        "reference": "A 2 cm simple cyst in the left kidney.",
        "candidate": "Cardiomegaly with small bilateral pleural effusions; the kidneys are not seen.",
        "qa": CYST,
    },
]
"""Pairs in the flat layout, ids out of sorted order, the third one answered with garbage by the judge."""

GARBLED = "p-2"


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    """The scripted judge, reachable as `JUDGE`."""
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        yield server
