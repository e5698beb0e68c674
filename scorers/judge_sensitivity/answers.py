"""Reading the injector's, the checker's and the two-pass judge's JSON answers, strictly.

Each answer is one JSON object of a fixed shape (the field names of the VERT paper's appendix F where it has
them). It is read with pydantic in strict mode: a missing or extra field, a string where a number belongs or
a number where a boolean belongs makes the whole answer unreadable, with a reason; nothing is guessed. The
one allowance is a Markdown code fence around the whole object, which chat models add out of habit when their
output is not constrained.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Generic, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, ValidationError

from radiology_tasks.core.contract import OutputContract

AnswerProblem = Literal["empty_answer", "invalid_json", "wrong_shape", "outside_contract"]
"""Why an answer could not be read: nothing written, not JSON, JSON of another shape, or (`read_contract_answer`)
an answer its output contract does not admit."""

_FENCE = re.compile(r"\A\s*```(?:json)?[ \t]*\n(?P<body>.*)\n[ \t]*```\s*\Z", re.DOTALL)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Change(_Strict):
    """One changed sentence of an injection answer."""

    sentence_index: int
    original: str
    modified: str
    explanation: str


class InjectionAnswer(_Strict):
    """The injector's answer: what it changed, sentence by sentence, and the whole modified report."""

    changes_detail: list[Change]
    modified_report: str


class SentenceParaphrase(_Strict):
    """The rewrite of one sentence of the reference."""

    sentence_index: int
    paraphrase: str


class ParaphraseAnswer(_Strict):
    """The paraphraser's answer: one rewrite per sentence of the reference."""

    sentences: list[SentenceParaphrase]


class Verdict(_Strict):
    """The checker's verdict on a variant."""

    plausible: bool
    reason: str


class Differences(_Strict):
    """The first pass of a two-pass judge: the differences between the two reports, not yet classified."""

    differences: list[str]


T = TypeVar("T", bound=BaseModel)


@dataclass(frozen=True)
class JsonReading(Generic[T]):
    """One answer as read: its value, or why it has none.

    Attributes:
        answer: The raw answer.
        value: The parsed answer, None when unreadable.
        problems: ``{"answer": "<reason>: <detail>"}`` when unreadable, else empty (the shape
            `radiology_tasks.core.judge.ask_judge` re-asks on).
    """

    answer: str
    value: T | None
    problems: Mapping[str, str] = field(default_factory=dict)

    @property
    def reason(self) -> AnswerProblem | None:
        """The reason code of an unreadable answer."""
        if not self.problems:
            return None
        # The readers write only AnswerProblem codes before the colon.
        return cast(AnswerProblem, self.problems["answer"].split(":", 1)[0])


def read_json_answer(answer: str, shape: type[T]) -> JsonReading[T]:
    """Read an answer as a JSON object of `shape`, strictly.

    Args:
        answer: The model's raw answer.
        shape: The pydantic model of the expected object.

    Returns:
        The reading; its `problems` name ``empty_answer``, ``invalid_json`` or ``wrong_shape`` with a detail.
    """
    if not answer.strip():
        return JsonReading(answer, None, {"answer": "empty_answer: the answer is empty"})
    fenced = _FENCE.match(answer)
    text = fenced.group("body") if fenced else answer
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        return JsonReading(answer, None, {"answer": f"invalid_json: {error.msg} at character {error.pos}"})
    try:
        return JsonReading(answer, shape.model_validate(data))
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "answer"
        return JsonReading(answer, None, {"answer": f"wrong_shape: {where}: {first['msg']}"})


def read_contract_answer(answer: str, shape: type[T], contract: OutputContract) -> JsonReading[T]:
    """Read an answer that must lie in `contract` exactly (its regex, the grammar's equivalent), then as `shape`.

    Stricter than `read_json_answer`: no code fence, no other spacing, no string longer or with other characters
    than the contract admits. A checker's verdict is read this way, so an answer that a constrained checker could
    not have given is a failed check, never a verdict.
    """
    if not answer.strip():
        return JsonReading(answer, None, {"answer": "empty_answer: the answer is empty"})
    if contract.regex is None or not re.fullmatch(contract.regex, answer):
        return JsonReading(answer, None, {"answer": f"outside_contract: not admitted by the {contract.name} contract"})
    return read_json_answer(answer, shape)
