"""Redacted copies of Inspect logs, for submissions on data whose licence forbids passing the reports on.

Every piece of free text in a log is replaced by the SHA-256 of the exact text the log held (``sha256:<hex>``),
so a holder of the data (or of the original logs) can check it, and nobody else can read it. Numbers, counts,
booleans, reason codes, settings, template hashes, token counts and the parsed judge answers stay as they were,
and the result is written with Inspect's own log types, so `inspect view` opens it and shows the hashes.

The rule is structural rather than a list of known fields, so a field added to Inspect or to a scorer later is
covered without anyone remembering it:

* In a sample (and in the log's per-sample score reductions) every string value that is *free text* is hashed:
  one holding whitespace, or longer than `FREE_TEXT_LENGTH` characters (a report, an answer, a prompt, a quoted
  finding, an image's data URL). What stays is the vocabulary of machine fields, all single tokens: ids, reason
  codes, label outcomes, roles, model names, timestamps. A single-token string that is exactly the text of a
  report, candidate, input or judge answer of any sample (a one-word report) is hashed as well. Dict keys stay
  (label and question names, such as ``Pleural Effusion``), unless a key holds such a text.
* Outside the samples (task settings, data summary, results, errors) strings are configuration, not reports, so
  they stay unless one holds a text of a sample: the whole text (from `SHORT_WORDS` words; a shorter one only as
  the whole string), or any run of `WINDOW` consecutive words of one.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HASH_PREFIX = "sha256:"
FREE_TEXT_LENGTH = 100
"""A string this long is free text even without whitespace (a data URL, a base64 image, a joined report)."""
WINDOW = 8
"""A configuration string holding this many consecutive words of a sample's text is hashed."""
SHORT_WORDS = 4
"""A text shorter than `WINDOW` words is looked for whole in configuration strings from this many words (a
shorter one, such as a label name, is found only as the whole string)."""
REDACTION_KEY = "redaction"
"""Where a redacted log's task metadata says it is redacted, how, and why."""

SampleKey = tuple[str, int]
"""A sample of a log: its id (as text) and epoch."""


def text_hash(text: str) -> str:
    """``sha256:<hex>`` of the UTF-8 bytes of `text`, as a redacted log holds it in place of the text."""
    return HASH_PREFIX + hashlib.sha256(text.encode("utf-8")).hexdigest()


def is_free_text(text: str) -> bool:
    """Whether `text` is free text (see the module's rule), not a machine field."""
    return len(text) > FREE_TEXT_LENGTH or any(character.isspace() for character in text)


def _windows(text: str) -> set[tuple[str, ...]]:
    words = text.split()
    return {tuple(words[i : i + WINDOW]) for i in range(len(words) - WINDOW + 1)}


@dataclass
class SampleTexts:
    """The texts of a log's samples, to find them wherever else the log may hold them."""

    exact: set[str] = field(default_factory=set)
    windows: set[tuple[str, ...]] = field(default_factory=set)
    short: set[str] = field(default_factory=set)

    def add(self, text: str) -> None:
        """Remember a text (blank texts hold nothing to hide)."""
        stripped = text.strip()
        if not stripped:
            return
        self.exact.add(stripped)
        self.windows |= _windows(stripped)
        if SHORT_WORDS <= len(stripped.split()) < WINDOW:
            self.short.add(stripped)

    def equals(self, text: str) -> bool:
        """Whether `text` is (up to surrounding whitespace) one of the texts."""
        return text.strip() in self.exact

    def found_in(self, text: str) -> bool:
        """Whether `text` holds a text, or a run of `WINDOW` consecutive words of one."""
        if self.equals(text) or not _windows(text).isdisjoint(self.windows):
            return True
        return any(short in text for short in self.short)


def _strings(value: Any) -> Iterable[str]:
    """Every string value inside a dumped model (dict keys excluded)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item)


def _message_texts(messages: Any) -> Iterable[str]:
    for message in messages if isinstance(messages, list) else []:
        yield from _strings(message.get("content") if isinstance(message, Mapping) else None)


def sample_parts(sample: Mapping[str, Any]) -> Iterable[str]:
    """The texts of a dumped sample that are reports or answers whatever their length: its input, target, scores'
    answers, messages, output and the outputs of its model events."""
    yield from _strings(sample.get("input"))
    yield from _strings(sample.get("target"))
    yield from _message_texts(sample.get("messages"))
    for score in (sample.get("scores") or {}).values():
        if isinstance(score, Mapping) and isinstance(score.get("answer"), str):
            yield score["answer"]
    yield from _strings((sample.get("output") or {}).get("completion"))
    for event in sample.get("events") or []:
        if isinstance(event, Mapping) and event.get("event") == "model":
            yield from _strings((event.get("output") or {}).get("completion"))


def collect_texts(samples: Iterable[Mapping[str, Any]]) -> SampleTexts:
    """Every free text of the samples, and their report and answer parts of any length."""
    texts = SampleTexts()
    for sample in samples:
        for text in _strings(sample):
            if is_free_text(text):
                texts.add(text)
        for text in sample_parts(sample):
            texts.add(text)
    return texts


def redact_sample_value(value: Any, texts: SampleTexts) -> Any:
    """A dumped sample (or part of one) with every free text, and every string equal to a sample's text,
    hashed; dict keys stay unless one holds a sample's text."""
    return _hashed_strings(value, texts, lambda text: is_free_text(text) or texts.equals(text))


def redact_config_value(value: Any, texts: SampleTexts) -> Any:
    """A dumped part of the log outside its samples with every string (or key) that holds a sample's text hashed."""
    return _hashed_strings(value, texts, texts.found_in)


def _hashed_strings(value: Any, texts: SampleTexts, hashed: Callable[[str], bool]) -> Any:
    """`value` (nested dicts and lists) with each string value for which `hashed` holds, and each dict key that
    holds a sample's text, replaced by its SHA-256."""
    if isinstance(value, str):
        return text_hash(value) if hashed(value) else value
    if isinstance(value, Mapping):
        return {
            (text_hash(k) if isinstance(k, str) and texts.found_in(k) else k): _hashed_strings(v, texts, hashed)
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_hashed_strings(item, texts, hashed) for item in value]
    return value


@dataclass(frozen=True)
class Redaction:
    """What a redacted log records about itself (under `REDACTION_KEY` in its task metadata).

    Attributes:
        reason: Why it was redacted (the credentialed dataset, or ``--redact-text``).
        source_sha256: The SHA-256 of the original log file, which the submitter keeps.
        hashed: How many strings were replaced by their hash.
    """

    reason: str
    source_sha256: str
    hashed: int = 0

    def record(self) -> dict[str, Any]:
        """The JSON the log and the bundle's manifest keep."""
        return {
            "text": "replaced by sha256:<hex> of the exact text",
            "reason": self.reason,
            "source_sha256": self.source_sha256,
            "hashed": self.hashed,
        }


def _count_hashes(value: Any) -> int:
    return sum(1 for text in _strings(value) if text.startswith(HASH_PREFIX))


def redact_log(
    source: Path, target: Path, reason: str, parsed: Mapping[SampleKey, Mapping[str, Any]] | None = None
) -> Redaction:
    """Write a redacted copy of the log at `source` to `target` (same format, by its suffix).

    Args:
        source: An Inspect log (``.eval`` or ``.json``).
        target: Where the redacted copy goes.
        reason: Why the log is redacted, recorded in it.
        parsed: Per sample, what the scorer read from its judge answers (see
            `radiology_tasks.leaderboard.rules.RescoresRedacted`); stored in the sample's score metadata under
            `radiology_tasks.leaderboard.rules.PARSED_ANSWERS` before the texts are hashed, so its free text is
            hashed too and its numbers, codes and labels stay.

    Returns:
        What the copy records about its redaction.
    """
    from inspect_ai.log import EvalLog, read_eval_log, write_eval_log

    from radiology_tasks.core.tables import file_sha256
    from radiology_tasks.leaderboard.rules import PARSED_ANSWERS

    log = read_eval_log(str(source), resolve_attachments=True)
    dumped = log.model_dump(exclude={"location"})
    samples = dumped.get("samples") or []
    for sample in samples:
        extra = (parsed or {}).get((str(sample["id"]), int(sample["epoch"])))
        if extra:
            for score in (sample.get("scores") or {}).values():
                score["metadata"] = {**(score.get("metadata") or {}), PARSED_ANSWERS: dict(extra)}
    texts = collect_texts(samples)
    redacted: dict[str, Any] = {}
    for key, value in dumped.items():
        if key in ("samples", "reductions"):
            redacted[key] = redact_sample_value(value, texts)
        else:
            redacted[key] = redact_config_value(value, texts)
    redaction = Redaction(reason, file_sha256(source), _count_hashes(redacted))
    eval_spec = redacted["eval"]
    eval_spec["metadata"] = {**(eval_spec.get("metadata") or {}), REDACTION_KEY: redaction.record()}
    write_eval_log(EvalLog.model_validate(redacted), str(target))
    return redaction


HASH_ONLY = "answers verified by hash only"
"""What a leaderboard says of a redacted run: its judge answers were matched to the judge's returns by hash, and
its scores re-worked from the parsed answers it keeps, but the answers themselves could not be read again."""
HASH_ONLY_UNCHECKED_DATA = f"{HASH_ONLY}; data not checked: fingerprint as recorded"
"""What a leaderboard says of a redacted run whose data it does not hold: as `HASH_ONLY`, and its sample set and
data were compared with other runs' as its log recorded them, not checked against the data."""
REDACTED_CHECKS = (HASH_ONLY, HASH_ONLY_UNCHECKED_DATA)
"""The labels a redacted run's entry carries, which pages and tables show beside the system."""


def checks_made(redacted: bool, judged: bool, *, data_checked: bool) -> str:
    """Which checks a leaderboard could make on a run's scores and data, as its page says it (`data_checked`
    False only for a redacted run whose data the leaderboard does not hold)."""
    if redacted:
        return HASH_ONLY if data_checked else HASH_ONLY_UNCHECKED_DATA
    return "judge answers re-read" if judged else "scores recomputed from the texts"
