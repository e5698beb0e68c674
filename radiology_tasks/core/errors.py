"""The error type for bad user input: data files, dataset names, task parameters."""

from __future__ import annotations

from radiology_tasks.core.inspect_compat import PrerequisiteError


class InputError(PrerequisiteError, ValueError):
    """Input the user can fix; `inspect eval` prints its one-line message without a traceback.

    Inspect's CLI prints a `PrerequisiteError` as its message alone; being a `ValueError` too keeps it
    catchable as one by library callers.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.args = (message,)

    def __str__(self) -> str:
        return str(self.message)
