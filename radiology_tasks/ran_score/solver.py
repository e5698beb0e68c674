"""The `extract_findings` solver: each sample's reference and candidate labels, from label files or the judge.

Labels go to the sample's store (`REFERENCE`, `CANDIDATE`, `GOLD`) for the `finding_agreement` scorer. A side
with a label file (`-T reference_labels`, `-T candidate_labels`) is read from it and no judge is asked; the
other sides are extracted by the `grader` model. Reference labels are extracted once per run and cached on disk
(`radiology_tasks.ran_score.cache`), so every candidate of a reference and every later run with the same judge
and prompts is compared against the same reading.
"""

from __future__ import annotations

import asyncio
import hashlib

from inspect_ai.solver import Generate, Solver, TaskState, solver

from radiology_tasks.core.constrain import ConstrainMode, constrained_config
from radiology_tasks.core.judge import grader_model
from radiology_tasks.core.judge_options import constrain_param
from radiology_tasks.core.params import choice_param, int_param
from radiology_tasks.ran_score.cache import LabelCache, cache_root
from radiology_tasks.ran_score.extraction import (
    EXTRACTIONS,
    Extraction,
    Extractor,
    ReportLabels,
    evidence_not_in,
    unscored_report,
)
from radiology_tasks.ran_score.label_files import LabelTable, gold_from_metadata, read_label_file
from radiology_tasks.ran_score.taxonomy import load_taxonomy
from radiology_tasks.scorers.ran_score.contract import batch_contract, label_contract
from radiology_tasks.scorers.taxonomy import Taxonomy

REFERENCE = "ran_score:reference"
CANDIDATE = "ran_score:candidate"
GOLD = "ran_score:gold"


def _from_file(taxonomy: Taxonomy, row: dict[str, int]) -> ReportLabels:
    return ReportLabels(source="file", labels={label.key: row[label.column] for label in taxonomy.labels})


def check_judge_options(extraction: object, constrain: object, judge_retries: object, judge_max_tokens: object) -> None:
    """Validate ``-T extraction`` and the shared judge parameters once, when the task is built.

    Raises:
        InputError: naming the parameter and what it accepts.
    """
    choice_param("extraction", extraction, EXTRACTIONS)
    constrain_param(constrain)
    int_param("judge_retries", judge_retries, minimum=0, required=True)
    int_param("judge_max_tokens", judge_max_tokens, minimum=1)


async def read_candidate(reader: Extractor, text: str) -> ReportLabels:
    """The candidate's labels as `reader` reads them; an empty candidate is unscored (``no_response``)."""
    if text.strip():
        return await reader.extract(text)
    return unscored_report(reader.taxonomy, "no_response", "the candidate is empty")


@solver
def extract_findings(
    taxonomy: str | None = None,
    extraction: Extraction = "batch",
    reference_labels: str | None = None,
    candidate_labels: str | None = None,
    gold_labels: str | None = None,
    label_cache: str | None = None,
    constrain: ConstrainMode = "auto",
    judge_retries: int = 1,
    judge_max_tokens: int | None = None,
    temperature: float = 0.0,
) -> Solver:
    """Put each sample's reference, candidate and (when known) radiologist gold labels into its store.

    Args:
        taxonomy: Taxonomy file; None for the bundled 21 labels.
        extraction: ``batch`` (one judge call per report) or ``per_label`` (one call per asked label).
        reference_labels: Label table of the reference reports (then no judge reads them).
        candidate_labels: Label table of the candidate reports (then no judge reads them).
        gold_labels: Radiologists' label table of the reference reports, to check the extractor against;
            otherwise a sample's ``gold_labels`` field, when the data has one.
        label_cache: Reference-label cache directory; None for the default, ``off`` for none.
        constrain: How to constrain the judge's output (`auto` picks what the backend understands).
        judge_retries: Re-asks of an answer that leaves a label unreadable.
        judge_max_tokens: Upper bound on each answer; None sends the contract's budget.
        temperature: Judge sampling temperature.
    """
    check_judge_options(extraction, constrain, judge_retries, judge_max_tokens)
    labels = load_taxonomy(taxonomy)
    tables: dict[str, LabelTable | None] = {
        name: read_label_file(path, labels) if path else None
        for name, path in (("reference", reference_labels), ("candidate", candidate_labels), ("gold", gold_labels))
    }
    contract = batch_contract([x.key for x in labels.asked]) if extraction == "batch" else label_contract()
    root = cache_root(label_cache)
    # One reading per reference per run, whatever the cache: samples sharing a reference wait for the first.
    readings: dict[str, ReportLabels] = {}
    locks: dict[str, asyncio.Lock] = {}

    def extractor() -> Extractor:
        judge = grader_model()
        return Extractor(
            judge,
            labels,
            extraction,
            constrained_config(judge, contract, constrain),
            max_tokens=contract.max_tokens if judge_max_tokens is None else judge_max_tokens,
            temperature=temperature,
            retries=judge_retries,
        )

    async def reference_side(report: str) -> ReportLabels:
        reader = extractor()
        judge = reader.judge
        identity = {"model_args": judge.model_args, "config": judge.config.model_dump(exclude_none=True)}
        cache = LabelCache.for_setup(root, str(judge), identity, reader.cache_setup(contract))
        key = f"{cache.directory}|{hashlib.sha256(report.encode()).hexdigest()}"
        async with locks.setdefault(key, asyncio.Lock()):
            if key in readings:
                return _reused(readings[key])
            cached = cache.load(report)
            if cached is not None:
                reading = ReportLabels(
                    source="cache",
                    labels=dict(cached.labels),
                    evidence=cached.evidence,
                    evidence_not_in_report=evidence_not_in(report, cached.evidence),
                    constraint=reader.constrained.description,
                )
            else:
                reading = await reader.extract(report)
                if reading.complete:
                    known = {k: int(v) for k, v in reading.labels.items() if v is not None}
                    cache.store(report, known, reading.evidence, str(judge))
            readings[key] = reading
            return reading

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sample_id = str(state.sample_id)
        if tables["reference"] is not None:
            reference = _from_file(labels, tables["reference"][sample_id])
        else:
            reference = await reference_side(str(state.metadata["reference"]))
        if tables["candidate"] is not None:
            candidate = _from_file(labels, tables["candidate"][sample_id])
        else:
            candidate = await read_candidate(extractor(), state.output.completion if state.output else "")
        gold_table = tables["gold"]
        if gold_table is not None:
            gold: dict[str, int] | None = {x.key: gold_table[sample_id][x.column] for x in labels.labels}
        else:
            gold = gold_from_metadata(state.metadata.get("metadata") or {}, labels, source=sample_id)
        state.store.set(REFERENCE, reference.model_dump(mode="json"))
        state.store.set(CANDIDATE, candidate.model_dump(mode="json"))
        state.store.set(GOLD, gold)
        return state

    return solve


def _reused(reading: ReportLabels) -> ReportLabels:
    """A reading made for another sample of this run: same labels, no judge cost of its own."""
    return ReportLabels(
        source="cache" if reading.source == "judge" else reading.source,
        labels=reading.labels,
        evidence=reading.evidence,
        unscored=reading.unscored,
        evidence_not_in_report=reading.evidence_not_in_report,
        constraint=reading.constraint,
    )
