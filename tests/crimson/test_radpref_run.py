"""Tasks run on RadPref's folder as downloaded: CRIMSON with a scripted judge (the patient's age, sex and indication
in its prompt as the files write them, the radiologists' mean ratings as the expert scores), and the lexical
baselines, which take any data every task takes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from radiology_tasks.baselines.tasks import baselines
from radiology_tasks.crimson.tasks import crimson
from radiology_tasks.scorers.untrusted import neutralize_candidate
from tests.crimson.answers import answer, attribute
from tests.crimson.stub_judge import candidate_of
from tests.openai_stub import openai_stub
from tests.real_layouts import RADPREF_PREFERENCES, RADPREF_RATINGS, RADPREF_STUDIES, radpref_copy

pytestmark = pytest.mark.slow

S1, S2, S3, _ = RADPREF_STUDIES
CONSOLIDATION_AND_LINE = {"R1": "actionable_not_urgent", "R2": "not_actionable_not_urgent"}
ANSWERS = {
    (S1, "C1"): (
        answer(
            refs=CONSOLIDATION_AND_LINE,
            preds={"P1": "not_actionable_not_urgent"},
            matched=[("R2", "P1")],
            missing=["R1"],
        ),
        1 / 3,  # R2 earns 0.25 of N_G = 0.75
    ),
    (S1, "C2"): (
        answer(
            refs=CONSOLIDATION_AND_LINE,
            preds={"P1": "actionable_not_urgent", "P2": "not_actionable_not_urgent"},
            matched=[("R1", "P1"), ("R2", "P2")],
            attributes=[attribute("R2", "P2", "significant", "location")],
        ),
        7 / 9,  # R1 0.5, R2 0.25 * 0.25 / 0.75, over 0.75
    ),
    (S2, "C1"): (answer(), 1.0),
    (S2, "C2"): (answer(), 1.0),
    (S3, "C1"): (answer(preds={"P1": "actionable_not_urgent"}, false=["P1"]), -1 / 3),  # X = 0.5
    (S3, "C2"): (answer(preds={"P1": "not_actionable_not_urgent"}, false=["P1"]), -0.2),  # X = 0.25
}
"""The judge's answer and the score it gives, for the candidates of the first three studies."""
JUDGE = "openai-api/stubsvc/stub-judge"


def reply(body: dict[str, Any]) -> str:
    """The scripted answer for the candidate the prompt holds."""
    shown = candidate_of(body)
    for entry in RADPREF_PREFERENCES:
        for name in ("C1", "C2"):
            if neutralize_candidate(entry[f"{name}_report"]) == shown:
                return ANSWERS[(entry["id"], name)][0]
    raise AssertionError(f"no scripted answer for {shown!r}")


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> tuple[EvalLog, list[dict[str, Any]]]:
    tmp_path = tmp_path_factory.mktemp("radpref")
    folder = radpref_copy(tmp_path / "CRIMSON")
    with pytest.MonkeyPatch.context() as monkeypatch, openai_stub(reply) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "not-a-real-key")
        (log,) = inspect_eval(
            crimson(data=str(folder), limit=6),
            model="none",
            model_roles={"grader": JUDGE},
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert log.status == "success", log.error
    return log, server.requests


def test_the_patients_age_sex_and_indication_reach_the_judge_as_the_files_write_them(run):
    _, requests = run
    prompts = {candidate_of(r): r["messages"][-1]["content"] for r in requests}
    assert len(requests) == 6
    first = prompts[RADPREF_PREFERENCES[0]["C1_report"]]
    assert "Patient:\n- Age: 072Y\n- Sex: F\n- Indication for the study: Central line placement.  Pneumonia.\n" in first
    blank_age = prompts[RADPREF_PREFERENCES[1]["C2_report"]]
    assert "Patient:\n- Sex: M\n- Indication for the study: Headache and chest pain.\n" in blank_age
    assert "Age:" not in blank_age
    assert "- Age: 030M\n- Sex: O\n" in prompts[RADPREF_PREFERENCES[2]["C1_report"]]


def test_each_candidate_is_scored_with_its_study_and_its_radiologists_mean_rating(run):
    log, _ = run
    assert log.samples is not None
    scores = {str(s.id): s.scores["crimson_judge"] for s in log.samples}
    assert {key: score.value["crimson"] for key, score in scores.items()} == pytest.approx(
        {f"{study}-{name}": value for (study, name), (_, value) in ANSWERS.items()}
    )
    for sample in log.samples:
        study, name = str(sample.id).rsplit("-", 1)
        assert sample.metadata["metadata"]["study_id"] == study
        assert sample.metadata["expert"]["score"] == sum(RADPREF_RATINGS[(study, name)].values()) / 3
        assert sample.metadata["expert"]["raters"] == 3
    context = scores[f"{S3}-C2"].metadata["patient_context"]
    assert (context["age"], context["sex"], context["sex_column"]) == ("030M", "O", "PatientSex")
    assert log.eval.metadata["patient_context"] == {"with_age": 4, "with_sex": 6, "with_indication": 6, "pairs": 6}
    data = log.eval.metadata["data"]
    assert (data["layout"], data["rows_read"], data["samples"]) == ("radpref", 8, 6)
    assert set(data["fingerprint"]["files"]) == {"preference_data.json", "user_1.json", "user_2.json", "user_3.json"}
    metrics = {name for s in log.results.scores for name in s.metrics}
    assert "crimson_kendall_tau" in metrics


def test_the_lexical_baselines_read_the_folder_and_compare_with_the_ratings(tmp_path: Path):
    folder = radpref_copy(tmp_path / "CRIMSON")
    (log,) = inspect_eval(
        baselines(data=str(folder.parent), baselines="chrf"), model="none", display="none", log_dir=str(tmp_path)
    )
    assert log.status == "success", log.error
    assert log.samples is not None and len(log.samples) == 8
    assert log.eval.metadata["data"]["layout"] == "radpref"
    assert {s.metadata["expert"]["scale_max"] for s in log.samples} == {5.0}
    assert any("kendall" in name for s in log.results.scores for name in s.metrics)
