"""The logs older releases wrote (`tests/fixtures/old_logs/`), read as the record tests need them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log

OLD_LOGS = Path(__file__).resolve().parent / "fixtures" / "old_logs"


def old_score_metadata(name: str, scorer: str) -> list[dict[str, Any]]:
    """The score metadata `scorer` wrote for each sample of the old log `name` (a log without samples fails)."""
    log = read_eval_log(str(OLD_LOGS / name))
    assert log.samples, f"{name} has no samples"
    metadata = []
    for sample in log.samples:
        assert sample.scores is not None and scorer in sample.scores, f"{name}: sample {sample.id} has no {scorer}"
        metadata.append(dict(sample.scores[scorer].metadata or {}))
    return metadata
