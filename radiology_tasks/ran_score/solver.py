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

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.judge import grader_model
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.ran_score.cache import LabelCache
from radiology_tasks.ran_score.extraction import Extractor, ReportLabels, evidence_not_in, unscored_report
from radiology_tasks.ran_score.label_files import gold_from_metadata
from radiology_tasks.ran_score.options import LabelOptions
from radiology_tasks.scorers.ran_score.contract import batch_contract, label_contract
from radiology_tasks.scorers.taxonomy import Taxonomy

REFERENCE = "ran_score:reference"
CANDIDATE = "ran_score:candidate"
GOLD = "ran_score:gold"


def _from_file(taxonomy: Taxonomy, row: dict[str, int]) -> ReportLabels:
    return ReportLabels(source="file", labels={label.key: row[label.column] for label in taxonomy.labels})


async def read_candidate(reader: Extractor, text: str) -> ReportLabels:
    """The candidate's labels as `reader` reads them; an empty candidate is unscored (``no_response``)."""
    if text.strip():
        return await reader.extract(text)
    return unscored_report(reader.taxonomy, "no_response", "the candidate is empty")


class _Readers:
    """The judge's readings of a run: an extractor per call, and each reference read once per run and cached."""

    def __init__(self, taxonomy: Taxonomy, options: LabelOptions, judge: JudgeOptions, temperature: float) -> None:
        self.taxonomy, self.options, self.judge, self.temperature = taxonomy, options, judge, temperature
        asked = [x.key for x in taxonomy.asked]
        self.contract = batch_contract(asked) if options.extraction == "batch" else label_contract()
        self.root = options.cache_directory
        # One reading per reference per run, whatever the cache: samples sharing a reference wait for the first.
        self.readings: dict[str, ReportLabels] = {}
        self.locks: dict[str, asyncio.Lock] = {}

    def extractor(self) -> Extractor:
        """An extractor asking the `grader` model under the run's setup."""
        model, budget = grader_model(), self.judge.judge_max_tokens
        return Extractor(
            model,
            self.taxonomy,
            self.options.extraction,
            constrained_config(model, self.contract, self.judge.constrain),
            max_tokens=self.contract.max_tokens if budget is None else budget,
            temperature=self.temperature,
            retries=self.judge.judge_retries,
        )

    async def reference(self, report: str) -> ReportLabels:
        """The reference's labels: this run's reading, the cache's, or the judge's now (then cached if complete)."""
        reader = self.extractor()
        model = reader.judge
        identity = {"model_args": model.model_args, "config": model.config.model_dump(exclude_none=True)}
        cache = LabelCache.for_setup(self.root, str(model), identity, reader.cache_setup(self.contract))
        key = f"{cache.directory}|{hashlib.sha256(report.encode()).hexdigest()}"
        async with self.locks.setdefault(key, asyncio.Lock()):
            if key in self.readings:
                return _reused(self.readings[key])
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
                    cache.store(report, known, reading.evidence, str(model))
            self.readings[key] = reading
            return reading


@solver
def extract_findings(options: LabelOptions, judge: JudgeOptions, temperature: float = 0.0) -> Solver:
    """Put each sample's reference, candidate and (when known) radiologist gold labels into its store.

    Args:
        options: Where each side's labels come from (label tables, else the judge), the taxonomy, the extraction
            mode and the reference-label cache; gold labels not in a table come from a sample's ``gold_labels``
            field, when the data has one.
        judge: The judge's constraint, answer budget (None: the contract's) and re-asks.
        temperature: Judge sampling temperature.
    """
    labels = options.load_taxonomy()
    tables = options.tables(labels)
    readers = _Readers(labels, options, judge, temperature)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sample_id = str(state.sample_id)
        if "reference" in tables:
            reference = _from_file(labels, tables["reference"][sample_id])
        else:
            reference = await readers.reference(str(state.metadata["reference"]))
        if "candidate" in tables:
            candidate = _from_file(labels, tables["candidate"][sample_id])
        else:
            candidate = await read_candidate(readers.extractor(), state.output.completion if state.output else "")
        if "gold" in tables:
            gold: dict[str, int] | None = {x.key: tables["gold"][sample_id][x.column] for x in labels.labels}
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
