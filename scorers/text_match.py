"""Grading a non-numeric answer without a judge: normalised exact match, or a match through a synonym table.

The Inspect task asks a judge to compare such answers (meaning, not wording, with partial credit). Where no
judge is at hand (the lm-evaluation-harness task, whose model under test is the one answering), an answer
counts as 1 only when, after normalising, it reads the same as the reference or differs from it only by terms
listed here as synonyms; anything else is 0. That is stricter than the judge: a correct paraphrase or a
partly right answer scores 0 here.

Normalising: case folded, hyphens and slashes read as spaces, other punctuation dropped, a leading article
dropped, runs of spaces collapsed; then each synonym is replaced by its canonical term.
"""

from __future__ import annotations

import re

SYNONYMS: dict[str, tuple[str, ...]] = {
    "right upper lobe": ("rul",),
    "right middle lobe": ("rml",),
    "right lower lobe": ("rll",),
    "left upper lobe": ("lul",),
    "left lower lobe": ("lll",),
    "low attenuation": ("hypoattenuating", "hypodense", "low density", "hypoattenuation", "low attenuating"),
    "high attenuation": ("hyperattenuating", "hyperdense", "high density", "hyperattenuation", "high attenuating"),
    "present": ("yes", "seen", "identified", "demonstrated"),
    "absent": ("no", "none", "not seen", "not identified", "not present"),
    "both": ("bilateral",),
    "right": ("rt",),
    "left": ("lt",),
}
"""Canonical term -> the other spellings read as it (whole words only, after normalising)."""

_PUNCTUATION = re.compile(r"[^\w\s]")
_SEPARATORS = re.compile(r"[-/–—]")
_ARTICLE = re.compile(r"^(?:the|a|an) ")
_REPLACEMENTS = sorted(
    ((variant, canonical) for canonical, variants in SYNONYMS.items() for variant in variants),
    key=lambda item: -len(item[0]),
)
_SYNONYM = re.compile(r"\b(" + "|".join(re.escape(variant) for variant, _ in _REPLACEMENTS) + r")\b")
_CANONICAL = dict(_REPLACEMENTS)


def normalise(text: str) -> str:
    """The answer as it is compared: lower case, no punctuation or leading article, synonyms made canonical."""
    text = _SEPARATORS.sub(" ", text.casefold())
    text = " ".join(_PUNCTUATION.sub(" ", text).split())
    text = _ARTICLE.sub("", text)
    return _SYNONYM.sub(lambda match: _CANONICAL[match.group(1)], text)


def grade_text(reference: str, candidate: str) -> float:
    """1.0 when the candidate answer reads as the reference answer after normalising (see module), else 0.0."""
    return 1.0 if normalise(candidate) == normalise(reference) else 0.0
