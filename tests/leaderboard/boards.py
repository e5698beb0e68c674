"""A small leaderboard built from real runs: two comparable systems, and runs that must not be ranked with them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import EvalLog

from radiology_tasks.leaderboard.board import Settings, build_leaderboard
from radiology_tasks.leaderboard.bundle import SystemCard, write_bundle
from tests.leaderboard.runs import SYSTEM_B, edited, run_task, scripted_judge, write_candidates, write_data


@dataclass
class Fixture:
    """The runs, their bundles and the leaderboard built from them."""

    root: Path
    logs: dict[str, Path]
    bundles: dict[str, Path]
    leaderboard: dict[str, Any]
    out: Path


def build(root: Path, resamples: int = 500) -> Fixture:
    """Run the systems with the scripted judge, bundle A and B, and build the leaderboard into `root/site`."""
    data = write_data(root)
    system_b = write_candidates(root, SYSTEM_B)
    with pytest.MonkeyPatch.context() as monkeypatch, scripted_judge(monkeypatch):
        logs = {
            "A": run_task(root / "logs-a", data=str(data)),
            "B": run_task(root / "logs-b", data=str(data), candidates=str(system_b)),
            "other judge": run_task(root / "logs-c", judge="openai-api/stubsvc/other-judge", data=str(data)),
            "brief": run_task(root / "logs-d", data=str(data), candidates=str(system_b), detail="brief"),
        }

    def forge(log: EvalLog) -> None:
        score = log.samples[0].scores["report_judge"]
        score.value = {**score.value, "vert": 1.0}

    logs["forged"] = edited(logs["B"], forge, "forged.eval")
    bundles = {
        "A": write_bundle(
            [logs["A"]],
            root / "bundle-a",
            SystemCard(name="System A", institution="Demo Hospital", paper="https://x.org"),
        ).parent,
        "B": write_bundle(
            [logs["B"]], root / "bundle-b", SystemCard(name="System B", code="javascript:alert(1)")
        ).parent,
    }
    out = root / "site"
    inputs = [bundles["A"], bundles["B"], logs["other judge"], logs["brief"], logs["forged"]]
    leaderboard = build_leaderboard(inputs, out, Settings(resamples=resamples, seed=0))
    return Fixture(root, logs, bundles, leaderboard, out)
