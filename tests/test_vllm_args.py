"""A vLLM judge's server arguments reach the ``vllm serve`` command Inspect starts.

No code of this package handles them: a role's model args go from ``--model-role grader={model: vllm/...,
model_args: {...}}`` (or ``get_model("vllm/...", **args)``) straight to Inspect's vLLM provider, which turns each
into a ``vllm serve`` flag. The launch is replaced by one that records the command and points the provider at a
local OpenAI-compatible stub, so no GPU or vLLM install is needed and the judge's requests still go somewhere.
"""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai._util import local_server
from inspect_ai.model import get_model
from inspect_ai.model._providers import vllm as vllm_provider

from radiology_tasks.green_vert.tasks import vert
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub


@dataclass
class Launches:
    """The commands and environments the provider launched, and the stand-in processes started for them."""

    port: int = 0
    commands: list[list[str]] = field(default_factory=list)
    envs: list[dict[str, str]] = field(default_factory=list)
    processes: list[subprocess.Popen[str]] = field(default_factory=list)


@pytest.fixture
def launches(monkeypatch: pytest.MonkeyPatch) -> Iterator[Launches]:
    """Record each ``vllm serve`` launch instead of running it; the 'server' is whatever listens on `port`."""
    record = Launches()

    def launch(
        command: list[str], host: str = "0.0.0.0", port: int | None = None, env: dict[str, str] | None = None
    ) -> tuple[subprocess.Popen[str], int, list[str]]:
        full = [*command, "--port", str(record.port)]
        record.commands.append(full)
        record.envs.append(dict(env or {}))
        # A process for the provider to watch and stop, standing in for the server.
        process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], text=True)
        record.processes.append(process)
        return process, record.port, full

    # The provider sets this in os.environ when it starts a server; monkeypatch restores the value before it.
    monkeypatch.setenv("VLLM_CONFIGURE_LOGGING", "0")
    monkeypatch.setitem(sys.modules, "vllm", types.ModuleType("vllm"))  # the provider checks vLLM is installed
    monkeypatch.setattr(local_server, "launch_server_cmd", launch)
    monkeypatch.setattr(vllm_provider, "_vllm_servers", {})  # no server entry outlives the test
    try:
        yield record
    finally:
        for process in record.processes:
            if process.poll() is None:
                process.kill()
            process.wait(timeout=10)


def _port(base_url: str) -> int:
    """The port of a ``http://127.0.0.1:<port>/v1`` URL."""
    return int(base_url.rsplit(":", 1)[1].split("/")[0])


def _flags(command: list[str]) -> dict[str, str | None]:
    """``--flag value`` pairs of a command (None for a bare flag)."""
    flags: dict[str, str | None] = {}
    for i, token in enumerate(command):
        if token.startswith("--"):
            following = command[i + 1] if i + 1 < len(command) else None
            flags[token] = None if following is None or following.startswith("--") else following
    return flags


def _judge_reply(body: dict[str, Any]) -> str:
    return assessment({"c": 1}, 2, 0.5 if "[Overall Accuracy Score]" in body["messages"][-1]["content"] else None)


def test_parallelism_and_prefix_caching_args_become_serve_flags(launches: Launches) -> None:
    with openai_stub(_judge_reply) as server:
        launches.port = _port(server.base_url)
        get_model(
            "vllm/test-org/judge-large",
            tensor_parallel_size=2,
            data_parallel_size=2,
            enable_prefix_caching=True,
            max_model_len=16384,
            lazy_init=False,
            memoize=False,
        )
    (command,) = launches.commands
    assert command[:3] == ["vllm", "serve", "test-org/judge-large"]
    flags = _flags(command)
    assert flags["--tensor-parallel-size"] == "2"
    assert flags["--data-parallel-size"] == "2"
    assert "--enable-prefix-caching" in flags and flags["--enable-prefix-caching"] is None
    assert flags["--max-model-len"] == "16384"


def test_devices_set_the_visible_gpus_and_the_tensor_parallel_size(launches: Launches) -> None:
    with openai_stub(_judge_reply) as server:
        launches.port = _port(server.base_url)
        get_model("vllm/test-org/judge-devices", devices="0,1,2,3", lazy_init=False, memoize=False)
    (command,), (env,) = launches.commands, launches.envs
    assert _flags(command)["--tensor-parallel-size"] == "4"
    assert env["CUDA_VISIBLE_DEVICES"] == "0,1,2,3"


def test_a_false_flag_is_dropped_so_prefix_caching_is_turned_off_by_its_no_flag(launches: Launches) -> None:
    """Inspect leaves out a flag set to False; vLLM caches prefixes by default, so only ``--no-...`` turns it off."""
    with openai_stub(_judge_reply) as server:
        launches.port = _port(server.base_url)
        get_model("vllm/test-org/judge-off", enable_prefix_caching=False, lazy_init=False, memoize=False)
        get_model("vllm/test-org/judge-no", no_enable_prefix_caching=True, lazy_init=False, memoize=False)
    off, no = (_flags(c) for c in launches.commands)
    assert not any("prefix-caching" in flag for flag in off)
    assert "--no-enable-prefix-caching" in no


def test_a_judge_role_with_server_args_scores_through_the_started_server(launches: Launches, tmp_path: Path) -> None:
    """The grader role's model args start the server; the task's judge then asks it, constrained for vLLM."""
    with openai_stub(_judge_reply) as server:
        launches.port = _port(server.base_url)
        judge = get_model("vllm/test-org/judge-role", tensor_parallel_size=2, enable_prefix_caching=True, memoize=False)
        (log,) = inspect_eval(
            vert(limit=2), model="none", model_roles={"grader": judge}, display="none", log_dir=str(tmp_path)
        )
    assert log.status == "success", log.error
    (command,) = launches.commands
    assert command[2] == "test-org/judge-role"
    assert _flags(command)["--tensor-parallel-size"] == "2" and "--enable-prefix-caching" in _flags(command)
    assert len(server.requests) == 2
    assert all(r["model"] == "test-org/judge-role" and "structured_outputs" in r for r in server.requests)
    assert log.samples is not None
    assert [s.scores["report_judge"].value["vert"] for s in log.samples if s.scores] == [0.5, 0.5]
