"""Hooks of the Ran Score lm-eval task: the model under test labels each reference report's findings.

Its documents are the reports with radiologists' labels (`pairs_with_gold_labels`, the family's demo set when
no data is chosen).

The prompt is the Inspect task's batch extraction prompt, the answer is read by the same `read_batch_answer`
(derived labels such as No Finding computed by the taxonomy), and the corpus F1 against the radiologists'
labels is the same arithmetic as the Inspect task's ``extractor_f1`` metric: a label the answer does not give
is left out of that report's decisions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from radiology_tasks.lm_eval_tasks.documents import documents_where, report_pair
from radiology_tasks.ran_score.extraction import extraction_prompt, with_derived
from radiology_tasks.ran_score.family import FAMILY
from radiology_tasks.ran_score.label_files import GOLD_FIELD, gold_from_metadata
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from radiology_tasks.scorers.ran_score.f1 import F1Table, collect_decisions, f1_table
from radiology_tasks.scorers.ran_score.reading import read_batch_answer
from radiology_tasks.scorers.taxonomy import Taxonomy

LabelPair = tuple[Mapping[str, int], Mapping[str, int | None]]
"""One report's (gold labels, labels read from the answer), keyed by label key."""


def pairs_with_gold_labels(**metadata: Any) -> dict[str, Any]:
    """Reports with radiologists' labels (``gold_labels``), for Ran Score extraction (its demo set by default)."""
    return documents_where(
        metadata,
        lambda pair: pair.metadata.get(GOLD_FIELD) is not None,
        having=f"gold labels (a '{GOLD_FIELD}' object)",
        left_out=f"no {GOLD_FIELD}",
        default_data=FAMILY.default_data,
    )


@cache
def _taxonomy() -> Taxonomy:
    return load_taxonomy()


def labels_prompt(doc: dict[str, Any]) -> str:
    """The Inspect task's batch prompt asking for every label of the document's reference report."""
    taxonomy = _taxonomy()
    return extraction_prompt(taxonomy, taxonomy.asked, report_pair(doc).reference, "batch")


def labels_results(doc: dict[str, Any], results: list[str]) -> dict[str, Any]:
    """Per-document values: ``macro_f1``/``micro_f1`` as (gold, read) label pairs, and ``parse_failure``.

    ``parse_failure`` is 1.0 when any asked label could not be read from the answer.
    """
    taxonomy = _taxonomy()
    pair = report_pair(doc)
    gold = gold_from_metadata(pair.metadata, taxonomy, source=f"id '{pair.id}'")
    if gold is None:
        raise ValueError(f"id '{pair.id}' has no gold labels")
    keys = [label.key for label in taxonomy.asked]
    reading = read_batch_answer(results[0], keys, report=pair.reference)
    unscored = {key: ("invalid_response_format", problem) for key, problem in reading.problems.items()}
    labels, _ = with_derived(taxonomy, reading.labels, unscored)
    labelled: LabelPair = (gold, labels)
    return {"macro_f1": labelled, "micro_f1": labelled, "parse_failure": 1.0 if reading.problems else 0.0}


def _table(pairs: Sequence[LabelPair]) -> F1Table:
    return f1_table(collect_decisions(pairs, _taxonomy().keys, count_unknown_as_wrong=False))


def macro_f1(pairs: Sequence[LabelPair]) -> float:
    """Unweighted mean over labels of each label's F1 against the gold labels, over the corpus."""
    return _table(pairs).macro_f1


def micro_f1(pairs: Sequence[LabelPair]) -> float:
    """F1 of every (report, label) decision of the corpus pooled."""
    return _table(pairs).micro_f1
