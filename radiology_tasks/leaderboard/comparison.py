"""What two runs must share to be ranked together, and how a run offered to the leaderboard is held.

Both the systems' boards (`radiology_tasks.leaderboard.board`) and the judges' boards
(`radiology_tasks.leaderboard.judges`) compare runs this way.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from radiology_tasks.leaderboard import DEFAULT_MAX_UNSCORED
from radiology_tasks.leaderboard.bundle import judge_settings, task_config
from radiology_tasks.leaderboard.evidence import RunEvidence


@dataclass
class Submission:
    """One run offered to the leaderboard, with the system it belongs to and what is wrong with it."""

    system: dict[str, Any]
    track: str | None
    log: Path
    run: RunEvidence | None
    problems: list[str] = field(default_factory=list)
    coverage: tuple[int, int] | None = None
    """(the dataset's samples the run covers, the dataset's samples), when the data could be loaded."""


@dataclass(frozen=True)
class Settings:
    """How intervals and tests are computed, stated in every output."""

    confidence: float = 0.95
    resamples: int = 1000
    seed: int = 0
    max_unscored: float = DEFAULT_MAX_UNSCORED
    trial: bool = False
    """Rank runs on part of their dataset (`-T limit`) on boards marked as trials, never beside full runs."""


def trial_of(submission: Submission, settings: Settings) -> dict[str, int] | None:
    """The trial marker of a board on a trial leaderboard: how many of the dataset's samples its runs cover."""
    if not settings.trial or submission.coverage is None:
        return None
    covered, total = submission.coverage
    return {"samples": covered, "dataset_samples": total}


def digest(value: Any) -> str:
    """A short SHA-256 of `value` as sorted JSON, to show that two settings are or are not the same."""
    return hashlib.sha256(json.dumps(value, sort_keys=True, default=str).encode()).hexdigest()[:12]


def comparability(run: RunEvidence) -> dict[str, Any]:
    """Everything that must be equal for two runs to be ranked together (besides task, score, dataset, track)."""
    fingerprint = run.fingerprint
    return {
        # The files' SHA-256 pins the data, so a downloaded copy and the hub revision it came from compare equal;
        # logs made before hub data was hashed are pinned by their revision instead.
        "data revision": {
            "layout": fingerprint.get("layout"),
            "data_sha256": fingerprint.get("data_sha256") or f"revision {fingerprint.get('revision')}",
            "reports_sha256": fingerprint.get("reports_sha256"),
        },
        "sample set": run.sample_ids_sha256(),
        "task version": run.task_version,
        "prompt template set": digest(run.templates),
        "task configuration": task_config(run),
        "judge": judge_settings(run),
    }


def _shown(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def difference(setting: dict[str, Any], board: dict[str, Any]) -> str:
    """Each setting that is not the board's, showing only the differing fields of a setting with fields."""
    parts = []
    for name in board:
        mine, theirs = setting[name], board[name]
        if mine == theirs:
            continue
        if isinstance(mine, dict) and isinstance(theirs, dict):
            fields = sorted(k for k in {*mine, *theirs} if mine.get(k) != theirs.get(k))
            shown = ", ".join(f"{k}: {_shown(mine.get(k))} vs the board's {_shown(theirs.get(k))}" for k in fields)
        else:
            shown = f"{_shown(mine)} vs the board's {_shown(theirs)}"
        parts.append(f"{name} differs ({shown})")
    return "; ".join(parts)


def _sample_set_difference(run: RunEvidence, board_run: RunEvidence) -> str:
    mine, theirs = {s.id for s in run.samples}, {s.id for s in board_run.samples}
    return (
        f"sample set differs ({len(mine)} samples, {len(mine & theirs)} of them among the board's {len(theirs)}; "
        "runs on part of the data are compared only on the same samples: give them the same -T limit and -T seed)"
    )


def not_comparable(setting: dict[str, Any], board: dict[str, Any], run: RunEvidence, board_run: RunEvidence) -> str:
    """Why a run is not ranked on a board: each setting that differs, the sample set in counts of samples."""
    parts = []
    if setting.get("sample set") != board.get("sample set"):
        parts.append(_sample_set_difference(run, board_run))
    rest = difference(
        {k: v for k, v in setting.items() if k != "sample set"}, {k: v for k, v in board.items() if k != "sample set"}
    )
    return "not comparable: " + "; ".join(part for part in (*parts, rest) if part)
