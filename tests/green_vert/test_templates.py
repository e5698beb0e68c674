"""The GREEN/VERT judge prompts: each renders with every variable, shows both reports, and pins the folder's names."""

from __future__ import annotations

import pytest

from radiology_tasks.green_vert.family import FAMILY
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS
from radiology_tasks.templates import render, template_names

VARIABLES = {
    "reference": "REFERENCE-TEXT Small left pleural effusion.",
    "candidate": "CANDIDATE-TEXT Small right pleural effusion.",
    "examples": [{"reference": "Ex ref.", "candidate": "Ex cand.", "answer": "[Overall Accuracy Score]:\n0.50"}],
    "error_descriptions": True,
    "detail": "brief",
    "bounds": DETAIL_BOUNDS["brief"],
}
NAMES = ["green_vert/formula", "green_vert/green", "green_vert/rubric", "green_vert/sft_judge", "green_vert/vert"]


def test_the_family_s_prompts_are_these():
    assert FAMILY.templates[0] == "green_vert"
    assert [name for name in template_names() if name.startswith("green_vert/")] == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_prompt_renders_with_both_reports(name):
    text = render(name, **VARIABLES)
    assert "REFERENCE-TEXT" in text and "CANDIDATE-TEXT" in text


@pytest.mark.parametrize("name", NAMES)
def test_a_missing_variable_is_an_error(name):
    from jinja2 import UndefinedError

    with pytest.raises(UndefinedError):
        render(name, **{k: v for k, v in VARIABLES.items() if k != "candidate"})
