"""Argument types the `radiology-tasks` subcommands share, whichever family adds the subcommand."""

from __future__ import annotations

import argparse
import dataclasses
from typing import TypeVar

T = TypeVar("T")


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text}")
    return value


def non_negative_int(text: str) -> int:
    """A whole number of at least 0."""
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 0, got {text}")
    return value


def share(text: str) -> float:
    """A share between 0 and 1."""
    value = float(text)
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"expected a share between 0 and 1, got {text}")
    return value


def options_from_args(options: type[T], args: argparse.Namespace, **renamed: str) -> T:
    """The option dataclass `options` built from the parsed arguments: each field from the argument of its name,
    or of the name `renamed` gives for it (``name="system"``: the field ``name`` from ``--system``).

    Raises:
        ValueError: when `renamed` names a field `options` does not have.
        AttributeError: for a field the arguments lack, naming it (a parser and its option class out of step).
    """
    fields = dataclasses.fields(options)  # type: ignore[arg-type]  # any dataclass type; mypy wants an instance
    unknown = set(renamed) - {f.name for f in fields}
    if unknown:
        raise ValueError(f"{options.__name__} has no field {', '.join(sorted(unknown))}")
    return options(**{f.name: getattr(args, renamed.get(f.name, f.name)) for f in fields})
