"""The template machinery and the shared prompts: every shared template renders with StrictUndefined catching a
missing variable; partials are not templates; each family's folder belongs to a registered family.

A family's own prompts are rendered by its own tests (`tests/<family>/`), which know their variables and pin their
names; this file names no family."""

from __future__ import annotations

import hashlib
from importlib.resources import files
from pathlib import Path

import pytest
from jinja2 import UndefinedError

from radiology_tasks.core.family import families
from radiology_tasks.templates import render, template_hashes, template_names

ROOT = Path(str(files("radiology_tasks.templates")))
SHARED = [name for name in template_names() if "/" not in name]

VARIABLES = {
    "reference": "REFERENCE-TEXT Small left pleural effusion.",
    "candidate": "CANDIDATE-TEXT Small right pleural effusion.",
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
}


@pytest.mark.parametrize("name", SHARED)
def test_every_shared_template_renders(name):
    assert render(name, **VARIABLES).strip()


def test_a_missing_variable_is_an_error():
    with pytest.raises(UndefinedError):
        render(SHARED[0])


def test_an_unknown_template_lists_the_known_ones():
    with pytest.raises(ValueError, match=f"unknown prompt template 'nope'; known: {template_names()[0]}, "):
        render("nope")


def test_partials_are_not_templates_and_names_are_sorted():
    partials = sorted(p.relative_to(ROOT).as_posix() for p in ROOT.rglob("_*.jinja"))
    assert partials, "the shared layouts are partials"
    for partial in partials:
        name = partial.removesuffix(".jinja")
        assert name not in template_names()
        with pytest.raises(ValueError, match=f"unknown prompt template '{name}'"):
            render(name, **VARIABLES)
    assert template_names() == sorted(template_names())
    every = {p.relative_to(ROOT).as_posix().removesuffix(".jinja") for p in ROOT.rglob("*.jinja")}
    assert set(template_names()) == every - {p.removesuffix(".jinja") for p in partials}


def test_each_template_folder_is_a_registered_familys():
    folders = {p.name for p in ROOT.iterdir() if p.is_dir() and any(p.glob("*.jinja"))}
    declared = {folder for family in families() for folder in family.templates}
    assert folders <= declared, "a template folder no registered family declares"
    assert declared <= folders, "a family declares a template folder that holds no template"


@pytest.mark.parametrize("folder", sorted({f for family in families() for f in family.templates}))
def test_template_hashes_cover_the_family_and_the_shared_templates(folder):
    hashes = template_hashes(folder)
    expected = sorted(
        [p.name for p in ROOT.glob("*.jinja")] + [f"{folder}/{p.name}" for p in (ROOT / folder).glob("*.jinja")]
    )
    assert sorted(hashes) == expected
    for name, digest in hashes.items():
        assert digest == hashlib.sha256((ROOT / name).read_bytes()).hexdigest(), name
    others = {f for family in families() for f in family.templates} - {folder}
    assert not any(name.split("/")[0] in others for name in hashes)


def test_hashes_of_a_folder_that_does_not_exist_are_refused():
    with pytest.raises(ValueError, match="no template folder 'nope'"):
        template_hashes("nope")
