"""The documents of the lm-eval tasks: report pairs loaded by the same loader as the Inspect tasks.

lm-eval calls a task's ``custom_dataset`` hook with the task's metadata, which includes whatever the user
passes with ``--metadata '{"data": "pairs.jsonl"}'``. Each document keeps its `ReportPair` as JSON, so the
hooks read back exactly the pair the loader validated (an Arrow table would reshape nested fields).

`judged_pairs` is the hook of every task that judges the data's pairs as they are; a family whose task needs
only some of them (those with questions, or with labels) writes its own hook in its package with
`documents_where`, so this module names no family.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import LoadedPairs, load_pairs
from radiology_tasks.core.records import ReportPair

SPLIT = "test"
"""The one split every task reads (``test_split`` in the YAML files)."""

logger = logging.getLogger(__name__)

DATA_OPTIONS = ("data", "candidates", "reports", "revision", "on_bad_rows")
"""The ``--metadata`` keys that choose the data, named as the Inspect tasks' ``-T`` parameters."""


def data_options(metadata: dict[str, Any]) -> dict[str, Any]:
    """The data options among the task's metadata (lm-eval adds keys of its own, such as ``version``)."""
    options = {key: metadata[key] for key in DATA_OPTIONS if metadata.get(key) is not None}
    for key, value in options.items():
        if not isinstance(value, str):
            raise InputError(f"--metadata {key} must be a string, got {value!r}")
    return options


def _documents(loaded: LoadedPairs, pairs: list[ReportPair], *, chosen: bool, left_out: str = "") -> dict[str, Any]:
    """One split of `pairs`, the usable ones of `loaded`; says what was left out and why (`left_out`).

    Without a chosen data source it says so too: lm-eval passes a misspelt ``--metadata`` key on silently.
    """
    import datasets

    if len(pairs) < len(loaded.pairs):
        logger.warning(
            "radiology-tasks: %d of %d report pairs in %s are left out (%s)",
            len(loaded.pairs) - len(pairs),
            len(loaded.pairs),
            loaded.source,
            left_out,
        )
    log = logger.info if chosen else logger.warning
    log(
        "radiology-tasks: %d report pairs from %s%s",
        len(pairs),
        loaded.source,
        "" if chosen else ' (the bundled synthetic set; choose your data with --metadata \'{"data": "FILE"}\')',
    )
    rows = [{"id": pair.id, "pair": pair.model_dump_json()} for pair in pairs]
    return {SPLIT: datasets.Dataset.from_list(rows)}


def report_pair(doc: dict[str, Any]) -> ReportPair:
    """The report pair a document holds."""
    return ReportPair.model_validate_json(doc["pair"])


def documents_where(
    metadata: dict[str, Any],
    keep: Callable[[ReportPair], bool],
    *,
    having: str,
    left_out: str,
    default_data: str | None = None,
    require_candidate: bool = False,
) -> dict[str, Any]:
    """The documents of the pairs `keep` accepts, for a task that needs only some of the data's pairs.

    Args:
        metadata: The task's metadata as lm-eval passes it (the data options among it).
        keep: Whether a pair is usable by the task.
        having: What a usable pair has, as the error names it when none does ("questions (a 'qa' list)").
        left_out: Why the other pairs are left out, as the warning counting them says ("no questions").
        default_data: The dataset read when no data is chosen; None: the bundled demo set.
        require_candidate: Whether every pair must have a candidate report.

    Raises:
        InputError: when no pair of the data is usable.
    """
    options = data_options(metadata)
    loaded = load_pairs(options.pop("data", None) or default_data, require_candidate=require_candidate, **options)
    pairs = [pair for pair in loaded.pairs if keep(pair)]
    if not pairs:
        raise InputError(f"no report in {loaded.source} has {having}")
    return _documents(loaded, pairs, chosen=metadata.get("data") is not None, left_out=left_out)


def judged_pairs(**metadata: Any) -> dict[str, Any]:
    """Pairs with a candidate report, for the GREEN/VERT judge tasks (bundled demo set by default)."""
    options = data_options(metadata)
    loaded = load_pairs(options.pop("data", None), require_candidate=True, **options)
    return _documents(loaded, loaded.pairs, chosen=metadata.get("data") is not None)
