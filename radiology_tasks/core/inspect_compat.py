"""Every use of Inspect internals, in one place.

The plugin uses Inspect's public API wherever Inspect has one. The names below have no public home yet; when an
Inspect release moves one, importing this module fails with one line naming the name, where it was looked for
and this file, and `tests/core/test_inspect_compat.py` says the same, instead of an ImportError surfacing from
whichever module happened to use it first.

- `PrerequisiteError`: the error Inspect's command line prints as its message alone, without a traceback; every
  error a user can fix inherits from it (`radiology_tasks.core.errors.InputError`).
- `active_generate_config`: the generate config of the running evaluation (`--max-tokens` and the like), which
  a solver merges with its model's own to know the token budget a report was written under.
- `init_display_type`: sets the display of the evaluations that follow; `inspect_ai.eval` takes a `display`
  argument but `eval_async` does not, and `score_async` and the reward functions run through `eval_async`.
- `init_active_model`, `init_model_roles`: bind the run's model and roles as Inspect does before it builds a
  run's tasks, so `radiology_tasks.score` builds a task outside a run in the same context (a judged task given no
  judge refuses then, before any file is written).
"""

from __future__ import annotations

import importlib
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

INTERNALS: dict[str, str] = {
    "PrerequisiteError": "inspect_ai._util.error",
    "active_generate_config": "inspect_ai.model._generate_config",
    "init_display_type": "inspect_ai.util._display",
    "init_active_model": "inspect_ai.model._model",
    "init_model_roles": "inspect_ai.model._model",
}
"""Each internal name used, and the Inspect module it is taken from."""


def moved_message(name: str) -> str:
    """What to say when Inspect no longer has `name` where `INTERNALS` says."""
    return (
        f"inspect_ai {version('inspect_ai')} has no {name} in {INTERNALS[name]}: Inspect moved an internal that "
        "radiology-tasks uses; update radiology_tasks/core/inspect_compat.py"
    )


def internal(name: str) -> Any:
    """`name` from the Inspect module `INTERNALS` takes it from.

    Raises:
        ImportError: Inspect no longer has it there (with `moved_message`).
    """
    try:
        return getattr(importlib.import_module(INTERNALS[name]), name)
    except (ImportError, AttributeError):
        raise ImportError(moved_message(name)) from None


if TYPE_CHECKING:
    from inspect_ai._util.error import PrerequisiteError
    from inspect_ai.model._generate_config import active_generate_config
    from inspect_ai.model._model import init_active_model, init_model_roles
    from inspect_ai.util._display import init_display_type
else:
    PrerequisiteError = internal("PrerequisiteError")
    active_generate_config = internal("active_generate_config")
    init_display_type = internal("init_display_type")
    init_active_model = internal("init_active_model")
    init_model_roles = internal("init_model_roles")

__all__ = [
    "INTERNALS",
    "PrerequisiteError",
    "active_generate_config",
    "init_active_model",
    "init_display_type",
    "init_model_roles",
    "internal",
    "moved_message",
]
