"""Jinja2 prompt templates, and the one helper that renders them."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

from jinja2 import Environment, StrictUndefined, Template


@cache
def _environment() -> Environment:
    return Environment(
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def template_names() -> list[str]:
    """Names (without the `.jinja` suffix) of every bundled template."""
    return sorted(
        p.name.removesuffix(".jinja") for p in files(__name__).iterdir() if p.name.endswith(".jinja")
    )


@cache
def load_template(name: str) -> Template:
    """Load a bundled template by name; unknown names raise `ValueError` listing the known ones."""
    path = files(__name__) / f"{name}.jinja"
    if not path.is_file():
        raise ValueError(f"unknown prompt template '{name}'; known: {', '.join(template_names())}")
    return _environment().from_string(path.read_text(encoding="utf-8"))


def render(name: str, **variables: Any) -> str:
    """Render template `name`; a variable the template uses but is not given raises an error."""
    return load_template(name).render(**variables)
