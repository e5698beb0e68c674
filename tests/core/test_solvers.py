"""Both solvers end to end through Inspect: replayed candidates, and reports written by the model under test."""

from __future__ import annotations

import base64

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import resolve_sample_attachments
from inspect_ai.model import ContentImage, ContentText, get_model

from radiology_tasks.green_vert.tasks import vert
from tests.conftest import GOOD_ROWS
from tests.judge_answers import assessment, mock_output

# A 1x1 transparent PNG.
PNG = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=")


def _grader(n: int):
    return get_model("mockllm/model", custom_outputs=[mock_output(assessment({}, 2, 0.9)) for _ in range(n)])


def test_replay_candidate_judges_the_stored_candidate(pairs_file):
    path = pairs_file(GOOD_ROWS)
    grader = _grader(2)
    (log,) = inspect_eval(vert(data=str(path)), model="none", model_roles={"grader": grader}, display="none")
    assert log.status == "success"
    by_id = {s.id: s for s in log.samples}
    assert by_id["r1"].output.completion == "Small left pleural effusion."
    assert by_id["r2"].output.completion == "Left upper lobe nodule, 8 mm."
    samples = [resolve_sample_attachments(s) for s in log.samples]
    judge_prompts = [e.input[-1].text for s in samples for e in s.events if e.event == "model"]
    assert any("Left upper lobe nodule, 8 mm." in p for p in judge_prompts)
    assert by_id["r1"].scores["report_judge"].value["vert"] == pytest.approx(0.9)


def test_generate_report_writes_from_indication_and_images(pairs_file, tmp_path):
    (tmp_path / "frontal.png").write_bytes(PNG)
    rows = [
        {
            "id": "g1",
            "reference": "Right lower lobe pneumonia.",
            "indication": "Fever and cough.",
            "modality": "XR",
            "anatomy": "chest",
            "images": ["frontal.png"],
        },
    ]
    path = pairs_file(rows)
    generator = get_model("mockllm/model", custom_outputs=[mock_output("Right lower lobe consolidation.")])
    (log,) = inspect_eval(
        vert(data=str(path), generate=True), model=generator, model_roles={"grader": _grader(1)}, display="none"
    )
    assert log.status == "success"
    sample = resolve_sample_attachments(log.samples[0])
    assert sample.output.completion == "Right lower lobe consolidation."
    generator_call = next(e for e in sample.events if e.event == "model" and e.role is None)
    content = generator_call.input[0].content
    text = " ".join(c.text for c in content if isinstance(c, ContentText))
    assert "Fever and cough." in text and "chest" in text
    assert "Right lower lobe pneumonia." not in text  # the reference never reaches the generator
    assert sum(isinstance(c, ContentImage) for c in content) == 1


def test_generated_reports_are_not_compared_with_experts_of_stored_candidates(pairs_file):
    path = pairs_file(GOOD_ROWS)
    generator = get_model("mockllm/model", custom_outputs=[mock_output("Generated.") for _ in GOOD_ROWS])
    (log,) = inspect_eval(
        vert(data=str(path), generate=True), model=generator, model_roles={"grader": _grader(2)}, display="none"
    )
    assert log.status == "success"
    assert all(s.metadata["candidate"] is None and s.metadata["expert"] is None for s in log.samples)
    assert all(s.scores["report_judge"].metadata["expert_score"] is None for s in log.samples)
    assert not any("kendall_tau" in name for name in log.results.scores[0].metrics)


def test_generate_report_missing_image_names_sample_and_field(pairs_file):
    path = pairs_file([{"id": "g2", "reference": "Normal.", "images": ["missing.png"]}])
    generator = get_model("mockllm/model", custom_outputs=[mock_output("Normal.")])
    (log,) = inspect_eval(
        vert(data=str(path), generate=True), model=generator, model_roles={"grader": _grader(1)}, display="none"
    )
    assert log.status == "error"
    assert "sample 'g2', field 'images': no such file" in log.error.message
