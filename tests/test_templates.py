"""Every prompt template renders, with StrictUndefined catching a missing variable."""

from __future__ import annotations

import pytest
from jinja2 import UndefinedError

from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS
from radiology_tasks.templates import render, template_names

VARIABLES = {
    "reference": "REFERENCE-TEXT Small left pleural effusion.",
    "candidate": "CANDIDATE-TEXT Small right pleural effusion.",
    "examples": [{"reference": "Ex ref.", "candidate": "Ex cand.", "answer": "[Overall Accuracy Score]:\n0.50"}],
    "error_descriptions": True,
    "detail": "brief",
    "bounds": DETAIL_BOUNDS["brief"],
    "modality": "CT",
    "anatomy": "chest",
    "language": "en",
    "indication": "Cough.",
    "findings": None,
    "n_images": 0,
    "section": "findings",
    "age": "50-60",
    "sex": "F",
    "comparison": "None.",
    "views": False,
    "prior_report": None,
    "n_prior_images": 0,
    "questions": [
        {"id": "q1", "text": "QUESTION-TEXT?", "finding": "F", "attribute": "A", "description": "D", "examples": ["E"]}
    ],
    "answer_max_chars": 80,
    "items": [{"id": "q1", "question": "Q?", "reference": "REFERENCE-TEXT", "candidate": "CANDIDATE-TEXT"}],
    "report": "REFERENCE-TEXT Small left pleural effusion.",
    "max_triplets": 20,
    "finding_max_chars": 40,
    "attribute_max_chars": 24,
    "value_max_chars": 48,
    "schema_findings": [{"id": "f1", "name": "pleural effusion", "aliases": ["effusion"], "description": "D"}],
}


# The Ran Score prompts read one report, not a pair: tests/ran_score/test_prompts.py renders them. The judge
# sensitivity prompts take a split reference or extend a judge prompt: tests/judge_sensitivity/test_templates.py.
# CRIMSON's prompt takes the patient's context: tests/crimson/test_prompt.py.
OWN_TESTS = ("ran_score/", "judge_sensitivity/", "crimson/")


@pytest.mark.parametrize("name", [n for n in template_names() if not n.startswith(OWN_TESTS)])
def test_every_template_renders(name):
    text = render(name, **VARIABLES)
    assert text.strip()
    if name == "ct_finebench/extract":  # the questions are asked of the candidate alone
        assert "CANDIDATE-TEXT" in text and "REFERENCE-TEXT" not in text
    elif name.startswith("ct_finebench/construct_"):  # questions are built from the reference alone
        assert "REFERENCE-TEXT" in text and "CANDIDATE-TEXT" not in text
    elif name != "generate_report":
        assert "REFERENCE-TEXT" in text and "CANDIDATE-TEXT" in text


def test_missing_variable_is_an_error():
    with pytest.raises(UndefinedError):
        render("generate_report")


def test_unknown_template_lists_known_ones():
    with pytest.raises(ValueError, match="unknown prompt template 'nope'; known: .*generate_report"):
        render("nope")


def test_partials_are_not_templates():
    assert template_names() == [
        "crimson/judge",
        "ct_finebench/compare",
        "ct_finebench/construct_attributes",
        "ct_finebench/construct_existence",
        "ct_finebench/construct_triplets",
        "ct_finebench/extract",
        "generate_report",
        "green_vert/formula",
        "green_vert/green",
        "green_vert/rubric",
        "green_vert/sft_judge",
        "green_vert/vert",
        "judge_sensitivity/classify",
        "judge_sensitivity/differences",
        "judge_sensitivity/inject",
        "judge_sensitivity/paraphrase",
        "judge_sensitivity/paraphrase_check",
        "judge_sensitivity/plausibility",
        "ran_score/extract_label",
        "ran_score/extract_labels",
    ]
    with pytest.raises(
        ValueError, match="unknown prompt template 'green_vert/_judge'; known: crimson/judge, ct_finebench/compare, "
    ):
        render("green_vert/_judge", **VARIABLES)


def test_template_hashes_cover_the_family_and_the_shared_templates():
    import hashlib
    from importlib.resources import files
    from pathlib import Path

    from radiology_tasks.templates import template_hashes

    root = Path(str(files("radiology_tasks.templates")))
    hashes = template_hashes("ct_finebench")
    expected = sorted(
        [p.name for p in root.glob("*.jinja")]
        + [f"ct_finebench/{p.name}" for p in (root / "ct_finebench").glob("*.jinja")]
    )
    assert sorted(hashes) == expected
    assert (
        hashes["ct_finebench/extract.jinja"]
        == hashlib.sha256((root / "ct_finebench/extract.jinja").read_bytes()).hexdigest()
    )
    assert not any(name.startswith("green_vert/") for name in hashes)
    with pytest.raises(ValueError, match="no template folder 'nope'"):
        template_hashes("nope")
