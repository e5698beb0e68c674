"""The fields of an option class: each with its `-T` default and its one description.

Kept apart from `radiology_tasks.core.task_options` (which turns option classes into task parameters) so that an
option class imports nothing but this: the classes are read by type checkers and descriptors everywhere.
"""

from __future__ import annotations

import dataclasses
from typing import Any

DOC = "doc"
"""The key of a field's description in its dataclass metadata."""


def option(default: Any, doc: str) -> Any:
    """A field of an option class: its `-T` default and its one description."""
    return dataclasses.field(default=default, metadata={DOC: doc})


def option_docs(options: type[Any]) -> dict[str, str]:
    """The description of each field of an option class, by field name."""
    return {f.name: f.metadata[DOC] for f in dataclasses.fields(options) if DOC in f.metadata}


def option_names(options: type[Any]) -> tuple[str, ...]:
    """The field names of an option class, in declaration order."""
    return tuple(f.name for f in dataclasses.fields(options))
