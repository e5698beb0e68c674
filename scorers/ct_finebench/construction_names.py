"""One spelling per finding and attribute name, so that grouping counts "Lung nodules" and "lung nodule" once.

A judge names the same thing in many ways. `normalize_name` folds the differences that never change the meaning:
case, Unicode forms, runs of whitespace, hyphens and underscores, surrounding punctuation, a leading article,
and English plural endings. Synonyms ("pulmonary nodule", "lung nodule") are left to the person who edits the
schema.
"""

from __future__ import annotations

import re
import unicodedata

_SEPARATORS = re.compile(r"[\s_\-]+")
_EDGE_PUNCTUATION = " .,;:!?\"'()[]{}"
_ARTICLES = ("the ", "a ", "an ")

# Singular nouns ending in -s that the plural rules below would mangle (ascites is not a plural of ascite).
_INVARIANT = frozenset({"ascites", "diabetes", "faeces", "feces", "herpes", "series", "species", "varices"})
# Endings of singular words that end in s: mass, atelectasis, thrombus, pancreas.
_SINGULAR_S_ENDINGS = ("ss", "is", "us", "as")
# Plurals that add -es after a sibilant: masses, boxes, patches, brushes.
_SIBILANT_ES = ("sses", "xes", "ches", "shes")


def singular(word: str) -> str:
    """The singular of one lower-case English word, by its ending (opacities -> opacity, masses -> mass).

    Words of three letters or fewer, words with digits and the words in `_INVARIANT` are kept as they are.
    """
    if len(word) <= 3 or word in _INVARIANT or any(char.isdigit() for char in word):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(_SIBILANT_ES):
        return word[:-2]
    if word.endswith("s") and not word.endswith(_SINGULAR_S_ENDINGS):
        return word[:-1]
    return word


def normalize_name(name: str) -> str:
    """The grouping key of a finding or attribute name: ``" Lung_Nodules."`` -> ``"lung nodule"``.

    Args:
        name: A name as the judge or a person wrote it.

    Returns:
        Lower case, words separated by single spaces, no surrounding punctuation or leading article, each
        word singular; an empty string when nothing is left.
    """
    text = unicodedata.normalize("NFKC", name).casefold()
    text = _SEPARATORS.sub(" ", text).strip(_EDGE_PUNCTUATION)
    for article in _ARTICLES:
        if text.startswith(article):
            text = text[len(article) :]
            break
    return " ".join(singular(word) for word in text.split())
