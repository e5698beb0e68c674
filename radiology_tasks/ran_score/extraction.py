"""Asking the judge for one report's finding labels: every asked label in one call (batch) or one call per label.

The result of one report (`ReportLabels`) keeps every label of the taxonomy, derived ones computed, and for each
label that could not be had its reason code and detail: ``invalid_response_format`` or ``truncated`` (the judge
answered but the label could not be read, see `scorers.ran_score.reading`), a judge failure of
`radiology_tasks.core.judge` (``judge_context_exceeded``, ``judge_refused``, ``judge_request_rejected``), or
``no_response`` (an empty report). A label is never set to 0 for want of an answer.
"""

from __future__ import annotations

import asyncio
from dataclasses import KW_ONLY, dataclass, field
from typing import Any, Literal, get_args

from inspect_ai.model import GenerateConfig, Model
from pydantic import BaseModel, Field

from radiology_tasks.core.constrain import ConstrainedConfig
from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.judge import JudgeResult, ask_judge
from radiology_tasks.scorers.ran_score.contract import EVIDENCE_MAX_CHARS
from radiology_tasks.scorers.ran_score.reading import LabelReading, read_batch_answer, read_label_answer
from radiology_tasks.scorers.taxonomy import LabelEntry, Taxonomy
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

Extraction = Literal["batch", "per_label"]
"""``batch``: one judge call per report returns every asked label; ``per_label``: one call per label."""

EXTRACTIONS: tuple[Extraction, ...] = get_args(Extraction)

LabelSource = Literal["judge", "cache", "file"]
"""Where a report's labels came from: the judge now, the reference-label cache, or a label file."""

DETAIL_MAX_CHARS = 300
"""Longest judge-failure detail kept per label (the full provider message stays in the attempt)."""

TEMPLATES: dict[Extraction, str] = {"batch": "ran_score/extract_labels", "per_label": "ran_score/extract_label"}


class ReportLabels(BaseModel):
    """One report's labels and how they were had (kept in the sample's store and in `Score.metadata`).

    Attributes:
        source: Where the labels came from.
        labels: Every label key of the taxonomy: 0, 1 or None when unknown.
        evidence: The passage quoted for each label read as 1.
        unscored: ``key -> [reason code, detail]`` for each None label.
        evidence_not_in_report: Keys whose evidence is not found in the report (case and spacing ignored).
        attempts: Every judge call made now, each with the label asked (None in batch mode).
        calls, retried, truncated, input_tokens, output_tokens: The judge's cost for this report now.
        constraint: How the judge's output was constrained.
    """

    source: LabelSource
    labels: dict[str, int | None]
    evidence: dict[str, str] = Field(default_factory=dict)
    unscored: dict[str, tuple[str, str]] = Field(default_factory=dict)
    evidence_not_in_report: list[str] = Field(default_factory=list)
    attempts: list[dict[str, Any]] = Field(default_factory=list)
    calls: int = 0
    retried: bool = False
    truncated: bool = False
    input_tokens: int = 0
    output_tokens: int = 0
    constraint: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every label is known."""
        return not self.unscored


def extraction_prompt(taxonomy: Taxonomy, labels: list[LabelEntry], report: str, extraction: Extraction) -> str:
    """The judge prompt asking about `labels` in `report` (neutralised here: reports are untrusted)."""
    return render(
        TEMPLATES[extraction],
        rules=taxonomy.rules,
        labels=labels,
        report=neutralize_candidate(report),
        evidence_max=EVIDENCE_MAX_CHARS,
    )


def with_derived(
    taxonomy: Taxonomy, asked: dict[str, int | None], unscored: dict[str, tuple[str, str]]
) -> tuple[dict[str, int | None], dict[str, tuple[str, str]]]:
    """Every label's value, derived labels computed; a derived label left unknown gets the first missing reason."""
    labels = taxonomy.complete(asked)
    reasons = dict(unscored)
    for label in taxonomy.labels:
        if not label.asked and labels[label.key] is None:
            missing = [key for key in asked if asked[key] is None]
            code = unscored[missing[0]][0]
            reasons[label.key] = (code, f"derived from the asked labels; unknown: {', '.join(missing)}")
    return labels, {key: reasons[key] for key in taxonomy.keys if key in reasons}


def unscored_report(taxonomy: Taxonomy, code: str, detail: str) -> ReportLabels:
    """A report none of whose labels could be had (an empty report, a generator failure)."""
    return ReportLabels(
        source="judge", labels=dict.fromkeys(taxonomy.keys), unscored=dict.fromkeys(taxonomy.keys, (code, detail))
    )


def _normalized(text: str) -> str:
    return " ".join(text.split()).casefold()


def evidence_not_in(report: str, evidence: dict[str, str]) -> list[str]:
    """Keys whose evidence does not occur in `report` (raw or neutralised), case and spacing ignored."""
    texts = {_normalized(report), _normalized(neutralize_candidate(report))}
    return [key for key, span in evidence.items() if not any(_normalized(span) in text for text in texts)]


def _problems(result: JudgeResult[LabelReading], keys: list[str]) -> dict[str, tuple[str, str]]:
    """Reason code and detail for each of `keys` the kept answer does not give."""
    if result.reading is None:
        # The provider's full message (kept in the attempt) can hold the whole request; each label keeps its gist.
        lines = [line.strip() for line in (result.failure_detail or "").splitlines() if line.strip()]
        gist = lines[-1][:DETAIL_MAX_CHARS] if lines else ""
        return dict.fromkeys(keys, (str(result.failure), gist))
    code = result.unreadable_reason
    return {key: (code, problem) for key, problem in result.reading.problems.items()}


@dataclass(eq=False)
class Extractor:
    """Asks one judge for report labels under one setup (taxonomy, mode, constraint, budget, retries).

    Attributes:
        judge: The judge model.
        taxonomy: The labels asked for.
        extraction: All labels in one answer (``batch``) or one answer per label (``per_label``).
        constrained: How the judge's answers are constrained, with the generate config that does it.
        max_tokens: The token budget of each answer.
        temperature: The judge's sampling temperature.
        retries: How many times an unreadable answer is asked again.
        config: The generate config sent: the constraint's, with the budget and temperature.
    """

    judge: Model
    taxonomy: Taxonomy
    extraction: Extraction
    constrained: ConstrainedConfig
    _: KW_ONLY
    max_tokens: int
    temperature: float
    retries: int
    config: GenerateConfig = field(init=False)

    def __post_init__(self) -> None:
        self.config = self.constrained.config.merge(
            GenerateConfig(max_tokens=self.max_tokens, temperature=self.temperature)
        )

    async def _ask(self, report: str, labels: list[LabelEntry]) -> tuple[JudgeResult[LabelReading], list[str]]:
        keys = [label.key for label in labels]
        if self.extraction == "batch":

            def read(answer: str) -> LabelReading:
                return read_batch_answer(answer, keys, report=report)
        else:

            def read(answer: str) -> LabelReading:
                return read_label_answer(answer, keys[0], report=report)

        prompt = extraction_prompt(self.taxonomy, labels, report, self.extraction)
        return await ask_judge(self.judge, prompt, self.config, read, retries=self.retries), keys

    async def extract(self, report: str) -> ReportLabels:
        """Every label of `report` as the judge reads it now."""
        asked = self.taxonomy.asked
        groups = [asked] if self.extraction == "batch" else [[label] for label in asked]
        outcomes = await asyncio.gather(*(self._ask(report, group) for group in groups))
        values: dict[str, int | None] = {}
        evidence: dict[str, str] = {}
        unscored: dict[str, tuple[str, str]] = {}
        attempts: list[dict[str, Any]] = []
        for result, keys in outcomes:
            reading = result.reading
            for key in keys:
                values[key] = reading.labels.get(key) if reading else None
            if reading:
                evidence |= reading.evidence
            unscored |= _problems(result, keys)
            label = keys[0] if self.extraction == "per_label" else None
            attempts += [{"label": label, **attempt.as_dict()} for attempt in result.attempts]
        labels, unscored = with_derived(self.taxonomy, values, unscored)
        results = [result for result, _ in outcomes]
        return ReportLabels(
            source="judge",
            labels=labels,
            evidence=evidence,
            unscored=unscored,
            evidence_not_in_report=evidence_not_in(report, evidence),
            attempts=attempts,
            calls=sum(len(r.attempts) for r in results),
            retried=any(r.retried for r in results),
            truncated=any(r.truncated for r in results),
            input_tokens=sum(r.input_tokens for r in results),
            output_tokens=sum(r.output_tokens for r in results),
            constraint=self.constrained.description,
        )

    def cache_setup(self, contract: OutputContract) -> dict[str, Any]:
        """What of the setup shapes the answer besides the report, for the reference-label cache key."""
        placeholder = "\x00report\x00"
        groups = [self.taxonomy.asked] if self.extraction == "batch" else [[x] for x in self.taxonomy.asked]
        return {
            "extraction": self.extraction,
            "prompts": [extraction_prompt(self.taxonomy, group, placeholder, self.extraction) for group in groups],
            "taxonomy": self.taxonomy.model_dump(mode="json"),
            "constraint": self.constrained.method,
            "contract": [contract.gbnf, contract.json_schema, contract.regex],
            "temperature": self.config.temperature,
        }
