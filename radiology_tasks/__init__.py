"""Report metrics as Inspect AI tasks; `score`, `score_async` and `reward_function` use them from Python, and
`run_figures` reads every figure of a run from its log.

`InputError` is what they raise for input the caller can fix. All five are imported on first use, so importing the
package (which every `inspect` process does for the task registry) stays light.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from radiology_tasks.api import score, score_async
    from radiology_tasks.core.errors import InputError
    from radiology_tasks.core.run_report import run_figures
    from radiology_tasks.rewards import reward_function

__all__ = ["InputError", "reward_function", "run_figures", "score", "score_async"]

_LAZY = {
    "InputError": "radiology_tasks.core.errors",
    "score": "radiology_tasks.api",
    "score_async": "radiology_tasks.api",
    "reward_function": "radiology_tasks.rewards",
    "run_figures": "radiology_tasks.core.run_report",
}


def __getattr__(name: str) -> object:
    """The public names, imported from their modules on first use."""
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
