"""Jinja2 prompt templates, and the one helper that renders them.

Prompts shared by every task family sit at the top; each family keeps its own in a folder of the same
name (``green_vert/vert.jinja`` is the template ``green_vert/vert``). Files whose name starts with ``_``
are partials (layouts and shared blocks that the prompts pull in with ``{% extends %}`` /
``{% include %}``, by their path from this folder); they are not prompts of their own. Every template sees
two globals, so the category names and their descriptions are written in one place only:
``category_names`` (`radiology_tasks.core.records.CATEGORY_NAMES`) and ``error_type_descriptions``
(`radiology_tasks.core.records.ERROR_TYPE_DESCRIPTIONS`).
"""

from __future__ import annotations

import hashlib
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, Template

from radiology_tasks.core.records import CATEGORY_NAMES, ERROR_TYPE_DESCRIPTIONS

_SUFFIX = ".jinja"
_PARTIAL_PREFIX = "_"


@cache
def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(str(files(__name__))),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    environment.globals.update(
        category_names=CATEGORY_NAMES,
        error_type_descriptions=ERROR_TYPE_DESCRIPTIONS,
    )
    return environment


def template_names() -> list[str]:
    """Names (paths without `.jinja`, e.g. ``green_vert/vert``) of every prompt template, partials excluded."""
    root = Path(str(files(__name__)))
    return sorted(
        p.relative_to(root).as_posix().removesuffix(_SUFFIX)
        for p in root.rglob(f"*{_SUFFIX}")
        if not p.name.startswith(_PARTIAL_PREFIX)
    )


@cache
def load_template(name: str) -> Template:
    """Load a bundled prompt template by name.

    Raises:
        ValueError: For an unknown name or a partial, listing the known names.
    """
    known = template_names()
    if name not in known:
        raise ValueError(f"unknown prompt template '{name}'; known: {', '.join(known)}")
    return _environment().get_template(f"{name}{_SUFFIX}")


def render(name: str, **variables: Any) -> str:
    """Render template `name`; a variable the template uses but is not given raises an error."""
    return load_template(name).render(**variables)


def template_hashes(family: str) -> dict[str, str]:
    """SHA-256 of every template file a family's prompts can draw on: its own folder and the shared top level.

    Keyed by path from this folder (``green_vert/vert.jinja``). Tasks record these in their log metadata, so a
    leaderboard can tell whether a run used the released prompts.
    """
    root = Path(str(files(__name__)))
    folder = root / family
    if not folder.is_dir():
        raise ValueError(f"no template folder '{family}'")
    paths = [*root.glob(f"*{_SUFFIX}"), *folder.rglob(f"*{_SUFFIX}")]
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(paths)}
