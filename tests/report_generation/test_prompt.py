"""The generation prompt: the section(s) of the track asked for, the study and patient as the data gives them,
the prior study marked as the prior, and each image introduced with its view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from radiology_tasks.core.records import ReportPair
from radiology_tasks.core.report_input import generation_prompt, image_sequence
from radiology_tasks.core.task_data import DataOptions, report_dataset
from tests.real_layouts import rexrank_file, rexrank_images


def _pair(**fields: Any) -> ReportPair:
    return ReportPair.model_validate({"id": "s1", "reference": "Never shown.", **fields})


def test_the_findings_track_asks_for_the_findings_section_alone() -> None:
    prompt = generation_prompt(_pair(section="findings"))
    assert prompt.startswith("You are writing the findings section of a radiology report.\n")
    assert "impression" not in prompt.lower()


def test_the_findings_impression_track_asks_for_both_sections_headed_as_the_reference_is() -> None:
    prompt = generation_prompt(_pair(section="findings_impression"))
    assert prompt.startswith("You are writing the findings section and the impression section of a radiology report.")
    assert 'Begin the findings with "Findings:" and the impression with "Impression:".' in prompt


def test_an_impression_asks_for_the_impression_alone() -> None:
    prompt = generation_prompt(_pair(section="impression", metadata={"findings": "Clear lungs."}))
    assert prompt.startswith("You are writing the impression section of a radiology report.\n")
    assert "Write the impression in English" in prompt and "Findings:" not in prompt
    assert "<findings>\nClear lungs.\n</findings>" in prompt  # the findings it summarises


def test_the_context_is_shown_as_the_data_holds_it_and_what_is_absent_is_left_out() -> None:
    full = generation_prompt(_pair(age="50-60", sex="M", indication="Cough.", comparison="None."))
    assert "Patient's age: 50-60\nPatient's sex: M\nClinical indication: Cough.\nComparison: None.\n" in full
    only_comparison = generation_prompt(_pair(comparison="None."))
    assert "Comparison: None." in only_comparison
    assert not any(line in only_comparison for line in ("Clinical indication", "Patient's age", "Patient's sex"))


def test_the_prior_report_is_marked_as_the_prior_studys() -> None:
    prompt = generation_prompt(_pair(images=["a.png"], prior={"images": ["old.png"], "report": "Small effusion."}))
    assert "The report of the patient's prior study" in prompt
    assert "<prior_report>\nSmall effusion.\n</prior_report>" in prompt
    assert "The image of this study follows." in prompt
    assert "Then comes the image of the prior study, each introduced as the prior study's." in prompt


def test_each_image_is_introduced_with_its_view_and_the_prior_images_as_the_priors() -> None:
    pair = _pair(images=["lat.png", "ap.png"], views=["lateral", None], prior={"images": ["old1.png", "old2.png"]})
    assert "The 2 images of this study follow, each introduced by a line naming its view where it is known." in (
        generation_prompt(pair)
    )
    assert image_sequence(pair) == [
        ("This study, image 1 of 2 (view: lateral):", "lat.png"),
        ("This study, image 2 of 2:", "ap.png"),
        ("Prior study, image 1 of 2:", "old1.png"),
        ("Prior study, image 2 of 2:", "old2.png"),
    ]


def test_images_without_views_or_priors_follow_the_instruction_unlabelled() -> None:
    assert image_sequence(_pair(images=["a.png", "b.png"])) == [(None, "a.png"), (None, "b.png")]


@pytest.mark.parametrize(
    ("track", "asked", "images"),
    [
        ("findings", "the findings section of", 3),  # two studies: the third has no findings
        ("findings_impression", "the findings section and the impression section of", 4),
    ],
)
def test_a_judge_task_generating_over_rexrank_asks_for_its_tracks_sections(
    tmp_path: Path, track: str, asked: str, images: int
) -> None:
    path = rexrank_file(tmp_path / "predictions.json")
    rexrank_images(path)
    dataset, summary, _ = report_dataset(DataOptions(str(path), track=track, generate=True), require_candidate=True)
    first = str(dataset[0].input)
    assert first.startswith(f"You are writing {asked} a radiology report.\nStudy: XR of the chest.\n")
    assert "Patient's age: 50-60\nPatient's sex: M\nClinical indication: ___-year-old male with cough.\n" in first
    assert summary["images"]["images"] == images
