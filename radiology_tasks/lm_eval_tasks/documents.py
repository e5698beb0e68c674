"""The documents of the lm-eval tasks: report pairs loaded by the same loader as the Inspect tasks.

lm-eval calls a task's ``custom_dataset`` hook with the task's metadata, which includes whatever the user
passes with ``--metadata '{"data": "pairs.jsonl"}'``. Each document keeps its `ReportPair` as JSON, so the
hooks read back exactly the pair the loader validated (an Arrow table would reshape nested fields).
"""

from __future__ import annotations

import logging
from typing import Any

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.loading import LoadedPairs, load_pairs
from radiology_tasks.core.records import ReportPair

SPLIT = "test"
"""The one split every task reads (``test_split`` in the YAML files)."""

logger = logging.getLogger(__name__)

DATA_OPTIONS = ("data", "candidates", "reports", "revision", "on_bad_rows")
"""The ``--metadata`` keys that choose the data, named as the Inspect tasks' ``-T`` parameters."""


def _data_options(metadata: dict[str, Any]) -> dict[str, Any]:
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


def judged_pairs(**metadata: Any) -> dict[str, Any]:
    """Pairs with a candidate report, for the GREEN/VERT judge tasks (bundled demo set by default)."""
    options = _data_options(metadata)
    loaded = load_pairs(options.pop("data", None), require_candidate=True, **options)
    return _documents(loaded, loaded.pairs, chosen=metadata.get("data") is not None)


def pairs_with_gold_labels(**metadata: Any) -> dict[str, Any]:
    """Reports with radiologists' labels (``gold_labels``), for Ran Score extraction (bundled demo by default)."""
    from radiology_tasks.ran_score.label_files import GOLD_FIELD
    from radiology_tasks.ran_score.tasks import DEMO_DATA

    options = _data_options(metadata)
    loaded = load_pairs(options.pop("data", None) or DEMO_DATA, **options)
    pairs = [pair for pair in loaded.pairs if pair.metadata.get(GOLD_FIELD) is not None]
    if not pairs:
        raise InputError(f"no report in {loaded.source} has gold labels (a '{GOLD_FIELD}' object)")
    return _documents(loaded, pairs, chosen=metadata.get("data") is not None, left_out=f"no {GOLD_FIELD}")


def pairs_with_questions(**metadata: Any) -> dict[str, Any]:
    """Pairs with a candidate report and CT-FineBench questions (reports without questions are left out)."""
    options = _data_options(metadata)
    loaded = load_pairs(options.pop("data", None), require_candidate=True, **options)
    pairs = [pair for pair in loaded.pairs if pair.qa]
    if not pairs:
        raise InputError(f"no report in {loaded.source} has questions (a 'qa' list)")
    return _documents(loaded, pairs, chosen=metadata.get("data") is not None, left_out="no questions")
