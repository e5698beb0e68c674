"""Sentences of a report, kept byte for byte, and the reports that differ from it in chosen sentences only.

The injector is shown the reference as numbered sentences and states which ones it changed; the checks
compare its modified report with the reference sentence by sentence. Both sides must therefore cut a report
at the same places, and putting it back together must give the original bytes: `split_sentences` keeps every
whitespace run between sentences (`SplitReport.separators`) as well as the whitespace before and after the
report.

A sentence ends at a line break, or at ``.``, ``!`` or ``?`` (possibly followed by closing quotes or brackets)
followed by whitespace and a character that is not a lower-case letter, unless the word before the stop is a
common abbreviation (``e.g.``, ``vs.``, ``approx.``) or a list number (``1.``). A decimal point has no
whitespace after it, so ``1.5 cm`` never ends a sentence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_WHITESPACE = re.compile(r"\s+")
_STOP = re.compile(r"[.!?][\"')\]]*$")
_LAST_WORD = re.compile(r"(\S+)$")
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "vs.", "approx.", "cf.", "dr.", "mr.", "mrs.", "ms.", "fig.", "resp."})
_LIST_NUMBER = re.compile(r"\(?\d{1,2}[.)]$")


@dataclass(frozen=True)
class SplitReport:
    """A report cut into sentences, with the exact whitespace around and between them.

    Attributes:
        lead: Whitespace before the first sentence.
        sentences: The sentences, each without surrounding whitespace.
        separators: The whitespace between sentence ``i`` and ``i + 1`` (one fewer than sentences).
        trail: Whitespace after the last sentence.
    """

    lead: str
    sentences: tuple[str, ...]
    separators: tuple[str, ...]
    trail: str

    def join(self) -> str:
        """The report's original text."""
        return self.replaced({})

    def replaced(self, replacements: Mapping[int, str]) -> str:
        """The report with the sentences at the given indices replaced, each keeping the whitespace after it.

        Args:
            replacements: Sentence index to its new text (no surrounding whitespace; not empty).
        """
        parts = [self.lead]
        for index, sentence in enumerate(self.sentences):
            parts.append(replacements.get(index, sentence))
            if index < len(self.separators):
                parts.append(self.separators[index])
        parts.append(self.trail)
        return "".join(parts)

    def admits(self, text: str, replacements: Mapping[int, str]) -> bool:
        """Whether `text` is this report with exactly the given sentences replaced or deleted.

        Every other sentence must be kept byte for byte, in order, with the whitespace the original has
        around it. A deleted sentence (replacement ``""``) takes one of the whitespace runs next to it along:
        between two kept sentences any one of the original runs between them is accepted.

        Args:
            text: The report to compare.
            replacements: Sentence index to its new text; ``""`` deletes the sentence.
        """
        kept = [
            (index, replacements.get(index, sentence))
            for index, sentence in enumerate(self.sentences)
            if replacements.get(index, sentence) != ""
        ]
        if not kept:
            return False
        pattern = [re.escape(self.lead)]
        for position, (index, sentence) in enumerate(kept):
            if position:
                previous = kept[position - 1][0]
                runs = sorted(set(self.separators[previous:index]))
                pattern.append("(?:" + "|".join(re.escape(run) for run in runs) + ")")
            pattern.append(re.escape(sentence))
        pattern.append(re.escape(self.trail))
        return re.fullmatch("".join(pattern), text) is not None


def _ends_sentence(before: str, gap: str, after: str) -> bool:
    """Whether the whitespace `gap` between `before` and `after` separates two sentences."""
    if "\n" in gap:
        return True
    if not _STOP.search(before) or after[:1].islower():
        return False
    word = _LAST_WORD.search(before)
    token = word.group(1).lower().lstrip("([\"'") if word else ""
    token = token.rstrip("\"')]")
    return token not in _ABBREVIATIONS and not _LIST_NUMBER.fullmatch(token)


def split_sentences(text: str) -> SplitReport:
    """Cut a report into sentences so that `SplitReport.join` gives `text` back unchanged.

    Args:
        text: The report.

    Returns:
        The sentences and the whitespace around them; a blank text has no sentences (its whitespace is the
        lead).
    """
    if not text.strip():
        return SplitReport(text, (), (), "")
    start = len(text) - len(text.lstrip())
    end = len(text.rstrip())
    body = text[start:end]
    sentences: list[str] = []
    separators: list[str] = []
    begin = 0
    for gap in _WHITESPACE.finditer(body):
        if _ends_sentence(body[: gap.start()], gap.group(), body[gap.end() :]):
            sentences.append(body[begin : gap.start()])
            separators.append(gap.group())
            begin = gap.end()
    sentences.append(body[begin:])
    return SplitReport(text[:start], tuple(sentences), tuple(separators), text[end:])
