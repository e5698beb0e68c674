"""Read a judge's extraction answer into 0/1 labels with evidence, strictly, one label at a time.

An answer is one JSON object (see `scorers.ran_score.contract`), optionally inside a single markdown code fence;
anything else around it makes the whole answer unreadable. Each label's value is validated on its own, so an
answer that gets one label wrong leaves only that label unread. Nothing is guessed:

- ``empty_answer``, ``not_json``, ``not_an_object``: no object to read (every label).
- ``quoted_report``: the object also appears in the report that was read, so it may be the report's text
  rather than the judge's reading (every label). A report could otherwise write its own labels.
- ``missing_label``: the label's key is absent.
- ``conflicting_verdicts``: the key (or a field of its value) is given twice with different values.
- ``invalid_label``: the value is not ``{"present": 0}`` or ``{"present": 1, "evidence": "..."}`` (a 1
  needs non-empty evidence; booleans, strings and floats are not 0/1).

Problems are ``"reason: detail"`` strings keyed by label key, as `radiology_tasks.core.judge.ask_judge` expects.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError, model_validator

from radiology_tasks.scorers.untrusted import neutralize_candidate

_FENCE = re.compile(r"^```[A-Za-z]*[ \t]*\n(?P<body>.*)\n```$", re.S)


class LabelValue(BaseModel):
    """One label as the judge gives it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    present: Annotated[StrictInt, Field(ge=0, le=1)]
    evidence: StrictStr | None = None

    @model_validator(mode="after")
    def _positive_has_evidence(self) -> LabelValue:
        if self.present == 1 and not (self.evidence or "").strip():
            raise ValueError("a label marked present needs its evidence")
        return self


@dataclass(frozen=True)
class LabelReading:
    """The labels read from one answer.

    Attributes:
        answer: The judge's raw answer.
        labels: Every asked key; 0 or 1, None where unreadable.
        evidence: The evidence of each label read as 1.
        problems: ``key -> "reason: detail"`` for each None label.
        ignored_keys: Keys of the answer that are not asked labels (not read).
    """

    answer: str
    labels: dict[str, int | None]
    evidence: dict[str, str] = field(default_factory=dict)
    problems: dict[str, str] = field(default_factory=dict)
    ignored_keys: list[str] = field(default_factory=list)


class _Object(dict[str, Any]):
    """A JSON object that remembers which of its keys were given twice with different values."""

    def __init__(self, pairs: list[tuple[str, Any]]) -> None:
        super().__init__()
        self.conflicts: set[str] = set()
        for key, value in pairs:
            if key in self and self[key] != value:
                self.conflicts.add(key)
            self.setdefault(key, value)


def _load(text: str) -> Any:
    return json.loads(text, object_pairs_hook=_Object)


def _unfenced(answer: str) -> str:
    text = answer.strip()
    match = _FENCE.match(text)
    return match.group("body").strip() if match else text


def _objects_in(text: str) -> Iterator[Any]:
    """Every JSON object written anywhere in `text`, nested ones included."""
    decoder = json.JSONDecoder(object_pairs_hook=_Object)
    for match in re.finditer(r"\{", text):
        try:
            found, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        stack = [found]
        while stack:
            item = stack.pop()
            if isinstance(item, dict):
                yield item
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)


def _quotes_report(parsed: Any, report: str | None) -> bool:
    if not report:
        return False
    return any(parsed == found for text in {report, neutralize_candidate(report)} for found in _objects_in(text))


def _whole(answer: str, report: str | None) -> tuple[Any, str | None]:
    """The answer's one JSON object, or the problem that applies to every label."""
    text = _unfenced(answer)
    if not text:
        return None, "empty_answer: the answer is empty"
    try:
        parsed = _load(text)
    except json.JSONDecodeError as error:
        return None, f"not_json: {error.msg} at character {error.pos}"
    if not isinstance(parsed, dict):
        return None, f"not_an_object: the answer is a JSON {type(parsed).__name__}, not an object"
    if _quotes_report(parsed, report):
        return None, "quoted_report: the answer repeats a JSON object written in the report"
    return parsed, None


def _value(raw: Any) -> tuple[LabelValue | None, str | None]:
    if isinstance(raw, _Object) and raw.conflicts:
        return None, f"conflicting_verdicts: {', '.join(sorted(raw.conflicts))} given twice with different values"
    try:
        return LabelValue.model_validate(raw), None
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        return None, f"invalid_label: {where + ': ' if where else ''}{message}"


def read_batch_answer(answer: str, keys: Sequence[str], *, report: str | None = None) -> LabelReading:
    """Read a batch answer: one object with a value for each asked label.

    Args:
        answer: The judge's raw answer.
        keys: The asked labels' keys.
        report: The report the judge read (an answer that repeats an object written in it is not read).
    """
    parsed, problem = _whole(answer, report)
    if problem is not None:
        return LabelReading(answer, dict.fromkeys(keys), problems=dict.fromkeys(keys, problem))
    labels: dict[str, int | None] = {}
    evidence: dict[str, str] = {}
    problems: dict[str, str] = {}
    for key in keys:
        if key in parsed.conflicts:
            value, problem = None, "conflicting_verdicts: the label is given twice with different values"
        elif key not in parsed:
            value, problem = None, "missing_label: the answer has no value for this label"
        else:
            value, problem = _value(parsed[key])
        labels[key] = value.present if value else None
        if problem is not None:
            problems[key] = problem
        elif value is not None and value.present == 1:
            evidence[key] = str(value.evidence)
    ignored = [key for key in parsed if key not in labels]
    return LabelReading(answer, labels, evidence, problems, ignored)


def read_label_answer(answer: str, key: str, *, report: str | None = None) -> LabelReading:
    """Read a per-label answer: the value of the label `key` alone.

    Args:
        answer: The judge's raw answer.
        key: The label asked about.
        report: The report the judge read (an answer that repeats an object written in it is not read).
    """
    parsed, problem = _whole(answer, report)
    value = None
    if problem is None:
        value, problem = _value(parsed)
    if value is None:
        return LabelReading(answer, {key: None}, problems={key: str(problem)})
    evidence = {key: str(value.evidence)} if value.present == 1 else {}
    return LabelReading(answer, {key: value.present}, evidence)
