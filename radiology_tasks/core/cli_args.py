"""Argument types the `radiology-tasks` subcommands share, whichever family adds the subcommand."""

from __future__ import annotations

import argparse


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
