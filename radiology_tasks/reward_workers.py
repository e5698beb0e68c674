"""Worker processes for reward calls: each runs an async function on a job, in its own Python process.

Inspect's evaluation of a judged sample costs CPU in the process that runs it (the sample's transcript, its
events, its log record), so one process caps a reward's rate however fast the judge answers, on a training node
with cores to spare. A `WorkerPool` keeps some Python processes, each judging one part of a call at a time.

A worker is started as ``python -c`` with a small boot script rather than through `multiprocessing`: its spawn
start method runs the parent's main script again in every child (a training script without an ``if __name__ ==
"__main__"`` guard would start training there), and forking a process that holds an event loop, threads or a
GPU context is unsafe. The boot script takes the parent's ``sys.path``, then serves jobs over a socket pair that
carries pickled (function, job) pairs one way and ``("ok", result)`` or ``("error", exception)`` the other.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import traceback
import weakref
from collections.abc import Awaitable, Callable, Sequence
from multiprocessing.connection import Connection
from typing import Any, TypeVar, cast

from radiology_tasks.core.errors import InputError

Job = TypeVar("Job")
Result = TypeVar("Result")

BOOT = (
    "import sys\n"
    "from multiprocessing.connection import Connection\n"
    "connection = Connection(int(sys.argv[1]))\n"
    "sys.path[:] = connection.recv()\n"
    "from radiology_tasks.reward_workers import serve\n"
    "serve(connection)\n"
)
"""What a worker process runs: the parent's import path, then `serve` on the connection whose descriptor it is
given."""

STOP_SECONDS = 10.0
"""How long `Worker.close` waits for a worker to finish before killing it."""


def serve(connection: Connection) -> None:
    """Run each (function, job) received, in a fresh event loop, and send back its result or its error, until the
    parent closes its end."""
    while True:
        try:
            function, job = connection.recv()
        except EOFError:
            return
        try:
            reply: tuple[str, Any] = ("ok", asyncio.run(function(job)))
        except Exception as error:
            reply = ("error", portable(error))
        try:
            connection.send(reply)
        except Exception as error:  # a result that cannot be pickled
            connection.send(("error", portable(error)))


def portable(error: Exception) -> Exception:
    """The error as it can cross to the parent: an `InputError` as itself, anything else as a `RuntimeError`
    naming its type and message (its traceback is printed on the worker's standard error)."""
    if isinstance(error, InputError):
        return InputError(str(error))
    traceback.print_exception(error, file=sys.stderr)
    return RuntimeError(f"in a reward worker process: {type(error).__name__}: {error}")


class Worker:
    """One worker process and its end of the connection."""

    def __init__(self) -> None:
        ours, theirs = socket.socketpair()
        with theirs:
            self.process = subprocess.Popen(
                [sys.executable, "-c", BOOT, str(theirs.fileno())], pass_fds=(theirs.fileno(),)
            )
        self.connection = Connection(ours.detach())
        self.connection.send(list(sys.path))
        self.lock = threading.Lock()

    @property
    def alive(self) -> bool:
        """Whether the process is still running."""
        return self.process.poll() is None

    def run(self, function: Callable[[Job], Awaitable[Result]], job: Job) -> Result:
        """Run ``function(job)`` in the worker and wait for its result (blocking: call it from a thread).

        Raises:
            InputError: the job's refusal.
            RuntimeError: any other error of the job, or the worker stopped.
        """
        with self.lock:
            try:
                self.connection.send((function, job))
                status, value = self.connection.recv()
            except (EOFError, OSError) as error:
                raise RuntimeError(
                    f"a reward worker process stopped (pid {self.process.pid}, exit code {self.process.poll()})"
                ) from error
        if status == "error":
            raise value
        return cast(Result, value)

    def close(self) -> None:
        """Close the connection, so the worker finishes, and wait for it (killed after `STOP_SECONDS`)."""
        self.connection.close()
        try:
            self.process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def _close_all(workers: list[Worker]) -> None:
    for worker in workers:
        worker.close()
    workers.clear()


class WorkerPool:
    """Up to `size` worker processes, started when first needed; a stopped one is replaced at the next call."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._workers: list[Worker] = []
        # Stops the workers when the pool is collected or the interpreter exits, if `close` was not called.
        self._finalizer = weakref.finalize(self, _close_all, self._workers)

    async def map(self, function: Callable[[Job], Awaitable[Result]], jobs: Sequence[Job]) -> list[Result]:
        """``function(job)`` for each job, each in its own worker at the same time; the results in the jobs' order.

        Raises:
            ValueError: more jobs than workers.
            InputError: a job's refusal (the first, once every job has finished).
            RuntimeError: a job's other error, or a worker that stopped.
        """
        if len(jobs) > self.size:
            raise ValueError(f"{len(jobs)} jobs for {self.size} workers")
        for stopped in [worker for worker in self._workers if not worker.alive]:
            stopped.close()
            self._workers.remove(stopped)
        while len(self._workers) < len(jobs):
            self._workers.append(Worker())
        done = await asyncio.gather(
            *(asyncio.to_thread(worker.run, function, job) for worker, job in zip(self._workers, jobs)),
            return_exceptions=True,
        )
        results: list[Result] = []
        for outcome in done:
            if isinstance(outcome, BaseException):
                raise outcome
            results.append(outcome)
        return results

    def close(self) -> None:
        """Stop every worker (the pool is not used again)."""
        self._finalizer()
