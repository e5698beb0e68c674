"""What the GREEN/VERT tasks promise, held through a whole run (`inspect eval` of the task with a scripted judge):
no pair being judged is ever shown as a few-shot example, and the expert score each sample logs is on [0, 1]
whatever scale the experts used."""

from __future__ import annotations

import re

import pytest
from inspect_ai import eval as inspect_eval

from radiology_tasks.green_vert.tasks import vert
from radiology_tasks.report_judge.records import JudgeRecord
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub

EXAMPLE = re.compile(
    r"<example_reference>\n(.*?)\n</example_reference>\n<example_candidate>\n(.*?)\n</example_candidate>"
)
RATING = re.compile(r"Radiologists rated this candidate (\S+) on the 0\.00 to 1\.00 scale")

JUDGED = [
    {"id": "e1", "reference": "Small left pleural effusion.", "candidate": "Tiny left pleural effusion."},
    {"id": "e2", "reference": "Cardiomegaly. No edema.", "candidate": "Enlarged heart, no edema."},
    {"id": "e3", "reference": "Right lower lobe pneumonia.", "candidate": "Right basilar consolidation."},
]
"""The pairs a run judges (the data)."""

CLEAN = [
    {"id": f"c{i}", "reference": f"Clean reference {i}.", "candidate": f"Clean candidate {i}.", "expert_score": i}
    for i in range(1, 5)
]
"""Pool pairs that share nothing with a judged pair: the only ones a draw may show."""

LEAKS = [
    # the judged pairs themselves, as a pool built from the same data holds them
    *({**pair, "expert_score": 3} for pair in JUDGED),
    # other candidates of a judged reference (of its study), the reference written as another file spells it
    {"id": "o1", "reference": "  small LEFT pleural effusion. ", "candidate": "No effusion.", "expert_score": 1},
    {"id": "o2", "reference": "Cardiomegaly. No edema.", "candidate": "Normal heart.", "expert_score": 2},
    # a judged candidate written against another reference
    {"id": "o3", "reference": "Other reference.", "candidate": "right basilar CONSOLIDATION.", "expert_score": 4},
    # a judged reference given as another pair's candidate
    {"id": "o4", "reference": "Yet another reference.", "candidate": "Right lower lobe pneumonia.", "expert_score": 5},
]
"""Pool pairs that hold a judged pair, or its reference or candidate: never shown."""


ONE_TO_FIVE = {"expert_score_min": 1, "expert_score_max": 5}


def _run(task, monkeypatch) -> tuple[list[str], object]:
    """Run `task` with a judge that always answers one readable VERT verdict; the prompts it got, and the log."""
    with openai_stub(lambda body: assessment({"b": 1}, 2, 0.6)) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            task, model="none", model_roles={"grader": "openai-api/stubsvc/stub-judge"}, display="none"
        )
    assert log.status == "success", log.error
    return [body["messages"][-1]["content"] for body in server.requests], log


def _normalised(text: str) -> str:
    return " ".join(text.lower().split())


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_run_with_shots_never_shows_a_judged_pair_or_another_candidate_of_its_study(
    monkeypatch, pairs_file, seed: int
) -> None:
    data = pairs_file(JUDGED, name="judged.jsonl")
    # The pool's experts rated on 1-5.
    pool = pairs_file([{**row, **ONE_TO_FIVE} for row in (*LEAKS, *CLEAN)], name="pool.jsonl")
    task = vert(data=str(data), shots=len(CLEAN), shot_pool=str(pool), shot_seed=seed)
    prompts, _ = _run(task, monkeypatch)
    assert len(prompts) == len(JUDGED)
    judged_texts = {_normalised(pair[field]) for pair in JUDGED for field in ("reference", "candidate")}
    clean = {(pair["reference"], pair["candidate"]) for pair in CLEAN}
    for prompt in prompts:
        shown = EXAMPLE.findall(prompt)
        # Every clean pair, and nothing else: a leak the draw let through would take a clean pair's place.
        assert set(shown) == clean and len(shown) == len(CLEAN)
        assert not {_normalised(text) for pair in shown for text in pair} & judged_texts
        # Shown on the 0-1 scale of the prompt, read from the pool's 1-5 scale.
        assert sorted(RATING.findall(prompt)) == ["0.00", "0.25", "0.50", "0.75"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scale", "columns"),
    [
        ({"expert_scale": "1,5"}, {}),
        ({}, ONE_TO_FIVE),
    ],
    ids=["-T expert_scale", "the data's own scale"],
)
def test_each_sample_logs_the_expert_score_on_0_to_1_whatever_the_experts_scale(
    monkeypatch, pairs_file, scale: dict, columns: dict
) -> None:
    rows = [{**pair, "expert_score": raw, **columns} for pair, raw in zip(JUDGED, (1, 4, 5))]
    _, log = _run(vert(data=str(pairs_file(rows)), **scale), monkeypatch)
    logged = {sample.id: sample.scores["report_judge"].metadata["expert_score"] for sample in log.samples}
    assert logged == {"e1": 0.0, "e2": 0.75, "e3": 1.0}
    for sample in log.samples:
        assert JudgeRecord.read(sample.scores["report_judge"].metadata).expert_score == logged[sample.id]
