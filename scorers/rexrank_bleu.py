"""BLEU the way the ReXrank chest X-ray leaderboard computes it: fast_bleu's bigram BLEU, one report at a time.

ReXrank's evaluation (``example_files/evaluation_script.md`` in rajpurkarlab/ReXrank) turns a submission into
report CSVs and scores them with the metric code of rajpurkarlab/CXR-Report-Metric. Its BLEU is ``add_bleu_col``
with ``prep_reports`` in ``CXRMetric/run_eval.py`` there:

- each text is lower-cased, every ``.`` gets a space put before it, the text is cut at each single space
  character (``" "``, not at newlines or tabs), and empty pieces are dropped;
- each candidate is scored against its own reference alone, with ``fast_bleu.BLEU`` and the weights
  ``(1/2, 1/2)`` (unigram and bigram precision), fast_bleu's defaults otherwise: smoothing method 1 and no
  automatic re-weighting;
- the leaderboard reports the mean of these per-report values.

fast_bleu is NLTK's BLEU rewritten in C++. For a single reference it gives, per candidate: modified (clipped)
n-gram precisions whose denominator is at least 1; 0 when no unigram matches; otherwise an n-gram order without
a match gets numerator 0.1 (NLTK's smoothing ``method1``, epsilon 0.1); the brevity penalty is 1 when the
candidate is longer than the reference, 0 when it is empty, ``exp(1 - r / c)`` otherwise; the score is the
penalty times the weighted geometric mean of the precisions.

fast_bleu is published as source only (it needs a C++ compiler to install), so that arithmetic is written out
here instead; the tests pin it to values the real fast_bleu gave.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence

REXRANK_BLEU_KEY = "bleu_rexrank"
"""Score key of ReXrank's BLEU."""

REXRANK_WEIGHTS: tuple[float, ...] = (0.5, 0.5)
"""ReXrank's weights: unigram and bigram precision, equally."""

SMOOTHING_EPSILON = 0.1
"""What fast_bleu's default smoothing (NLTK's ``method1``) puts in place of a zero n-gram match count."""


def rexrank_tokens(text: str) -> list[str]:
    """The tokens ReXrank's evaluation makes of a report.

    Lower case; a space before every ``.`` (so full stops, and the dot of ``1.5``, become tokens of their own);
    split at each space character only; empty tokens dropped.
    """
    return [token for token in text.lower().replace(".", " .").split(" ") if token]


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def _clipped_precision(reference: Sequence[str], candidate: Sequence[str], n: int) -> tuple[int, int]:
    """Candidate n-grams found in the reference (each counted at most as often as there) and the candidate's
    n-gram count, at least 1."""
    found = _ngrams(candidate, n)
    available = _ngrams(reference, n)
    matches = sum(min(count, available[ngram]) for ngram, count in found.items())
    return matches, max(1, sum(found.values()))


def _brevity_penalty(reference_length: int, candidate_length: int) -> float:
    if candidate_length > reference_length:
        return 1.0
    if candidate_length == 0:
        return 0.0
    return math.exp(1.0 - reference_length / candidate_length)


def bleu_from_tokens(
    reference: Sequence[str], candidate: Sequence[str], weights: Sequence[float] = REXRANK_WEIGHTS
) -> float:
    """fast_bleu's sentence BLEU (default smoothing, one reference) of already tokenised texts, on [0, 1]."""
    precisions = [_clipped_precision(reference, candidate, n) for n in range(1, len(weights) + 1)]
    if precisions[0][0] == 0:
        return 0.0
    log_sum = 0.0
    for weight, (matches, total) in zip(weights, precisions):
        numerator = float(matches) if matches else SMOOTHING_EPSILON
        log_sum += weight * math.log(numerator / total)
    return _brevity_penalty(len(reference), len(candidate)) * math.exp(log_sum)


def rexrank_bleu(reference: str, candidate: str) -> float:
    """ReXrank's BLEU of one candidate report against its reference, on [0, 1] (0 for an empty candidate).

    The leaderboard's number for a model is the mean of this over its reports.
    """
    return bleu_from_tokens(rexrank_tokens(reference), rexrank_tokens(candidate))
