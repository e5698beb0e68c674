"""The GREEN/VERT judge scorer: render the prompt, ask the grader until its answer reads, score what it says.

`JudgeSetup` holds what is fixed for a run of the judge (the prompt, the judge and reading options, the examples
shown) and does each step: ask for an answer, and turn it, or the reason there is none, into a score. `judge_report`
judges one sample with it; judge sensitivity asks the same judge through the same setup, in one pass or after a
first pass that lists the differences (`radiology_tasks.judge_sensitivity.scorer`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from inspect_ai.model import GenerateConfig, Model
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import TaskState

from radiology_tasks.core.constrain import constrained_config
from radiology_tasks.core.contract import OutputContract
from radiology_tasks.core.errors import InputError
from radiology_tasks.core.judge import JudgeResult, Reading, ask_judge, grader_model, judge_explanation
from radiology_tasks.core.judge_options import JudgeOptions
from radiology_tasks.core.metrics import expert_metadata, judge_calls, parse_failure_rate
from radiology_tasks.core.records import ErrorCounts, ReportPair
from radiology_tasks.core.unscored import UnscoredPolicy, judged_score
from radiology_tasks.report_judge.options import ReadingOptions
from radiology_tasks.report_judge.records import JudgeRecord
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS, SCORE_ONLY_CONTRACT, Detail, assessment_contract
from radiology_tasks.scorers.report_judge.parse import AssessmentFormatError
from radiology_tasks.scorers.report_judge.reading import (
    BOUNDED_KEYS,
    JUDGE_PROMPTS,
    JudgePrompt,
    ScoreReading,
    score_keys,
)
from radiology_tasks.scorers.untrusted import neutralize_candidate
from radiology_tasks.templates import render

JUDGE_TEMPERATURE = 0.0
"""The judge samples greedily (a re-ask of an unreadable answer raises it, `radiology_tasks.core.judge`)."""

# The score-only prompt is the one `radiology-tasks export-sft` trains fine-tuned judges on.
TEMPLATES: dict[JudgePrompt, str] = {p: f"green_vert/{p}" for p in JUDGE_PROMPTS} | {"score": "green_vert/sft_judge"}

R = TypeVar("R", bound=Reading)

__all__ = [
    "JUDGE_PROMPTS",
    "Asked",
    "JudgePrompt",
    "JudgeSetup",
    "judge_contract",
    "judge_prompt",
    "judge_report",
    "missing_scores",
    "report_judge",
    "score_keys",
]


def judge_contract(prompt: JudgePrompt, detail: Detail = "full") -> OutputContract:
    """The output contract of a judge prompt (sectioned text, with a score section except for GREEN)."""
    if prompt == "score":
        return SCORE_ONLY_CONTRACT
    return assessment_contract(prompt, with_score=prompt != "green", detail=detail)


def judge_prompt(
    prompt: JudgePrompt,
    *,
    reference: str,
    candidate: str,
    examples: Sequence[Mapping[str, str]] | None = None,
    error_descriptions: bool = False,
    detail: Detail = "full",
) -> str:
    """The judge prompt for one report pair (the lm-evaluation-harness tasks render theirs here too).

    The reference and candidate are neutralised here; `examples` must be neutralised by the caller.
    """
    return render(
        TEMPLATES[prompt],
        reference=neutralize_candidate(reference),
        candidate=neutralize_candidate(candidate),
        examples=list(examples or []),
        error_descriptions=error_descriptions,
        bounds=DETAIL_BOUNDS[detail],
        detail=detail,
    )


def missing_scores(result: JudgeResult[R], keys: Sequence[str], part: str = "") -> dict[str, tuple[str, str]]:
    """Reason code and detail for each score the judge's kept answer does not give (`part` prefixes each detail,
    naming the pass of a judge asked twice); every key's when no call gave an answer."""
    reading = result.reading
    if reading is None:
        return {key: (str(result.failure), result.failure_detail or "") for key in keys}
    code = result.unreadable_reason
    return {key: (code, f"{part}{problem}") for key, problem in reading.problems.items()}


def counts_metadata(reading: ScoreReading | None, *, checks: bool = True) -> dict[str, object]:
    """The judge's counts as read, for the per-category metrics and the log viewer; with `checks`, also the formula
    check, the categories read as 0 and the sections ignored as quotations."""
    parts = reading.parts if reading is not None else None
    if reading is None or parts is None:
        return {}

    def counts(part: ErrorCounts | AssessmentFormatError) -> dict[str, int] | None:
        return None if isinstance(part, AssessmentFormatError) else part.as_dict()

    found: dict[str, object] = {
        "matched": None if isinstance(parts.matched, AssessmentFormatError) else parts.matched,
        "predicted_significant": counts(parts.significant),
        "predicted_insignificant": counts(parts.insignificant),
    }
    if checks:
        found |= {
            "formula_check": reading.formula_check,
            "filled_categories": parts.filled_categories,
            "quoted_sections": parts.quoted_sections,
        }
    return found


def _neutralised(example: Mapping[str, str]) -> dict[str, str]:
    return {
        **example,
        "reference": neutralize_candidate(example["reference"]),
        "candidate": neutralize_candidate(example["candidate"]),
    }


@dataclass(frozen=True)
class Asked(Generic[R]):
    """One answer asked for: what the judge gave, and how its answer was constrained."""

    result: JudgeResult[R]
    constraint: str


@dataclass(frozen=True)
class JudgeSetup:
    """What is fixed for a run of the GREEN/VERT judge, and each step of judging one sample with it.

    Attributes:
        prompt: The judge prompt.
        judge: How the judge is asked and what a score it did not give counts as.
        reading: How its answer is asked for and read.
        examples: Few-shot examples placed in the prompt (neutralised when the setup is built).
        error_descriptions: Whether the prompt describes each error category.
    """

    prompt: JudgePrompt = "vert"
    judge: JudgeOptions = field(default_factory=JudgeOptions)
    reading: ReadingOptions = field(default_factory=ReadingOptions)
    examples: tuple[dict[str, str], ...] = ()
    error_descriptions: bool = False

    def __post_init__(self) -> None:
        if self.prompt not in JUDGE_PROMPTS:
            raise InputError(f"prompt must be one of {', '.join(JUDGE_PROMPTS)}; got {self.prompt!r}")
        # Every report text is neutralised, not only the candidate: a reference or an example that contains a
        # delimiter tag would otherwise break the prompt's structure just as well.
        object.__setattr__(self, "examples", tuple(_neutralised(e) for e in self.examples))

    @property
    def keys(self) -> list[str]:
        """The score keys of the prompt, the main one first."""
        return score_keys(self.prompt)

    def prompt_for(self, reference: str, candidate: str) -> str:
        """The one-pass judge prompt for a report pair."""
        return judge_prompt(
            self.prompt,
            reference=reference,
            candidate=candidate,
            examples=self.examples,
            error_descriptions=self.error_descriptions,
            detail=self.reading.detail,
        )

    async def ask_for(
        self, model: Model, text: str, contract: OutputContract, read: Callable[[str], R], *, budget: int | None = None
    ) -> Asked[R]:
        """Ask `text` until `read` reads the answer whole, under the judge options' constraint and retries (`budget`:
        the answer's token budget; None: the contract's)."""
        constrained = constrained_config(model, contract, self.judge.constrain)
        sent = GenerateConfig(max_tokens=budget or contract.max_tokens, temperature=JUDGE_TEMPERATURE)
        result = await ask_judge(model, text, constrained.config.merge(sent), read, retries=self.judge.judge_retries)
        return Asked(result, constrained.description)

    async def ask(self, model: Model, text: str, candidate: str) -> Asked[ScoreReading]:
        """Ask `text` for a GREEN/VERT answer (within `-T judge_max_tokens` when set), read under the reading options
        with the candidate's quotations set apart."""
        return await self.ask_for(
            model,
            text,
            judge_contract(self.prompt, self.reading.detail),
            lambda answer: self.reading.read(answer, prompt=self.prompt, candidate=candidate),
            budget=self.judge.judge_max_tokens,
        )

    def unjudged(
        self,
        why: tuple[str, str],
        record: JudgeRecord,
        *,
        answer: str | None = None,
        policy: UnscoredPolicy | None = None,
    ) -> Score:
        """Every score missing for one reason (code, detail), counted by `policy` (the judge options' by default);
        the record in its metadata."""
        keys = self.keys
        return judged_score(
            dict.fromkeys(keys),
            dict.fromkeys(keys, why),
            policy=policy or self.judge.unscored,
            bounded=BOUNDED_KEYS,
            answer=answer,
            metadata=record.metadata(),
        )

    def scored(
        self, result: JudgeResult[ScoreReading], record: JudgeRecord, *, candidate: str, explanation: str
    ) -> Score:
        """The score the judge's kept answer gives, each score it does not give missing with its reason; the record
        in its metadata."""
        reading = result.reading
        return judged_score(
            reading.values if reading else dict.fromkeys(self.keys),
            missing_scores(result, self.keys),
            policy=self.judge.unscored,
            bounded=BOUNDED_KEYS,
            answer=candidate,
            explanation=explanation,
            metadata=record.metadata(),
        )


async def judge_report(setup: JudgeSetup, state: TaskState, opened: JudgeRecord) -> Score:
    """Judge a sample's candidate against its reference in one pass, recording what `opened` holds and what the
    judging gives; a candidate that failed to generate, or is empty, is unscored without asking the judge."""
    pair = state.metadata_as(ReportPair)
    fields: dict[str, object] = {"detail": setup.reading.detail, **expert_metadata(pair)}
    generation = state.metadata.get("generation")
    if generation is not None:
        fields["generation"] = generation
    if generation is not None and generation.get("error"):
        code, _, detail = str(generation["error"]).partition(": ")
        return setup.unjudged((code, detail), opened.extended(**fields))
    candidate = state.output.completion if state.output else ""
    if not candidate.strip():
        return setup.unjudged(("no_response", "the candidate is empty"), opened.extended(**fields))
    model = grader_model()
    asked = await setup.ask(model, setup.prompt_for(pair.reference, candidate), candidate)
    result = asked.result
    fields |= {
        "judge": str(model),
        "constraint": asked.constraint,
        **result.metadata(),
        **counts_metadata(result.reading),
    }
    explanation = judge_explanation(result, judge=str(model))
    return setup.scored(result, opened.extended(**fields), candidate=candidate, explanation=explanation)


@scorer(metrics=[parse_failure_rate(), judge_calls()])
def report_judge(
    prompt: JudgePrompt = "vert",
    *,
    judge: JudgeOptions | None = None,
    reading: ReadingOptions | None = None,
    examples: list[dict[str, str]] | None = None,
    error_descriptions: bool = False,
) -> Scorer:
    """Judge the candidate report against the reference with the `grader` model.

    Args:
        prompt: `green` (error counts, GREEN computed from them), `vert` (direct overall score),
            `formula` (judge computes M / (M + 2S + 0.5I)), `rubric` (five score bands) or `score`
            (the score-only prompt that fine-tuned judges learn from `radiology-tasks export-sft`).
        judge: How the judge is asked and its missing scores counted (constraint, budget, retries, unscored
            policy); None: the defaults.
        reading: How its answer is asked for and read (detail, terse answers, GREEN with nothing matched); None:
            the defaults.
        examples: Few-shot examples placed in the prompt: `{reference, candidate, answer}` (an answer in the
            contract's form) or `{reference, candidate, expert_rating}` (an expert's score, shown as such).
        error_descriptions: Add the team's description of each error category (a)-(f).
    """
    setup = JudgeSetup(
        prompt, judge or JudgeOptions(), reading or ReadingOptions(), tuple(examples or ()), error_descriptions
    )

    async def score(state: TaskState, target: Target) -> Score:
        return await judge_report(setup, state, JudgeRecord(prompt=setup.prompt))

    return score
