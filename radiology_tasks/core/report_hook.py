"""After ``inspect eval`` of a radiology task: one line naming the command that shows every metric of the run.

A run logs and shows only its headline metrics; `radiology-tasks report LOG` computes the rest from the log. The
hook prints that command for each finished log of a registered family's task, below Inspect's own summary, unless
the display is off (``--display none``, and `radiology_tasks.api.score`, which runs quietly).

Inspect announces every hook registered when it first starts a model ("hooks enabled: ..."), before any task is
built, so a hook registered when the package is imported would be announced before every evaluation of any
package's task. The hook is registered instead when one of this package's tasks is built (`install_report_hint`,
called by `radiology_tasks.core.task_options.shared_parameters`): inside ``inspect eval``, after that
announcement, so no evaluation announces it, and an evaluation of other tasks never has it. `score()` and the
reward functions build their tasks under `quiet_report_hint`: they print nothing.
"""

from __future__ import annotations

import contextlib
import shlex
from collections.abc import Iterator
from contextvars import ContextVar
from pathlib import Path

from inspect_ai.hooks import Hooks, RunEnd, hooks
from inspect_ai.log import EvalLog
from inspect_ai.util import display_type

from radiology_tasks.core.family import family_of


def local_path(location: str) -> str:
    """A log location as a path when it is a local file (Inspect writes ``file:`` URIs); other URIs as given."""
    for prefix in ("file://", "file:"):
        if location.startswith(prefix):
            return location[len(prefix) :]
    return location


def report_line(log: EvalLog) -> str | None:
    """``All metrics: radiology-tasks report <log>`` for a finished log of a task whose family declares its report
    metrics, else None."""
    family = family_of(log.eval.task.split("/")[-1])
    # A family that declares no run metrics module (a plug-in of an older shape) gets no line to a report that
    # would refuse its log.
    if family is None or family.run_metrics_module is None or not log.location:
        return None
    if log.status != "success":
        return None
    location = local_path(log.location)
    if "://" not in location:
        try:
            location = str(Path(location).resolve().relative_to(Path.cwd().resolve()))
        except ValueError:
            pass
    return f"All metrics: radiology-tasks report {shlex.quote(location)}"


HOOK_NAME = "report_hint"

_QUIET: ContextVar[bool] = ContextVar("radiology_tasks_quiet_report_hint", default=False)
_installed: list[type[Hooks]] = []


class ReportHint(Hooks):
    """Prints `report_line` for each log of the run once Inspect's display has closed."""

    async def on_run_end(self, data: RunEnd) -> None:
        """Print the report command of each finished log (nothing when the display is off)."""
        if display_type() == "none":
            return
        for log in data.logs:
            line = report_line(log)
            if line is not None:
                print(line, flush=True)


def install_report_hint() -> None:
    """Register `ReportHint` with Inspect, once per process, unless called under `quiet_report_hint`.

    Called when a task of this package is built; Inspect calls every registered hook from then on, and ours
    prints for this package's logs only.
    """
    if _QUIET.get() or _installed:
        return
    _installed.append(hooks(name=HOOK_NAME, description="prints the report command of each run")(ReportHint))


@contextlib.contextmanager
def quiet_report_hint() -> Iterator[None]:
    """Build tasks without registering the hint (for evaluations that print nothing, like `score()`'s)."""
    token = _QUIET.set(True)
    try:
        yield
    finally:
        _QUIET.reset(token)
