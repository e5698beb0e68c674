"""BLEU-1..4 and chrF through sacrebleu, ROUGE-L through rouge-score, ReXrank's BLEU: per report pair and corpus.

Per pair, BLEU-n is sacrebleu's sentence BLEU with ``max_ngram_order=n``, exponential smoothing and effective order
(what ``sacrebleu.sentence_bleu`` does), 13a tokenisation, case kept. Over a corpus, BLEU-n is sacrebleu's corpus
BLEU (exponential smoothing, no effective order), computed from the per-pair n-gram statistics with sacrebleu's own
``BLEU.compute_bleu``: the same number as ``corpus_score`` on all pairs at once. chrF is sacrebleu's default chrF
(character 6-grams, beta 2). ROUGE-L is the F-measure of
``rouge_score.rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)`` (its tokeniser lowercases and keeps
letters and digits), with the length of the longest common subsequence of the two token lists taken from
rapidfuzz's ``LCSseq`` (a bit-parallel C++ implementation) instead of rouge-score's table filled in Python, which
took most of a reward's time: the same whole number, so the same F-measure to the bit (tested against rouge-score).
None of these is computed by hand. ``bleu_rexrank`` is the ReXrank leaderboard's BLEU,
fast_bleu's bigram BLEU on ReXrank's lower-cased tokens, whose arithmetic `scorers.rexrank_bleu` writes
out; like ROUGE-L it has no corpus form (the leaderboard reports its mean over reports). Every value is on [0, 1]:
sacrebleu's 0-100 numbers are divided by 100.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache, lru_cache
from typing import Any

from radiology_tasks.scorers.rexrank_bleu import REXRANK_BLEU_KEY, rexrank_bleu

BLEU_ORDERS = (1, 2, 3, 4)
_SACREBLEU_ORDERS: dict[str, int] = {f"bleu_{n}": n for n in BLEU_ORDERS}
LEXICAL_KEYS: tuple[str, ...] = (*_SACREBLEU_ORDERS, REXRANK_BLEU_KEY, "chrf", "rouge_l")
"""Score keys of the lexical metrics, in the order they are reported."""

# What users may type in -T baselines / -T metrics: every key, and `bleu` for BLEU-1..4 at once.
_GROUPS: dict[str, tuple[str, ...]] = {"bleu": tuple(f"bleu_{n}" for n in BLEU_ORDERS)}


def lexical_names() -> tuple[str, ...]:
    """Every name a user may ask for: ``bleu`` (BLEU-1..4), ``bleu_1`` ... ``bleu_4``, ``bleu_rexrank``, ``chrf``,
    ``rouge_l``."""
    return (*_GROUPS, *LEXICAL_KEYS)


def is_lexical(name: str) -> bool:
    """Whether `name` asks for a lexical metric."""
    return name in _GROUPS or name in LEXICAL_KEYS


def lexical_keys(names: Iterable[str]) -> list[str]:
    """The score keys that `names` ask for, in `LEXICAL_KEYS` order.

    Raises:
        ValueError: for a name that is no lexical metric.
    """
    wanted: set[str] = set()
    for name in names:
        if name in _GROUPS:
            wanted.update(_GROUPS[name])
        elif name in LEXICAL_KEYS:
            wanted.add(name)
        else:
            raise ValueError(f"unknown lexical metric {name!r} (known: {', '.join(lexical_names())})")
    return [key for key in LEXICAL_KEYS if key in wanted]


@cache
def _sentence_bleu(order: int) -> Any:
    from sacrebleu.metrics import BLEU

    return BLEU(max_ngram_order=order, effective_order=True)


@cache
def _chrf() -> Any:
    from sacrebleu.metrics import CHRF

    return CHRF()


REFERENCE_CACHE_SIZE = 256
"""How many references' n-gram statistics are kept (the completions of a training batch share a few references:
GRPO scores a group of completions per prompt). A report of 450 characters takes about 100 kB for chrF's character
n-grams and 30 kB for BLEU's word n-grams."""


def _sacrebleu_metric(name: str) -> Any:
    """The sacrebleu metric behind a per-pair statistic: ``bleu`` (BLEU-4, effective order) or ``chrf``."""
    return _chrf() if name == "chrf" else _sentence_bleu(max(BLEU_ORDERS))


@lru_cache(maxsize=REFERENCE_CACHE_SIZE)
def _reference_info(name: str, reference: str) -> Any:
    """sacrebleu's n-gram statistics of one reference for metric `name`, extracted once however many candidates are
    scored against it (read only by `_segment_statistics`)."""
    metric = _sacrebleu_metric(name)
    return metric._extract_reference_info([metric._preprocess_segment(reference)])


def _segment_statistics(name: str, reference: str, candidate: str) -> list[int]:
    """sacrebleu's match statistics of one candidate against one reference: what ``sentence_score`` computes before
    it scores them, with the reference's n-grams from the cache."""
    metric = _sacrebleu_metric(name)
    return [
        int(v)
        for v in metric._compute_segment_statistics(
            metric._preprocess_segment(candidate), _reference_info(name, reference)
        )
    ]


@cache
def _rouge_tokenizer() -> Any:
    from rouge_score.tokenizers import DefaultTokenizer

    return DefaultTokenizer(use_stemmer=False)


def _rouge_l(reference: str, candidate: str) -> float:
    """rouge-score's ROUGE-L F-measure of the pair: its tokens, its precision, recall and F-measure of the longest
    common subsequence, whose length rapidfuzz computes."""
    from rapidfuzz.distance import LCSseq
    from rouge_score.scoring import fmeasure

    target, prediction = _rouge_tokenizer().tokenize(reference), _rouge_tokenizer().tokenize(candidate)
    if not target or not prediction:
        return 0.0
    common = LCSseq.similarity(target, prediction)
    return float(fmeasure(common / len(prediction), common / len(target)))


def _bleu_of_statistics(statistics: list[int], order: int) -> tuple[Any, list[Any]]:
    """Sentence BLEU-`order` of one pair's BLEU-4 match statistics (hypothesis and reference lengths, four matched
    and four total n-gram counts), which is what ``sentence_score`` of ``BLEU(max_ngram_order=order,
    effective_order=True)`` returns, and the statistics `corpus_scores` adds up for it."""
    top = max(BLEU_ORDERS)
    lengths, correct, total = statistics[:2], statistics[2 : 2 + order], statistics[2 + top : 2 + top + order]
    score = _sentence_bleu(order)._compute_score_from_stats([*lengths, *correct, *total])
    return score, [correct, total, *lengths]


def lexical_scores(reference: str, candidate: str, keys: Sequence[str]) -> tuple[dict[str, float], dict[str, Any]]:
    """Score one candidate against its reference.

    Args:
        reference: The reference report.
        candidate: The candidate report.
        keys: Score keys to compute (from `lexical_keys`).

    Returns:
        The scores on [0, 1], and the sufficient statistics that `corpus_scores` adds up
        (``bleu_<n>``: n-gram matches and totals, hypothesis and reference lengths; ``chrf``: sacrebleu's
        character and word n-gram statistics).
    """
    scores: dict[str, float] = {}
    statistics: dict[str, Any] = {}
    # One n-gram extraction serves every BLEU order asked for.
    bleu = _segment_statistics("bleu", reference, candidate) if any(key in _SACREBLEU_ORDERS for key in keys) else []
    for key in keys:
        if key in _SACREBLEU_ORDERS:
            score, statistics[key] = _bleu_of_statistics(bleu, _SACREBLEU_ORDERS[key])
            scores[key] = score.score / 100.0
        elif key == REXRANK_BLEU_KEY:
            scores[key] = rexrank_bleu(reference, candidate)
        elif key == "chrf":
            # sacrebleu's sentence chrF is its score of these statistics, and its corpus chrF sums them over pairs.
            statistics[key] = _segment_statistics("chrf", reference, candidate)
            scores[key] = _chrf()._compute_score_from_stats(statistics[key]).score / 100.0
        elif key == "rouge_l":
            scores[key] = _rouge_l(reference, candidate)
        else:
            raise ValueError(f"unknown lexical score key {key!r}")
    return scores, statistics


def corpus_scores(statistics: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, float]:
    """Corpus BLEU-n and corpus chrF from the per-pair statistics of `lexical_scores`, on [0, 1].

    ROUGE-L has no corpus form in rouge-score, and ReXrank's BLEU is averaged over reports by the leaderboard:
    their corpus values are the means over pairs, which the per-key means already give, so they are not returned
    here.

    Args:
        statistics: One mapping per scored pair, as `lexical_scores` returned them.
        keys: The score keys to aggregate; keys without statistics are ignored.

    Returns:
        ``corpus_<key>`` for each BLEU order and chrF asked for; empty when there is no pair.
    """
    from sacrebleu.metrics import BLEU

    result: dict[str, float] = {}
    if not statistics:
        return result
    for key in keys:
        if key in _SACREBLEU_ORDERS:
            order = _SACREBLEU_ORDERS[key]
            rows = [s[key] for s in statistics]
            correct = [sum(row[0][i] for row in rows) for i in range(order)]
            total = [sum(row[1][i] for row in rows) for i in range(order)]
            score = BLEU.compute_bleu(
                correct,
                total,
                sum(row[2] for row in rows),
                sum(row[3] for row in rows),
                smooth_method="exp",
                max_ngram_order=order,
            )
            result[f"corpus_{key}"] = score.score / 100.0
        elif key == "chrf":
            rows = [s[key] for s in statistics]
            summed = [sum(column) for column in zip(*rows)]
            result["corpus_chrf"] = _chrf()._compute_score_from_stats(summed).score / 100.0
    return result
