"""The run's data as the leaderboard finds it on this machine: the options the run named, and whether it is here.

Kept apart from the checks (`radiology_tasks.leaderboard.checks`) so that what reads a run's data again (the checks,
the experts' annotations of `radiology_tasks.leaderboard.experts`, the families' re-scoring) can share it without
importing each other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.hub import HubError
from radiology_tasks.core.loading import resolve_data
from radiology_tasks.core.task_data import DataOptions
from radiology_tasks.leaderboard.evidence import RunEvidence


def run_data_options(run: RunEvidence) -> DataOptions:
    """The data options of the run, as its `-T` arguments gave them."""
    args = run.task_args
    names = ("candidates", "reports", "revision", "layout", "track", "image_root", "expert_scale")
    given: dict[str, Any] = {name: args.get(name) for name in names}
    return DataOptions(run.data_name, **given, on_bad_rows=args.get("on_bad_rows") or "error")


def data_absence(run: RunEvidence) -> str | None:
    """Why the run's data is not on this machine (its file or folder does not exist, or its hub copy cannot be
    fetched: offline and not in the hub cache), or None when it is found, whether or not it then loads."""
    options = run_data_options(run)
    try:
        resolve_data(options.data, layout=options.layout, revision=options.revision)
    except HubError as error:
        return str(error)
    except InputError as error:
        return None if Path(str(options.data)).expanduser().exists() else str(error)
    return None


def data_checked(run: RunEvidence) -> bool:
    """Whether the board checks the run against its data here: a run that is not redacted always is (without its
    data it is refused), a redacted one when its data is found (else it is checked as its log recorded it)."""
    return not run.redacted or data_absence(run) is None
