"""Training examples with known answers, made from synthesized report pairs (`radiology-tasks perturb` variants).

Each variant of a reference becomes one example per judge call the task would make for it. The user turn is
exactly the prompt the task sends: `judge_prompt` for the one-pass prompts of ``green`` and ``vert`` (and of
``judge_sensitivity`` with one pass, which is the same call), or `differences_prompt` and `classify_prompt` for
``judge_sensitivity -T passes=2``. The assistant turn is what a perfect judge answers, written from what the
variant was made with by `scorers.report_judge.known_answers`:

- an error variant: its category's significant count is its number of errors (a variant made with several
  categories: each one's count), every other count 0; a paraphrase: no error at all;
- matched findings: the reference's sentences the variant leaves as they were (every sentence of a
  paraphrase, which rewords them all and keeps every fact; all but the changed ones of an error variant, whose
  injector changed exactly one sentence per error and left every other one byte for byte);
- the score: `known_score` of those counts;
- the first of two passes: the injector's own explanation of each change (recorded by ``perturb`` as
  ``changes``), none for a paraphrase.

Every target is read back with the task's reader before it is kept (`check_example`): it must lie in the output
contract and give exactly the counts the variant was made with.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict

from radiology_tasks.core.loading import OnBadRows, load_pairs
from radiology_tasks.core.records import ERROR_CATEGORIES, ErrorCounts, ReportPair
from radiology_tasks.judge_sensitivity.dataset import is_variants_file
from radiology_tasks.judge_sensitivity.scorer import classify_prompt, differences_prompt
from radiology_tasks.report_judge.scorer import TEMPLATES, judge_contract, judge_prompt
from radiology_tasks.scorers.judge_sensitivity.answers import Differences, read_json_answer
from radiology_tasks.scorers.judge_sensitivity.contracts import DIFFERENCES_CONTRACT
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from radiology_tasks.scorers.report_judge.grammar import Detail
from radiology_tasks.scorers.report_judge.known_answers import KnownAnswer, assessment_answer, score_only_answer
from radiology_tasks.scorers.report_judge.parse import AssessmentFormatError
from radiology_tasks.scorers.report_judge.reading import read_scores
from radiology_tasks.solvers.judge_sensitivity.rows import variant_fields

ExportPrompt = Literal["vert", "green", "score"]
"""The judge prompts an export writes for: VERT's direct score, GREEN's counts, and the score alone."""

EXPORT_PROMPTS: tuple[ExportPrompt, ...] = get_args(ExportPrompt)

Step = Literal["judge", "differences", "classify"]
"""Which judge call an example trains: the one-pass call, or the first or second of two passes."""

VariantKind = Literal["error", "paraphrase"]


class NoKnownAnswer(ValueError):
    """A variant whose known answer cannot be written in the contract.

    Attributes:
        reason: ``more_errors_than_sentences``, ``count_out_of_range`` or ``no_recorded_changes``.
    """

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason = reason


@dataclass(frozen=True)
class PromptSettings:
    """The prompt the examples are rendered with, and so the task settings the trained judge is used with.

    Attributes:
        prompt: ``vert``, ``green`` or ``score``.
        detail: ``full`` or ``brief`` answers (the score-only prompt has no detail level: ``full``).
        passes: 1, or 2 for the two-pass judge of ``judge_sensitivity`` (not with ``score``).
    """

    prompt: ExportPrompt = "vert"
    detail: Detail = "full"
    passes: int = 1

    def __post_init__(self) -> None:
        if self.prompt not in EXPORT_PROMPTS:
            raise ValueError(f"--prompt must be one of {', '.join(EXPORT_PROMPTS)}; got {self.prompt!r}")
        if self.detail not in get_args(Detail):
            raise ValueError(f"--detail must be full or brief; got {self.detail!r}")
        if self.passes not in (1, 2):
            raise ValueError(f"--passes must be 1 or 2; got {self.passes!r}")
        if self.prompt == "score" and self.detail != "full":
            raise ValueError("the score-only prompt has no detail level; leave --detail at full")
        if self.prompt == "score" and self.passes == 2:
            raise ValueError("the two-pass judge classifies errors, which the score-only prompt does not count")

    @property
    def steps(self) -> tuple[Step, ...]:
        """The judge calls one variant makes, in order."""
        return ("judge",) if self.passes == 1 else ("differences", "classify")

    def templates(self) -> dict[Step, str]:
        """The template each step's user turn is rendered from."""
        judge = TEMPLATES[self.prompt]
        if self.passes == 1:
            return {"judge": judge}
        return {"differences": "judge_sensitivity/differences", "classify": f"judge_sensitivity/classify on {judge}"}

    def task(self) -> dict[str, object]:
        """The Inspect task and ``-T`` parameters that send these prompts, to judge with the trained model."""
        if self.passes == 2:
            task, parameters = "judge_sensitivity", {"prompt": self.prompt, "passes": 2, "detail": self.detail}
        elif self.prompt == "green":
            task, parameters = "green", {"detail": self.detail}
        elif self.prompt == "vert":
            task, parameters = "vert", {"prompt": "vert", "detail": self.detail}
        else:
            task, parameters = "vert", {"prompt": "score"}
        return {"task": f"radiology_tasks/{task}", "parameters": parameters}


@dataclass(frozen=True)
class Variant:
    """One row of a variants file, with what it was made with.

    Attributes:
        id: The row's id.
        source_id: The id of its reference.
        reference: The reference report.
        candidate: The variant report.
        kind: ``error`` or ``paraphrase``.
        significant: The errors put in, per category (none for a paraphrase).
        changes: The injector's explanation of each change, when the row records them (``perturb`` does).
        file: The variants file it was read from.
        changed: Each recorded change's sentence index, original sentence and changed sentence, when the row
            records them (``perturb`` does); the export checks the candidate against them.
    """

    id: str
    source_id: str
    reference: str
    candidate: str
    kind: VariantKind
    significant: ErrorCounts
    changes: tuple[str, ...] | None
    file: str
    changed: tuple[tuple[int, str, str], ...] | None = None

    @property
    def n_errors(self) -> int:
        """The number of errors put in."""
        return int(self.significant.total)

    @property
    def stratum(self) -> str:
        """``paraphrase``, or the error categories joined by ``+`` (``a``, ``a+c``): what balancing counts."""
        if self.kind == "paraphrase":
            return "paraphrase"
        return "+".join(letter for letter, count in self.significant.as_dict().items() if count)

    def errors(self) -> dict[str, int]:
        """The errors put in, by category, without the zero counts."""
        return {letter: count for letter, count in self.significant.as_dict().items() if count}


def _several_categories(errors: object, metadata: Mapping[str, Any]) -> ErrorCounts:
    """The counts of a variant made with several categories (an ``errors`` field: category -> count)."""
    if metadata.get("kind") != "error":
        raise ValueError("errors: only an error variant has errors by category")
    if metadata.get("category") is not None:
        raise ValueError("category: must be null when errors gives the counts of several categories")
    if not isinstance(errors, dict) or not errors:
        raise ValueError('errors: expected an object of error category to count, e.g. {"a": 1, "c": 2}')
    unknown = sorted(set(map(str, errors)) - set(ERROR_CATEGORIES))
    if unknown:
        raise ValueError(f"errors: unknown categories {unknown}; use letters a-f")
    if not all(isinstance(count, int) and not isinstance(count, bool) and count >= 1 for count in errors.values()):
        raise ValueError("errors: every count must be a whole number of at least 1")
    n_errors = metadata.get("n_errors")
    if n_errors != sum(errors.values()):
        raise ValueError(f"n_errors: {n_errors!r} is not the sum of the counts in errors ({sum(errors.values())})")
    return ErrorCounts.model_validate(errors)


def _changes(value: object, kind: VariantKind, n_errors: int) -> tuple[str, ...] | None:
    """The explanations of a row's recorded changes, or None when it records none."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(
        isinstance(change, dict) and isinstance(change.get("explanation"), str) for change in value
    ):
        raise ValueError("changes: expected a list of changes, each with an explanation")
    if kind == "paraphrase":
        return ()
    if len(value) != n_errors:
        raise ValueError(f"changes: {len(value)} changes recorded for {n_errors} errors")
    return tuple(change["explanation"] for change in value)


_PLACED = ("sentence_index", "original", "modified")


def _changed_sentences(value: object, kind: VariantKind) -> tuple[tuple[int, str, str], ...] | None:
    """Where each recorded change of an error variant is (index, original, changed sentence), or None when the
    row does not say (``changes`` left out, or explanations alone)."""
    if kind != "error" or not isinstance(value, list) or not any(set(_PLACED) & set(c) for c in value):
        return None
    placed = []
    for change in value:
        index, original, modified = (change.get(key) for key in _PLACED)
        if type(index) is not int or not isinstance(original, str) or not isinstance(modified, str):
            raise ValueError("changes: sentence_index (a number), original and modified go together, in every change")
        placed.append((index, original, modified))
    return tuple(placed)


def variant_from_pair(pair: ReportPair, file: str) -> Variant:
    """The variant of one loaded row of a variants file.

    Raises:
        ValueError: naming the first field that is missing or wrong.
    """
    if pair.candidate is None:
        raise ValueError("candidate: missing (a variants file holds each variant as its candidate)")
    metadata = pair.metadata
    if "errors" in metadata:
        source_id = metadata.get("source_id")
        if not isinstance(source_id, str) or not source_id:
            raise ValueError("source_id: missing")
        significant = _several_categories(metadata["errors"], metadata)
        kind: VariantKind = "error"
    else:
        fields = variant_fields(metadata)
        source_id, kind = fields.source_id, fields.kind
        significant = ErrorCounts.model_validate({fields.category: fields.n_errors} if fields.category else {})
    return Variant(
        id=pair.id,
        source_id=source_id,
        reference=pair.reference,
        candidate=pair.candidate,
        kind=kind,
        significant=significant,
        changes=_changes(metadata.get("changes"), kind, int(significant.total)),
        file=file,
        changed=_changed_sentences(metadata.get("changes"), kind),
    )


@dataclass(frozen=True)
class VariantsFile:
    """The variants read from one file.

    Attributes:
        path: The file.
        variants: Its usable rows.
        rows: Rows read.
        skipped: Rows left out with ``--on-bad-rows skip``: ``{"id", "reason"}``.
    """

    path: str
    variants: list[Variant]
    rows: int
    skipped: list[dict[str, str]]


def read_variants(path: str, *, on_bad_rows: OnBadRows = "error") -> VariantsFile:
    """Read a variants file (the output of ``radiology-tasks perturb``, or one written by hand).

    Raises:
        ValueError: for a file without variant rows, or a bad row under ``on_bad_rows="error"`` (naming it).
    """
    loaded = load_pairs(path, on_bad_rows=on_bad_rows)
    if not is_variants_file(loaded):
        raise ValueError(f"{path}: not a variants file (no row has a kind field); `radiology-tasks perturb` makes one")
    variants: list[Variant] = []
    skipped = [{"id": f"row {row.row}", "reason": f"{row.field}: {row.reason}"} for row in loaded.skipped]
    references: dict[str, str] = {}
    for pair in loaded.pairs:
        try:
            variant = variant_from_pair(pair, path)
            if references.setdefault(variant.source_id, variant.reference) != variant.reference:
                raise ValueError(f"source_id: '{variant.source_id}' appears with two different references")
        except ValueError as error:
            if on_bad_rows == "error":
                raise ValueError(f"{path}: row id '{pair.id}': {error}") from None
            skipped.append({"id": pair.id, "reason": str(error)})
            continue
        variants.append(variant)
    return VariantsFile(path, variants, loaded.rows_read, skipped)


def known_answer(variant: Variant) -> KnownAnswer:
    """What a perfect judge answers for `variant` (the rule is in the module docstring).

    Raises:
        NoKnownAnswer: when the variant claims more errors than its reference has sentences, or a count does not
            fit the answer format.
    """
    sentences = len(split_sentences(variant.reference).sentences)
    if variant.n_errors > sentences:
        raise NoKnownAnswer(
            "more_errors_than_sentences", f"{variant.n_errors} errors, one per sentence, in {sentences} sentences"
        )
    try:
        return KnownAnswer(significant=variant.significant, matched=sentences - variant.n_errors)
    except ValueError as error:
        raise NoKnownAnswer("count_out_of_range", str(error)) from None


class KnownLine(BaseModel):
    """One line of a ``.known.jsonl`` file: which variant a training conversation was made from, the judge call it
    trains and what its answer states; the export writes it and `check_export` reads it back.

    Attributes:
        variant_id: The variant's row id.
        source_id: The id of its reference.
        file: The variants file it was read from.
        kind: ``error`` or ``paraphrase``.
        errors: The errors put in, by category, without the zero counts.
        n_errors: The number of errors put in.
        step: The judge call the conversation trains.
        matched: The matched findings the answer states.
        score: The score the answer states, exactly as written in it.
    """

    model_config = ConfigDict(frozen=True)

    variant_id: str
    source_id: str
    file: str
    kind: VariantKind
    errors: dict[str, int]
    n_errors: int
    step: Step
    matched: int
    score: str

    @classmethod
    def of(cls, variant: Variant, step: Step, known: KnownAnswer) -> KnownLine:
        """The line of the conversation made from `variant` for `step`, whose answer states `known`."""
        return cls(
            variant_id=variant.id,
            source_id=variant.source_id,
            file=variant.file,
            kind=variant.kind,
            errors=variant.errors(),
            n_errors=variant.n_errors,
            step=step,
            matched=known.matched,
            score=str(known.score),
        )


@dataclass(frozen=True)
class Example:
    """One training conversation.

    Attributes:
        variant: The variant it was made from.
        step: The judge call it trains.
        user: The prompt, exactly as the task sends it.
        assistant: The known answer, in the call's answer contract.
        known: The numbers the answer states.
    """

    variant: Variant
    step: Step
    user: str
    assistant: str
    known: KnownAnswer

    def conversation(self) -> dict[str, object]:
        """The chat-format line of the training file."""
        return {"messages": [{"role": "user", "content": self.user}, {"role": "assistant", "content": self.assistant}]}

    def record(self) -> KnownLine:
        """The line describing this example in the ``.known.jsonl`` file next to the training file."""
        return KnownLine.of(self.variant, self.step, self.known)


def _target(known: KnownAnswer, settings: PromptSettings) -> str:
    if settings.prompt == "score":
        return score_only_answer(known)
    return assessment_answer(known, with_score=settings.prompt != "green", detail=settings.detail)


def differences_answer(variant: Variant) -> str:
    """The first pass's known answer: the recorded explanation of each change, none for a paraphrase.

    Raises:
        NoKnownAnswer: for an error variant whose changes were not recorded.
    """
    if variant.kind == "paraphrase":
        return json.dumps({"differences": []})
    if variant.changes is None:
        raise NoKnownAnswer("no_recorded_changes", "without its changes the first pass's differences are unknown")
    return json.dumps({"differences": list(variant.changes)})


def variant_examples(variant: Variant, settings: PromptSettings) -> list[Example]:
    """The training examples of one variant: one per judge call of `settings`.

    Raises:
        NoKnownAnswer: when the variant's known answer cannot be written (see `known_answer`, `differences_answer`).
    """
    known = known_answer(variant)
    target = _target(known, settings)
    reference, candidate = variant.reference, variant.candidate
    if settings.passes == 1:
        user = judge_prompt(settings.prompt, reference=reference, candidate=candidate, detail=settings.detail)
        return [Example(variant, "judge", user, target, known)]
    first = differences_answer(variant)
    differences = json.loads(first)["differences"]
    prompt = settings.prompt
    if prompt == "score":  # refused by PromptSettings; narrows the type for the two-pass prompt
        raise ValueError("the score-only prompt has no two-pass form")
    return [
        Example(variant, "differences", differences_prompt(reference=reference, candidate=candidate), first, known),
        Example(
            variant,
            "classify",
            classify_prompt(
                prompt, reference=reference, candidate=candidate, differences=differences, detail=settings.detail
            ),
            target,
            known,
        ),
    ]


def check_example(example: Example, settings: PromptSettings) -> str | None:
    """Why the example's target does not read back to its known answer with the task's reader, or None.

    A target must lie in its call's output contract (the regex equivalent of the grammar a constrained judge
    decodes with) and read, with the candidate it was written for, to exactly the known counts and score.
    """
    answer = example.assistant
    if example.step == "differences":
        if not re.fullmatch(DIFFERENCES_CONTRACT.regex or "", answer):
            return "outside_contract: the differences are not all short printable-ASCII text"
        listed = read_json_answer(answer, Differences)
        expected = list(example.variant.changes or [])
        if listed.value is None or listed.value.differences != expected:
            return f"unreadable_target: {dict(listed.problems) or 'the differences read differently'}"
        return None
    contract = judge_contract(settings.prompt, settings.detail)
    if not re.fullmatch(contract.regex or "", answer):
        return f"outside_contract: the answer is not admitted by the {contract.name} contract"
    reading = read_scores(answer, prompt=settings.prompt, candidate=example.variant.candidate)
    known = example.known
    main = settings.prompt if settings.prompt != "green" else None
    if main is not None and reading.values.get(main) != float(known.score):
        return f"unreadable_target: {main} reads {reading.values.get(main)}, known {known.score}"
    if main == "score":
        return None
    parts = reading.parts
    if parts is None:
        return "unreadable_target: no parts read"
    read = (parts.significant, parts.insignificant, parts.matched)
    if any(isinstance(part, AssessmentFormatError) for part in read) or parts.quoted_sections:
        return f"unreadable_target: {reading.problems or parts.quoted_sections}"
    if read != (known.significant, known.insignificant, known.matched) or parts.filled_categories:
        return f"unreadable_target: reads {read}, known {(known.significant, known.insignificant, known.matched)}"
    return None
