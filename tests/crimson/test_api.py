"""CRIMSON from Python: `score(metric="crimson")` and its TRL reward, through the same task and a scripted judge."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from radiology_tasks import reward_function, score
from tests.crimson.stub_judge import ROWS, SCORES, reply
from tests.openai_stub import StubServer, openai_stub

JUDGE = "openai-api/stubsvc/stub-judge"
REFERENCES = [{key: value for key, value in row.items() if key not in ("id", "candidate")} for row in ROWS]
CANDIDATES = [row["candidate"] for row in ROWS]
IDS = [row["id"] for row in ROWS]


@pytest.fixture
def judge(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        yield server


def test_score_gives_each_pair_its_crimson_score_in_input_order(judge, tmp_path):
    result = score(REFERENCES, CANDIDATES, metric="crimson", judge=JUDGE, ids=IDS, log_dir=tmp_path)
    assert result.main == "crimson"
    assert result.values() == pytest.approx([SCORES[i] for i in IDS])
    assert [s.reasons for s in result.samples] == [{}, {}, {"crimson": "invalid_response_format"}, {}]
    assert result.metrics["crimson_mean"] == pytest.approx(sum(SCORES.values()) / 4)
    # The rows' patient context reached the judge.
    assert any(
        "- Indication for the study: Chest pain after a fall." in r["messages"][-1]["content"] for r in judge.requests
    )


def test_the_reward_is_the_score_and_none_for_an_unscored_completion(judge, tmp_path):
    crimson = reward_function("crimson", judge=JUDGE, log_dir=tmp_path)
    rewards = asyncio.run(crimson(prompts=["Write the findings."] * 4, completions=CANDIDATES, reference=REFERENCES))
    assert rewards[0] == pytest.approx(1.0) and rewards[1] == pytest.approx(2 / 3) and rewards[3] == 0.0
    assert rewards[2] is None  # c: the judge's answer does not read; its -1 under `worst` is no reward
    assert crimson.__name__ == "crimson"
