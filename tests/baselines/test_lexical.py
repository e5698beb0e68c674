"""BLEU, chrF and ROUGE-L per pair and over a corpus: hand-checked values, and sacrebleu's/rouge-score's own."""

from __future__ import annotations

import pytest
from rouge_score import rouge_scorer
from sacrebleu.metrics import BLEU, CHRF

from radiology_tasks.scorers.lexical import LEXICAL_KEYS, corpus_scores, lexical_keys, lexical_scores

PAIRS = [
    ("the cat is on the mat", "the cat sat on the mat"),
    ("No pleural effusion. Heart size is normal.", "Heart size normal. No effusion seen."),
    ("Small left pneumothorax, 2 cm.", "Small right pneumothorax, 2 cm."),
    ("Mild centrilobular emphysema in the upper lobes.", "Emphysema."),
]


def test_hand_checked_pair():
    # 5 of 6 candidate unigrams are in the reference, same length (no brevity penalty); LCS "the cat on the mat".
    scores, _ = lexical_scores("the cat is on the mat", "the cat sat on the mat", ["bleu_1", "rouge_l"])
    assert scores["bleu_1"] == pytest.approx(5 / 6)
    assert scores["rouge_l"] == pytest.approx(5 / 6)
    same, _ = lexical_scores("No acute findings.", "No acute findings.", LEXICAL_KEYS)
    assert same == pytest.approx(dict.fromkeys(LEXICAL_KEYS, 1.0))


@pytest.mark.parametrize(("reference", "candidate"), PAIRS)
def test_per_pair_values_are_sacrebleu_and_rouge_score(reference, candidate):
    scores, _ = lexical_scores(reference, candidate, LEXICAL_KEYS)
    for order in (1, 2, 3, 4):
        expected = BLEU(max_ngram_order=order, effective_order=True).sentence_score(candidate, [reference])
        assert scores[f"bleu_{order}"] == pytest.approx(expected.score / 100)
    assert scores["chrf"] == pytest.approx(CHRF().sentence_score(candidate, [reference]).score / 100)
    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False).score(reference, candidate)["rougeL"]
    assert scores["rouge_l"] == pytest.approx(rouge.fmeasure)


def test_bleu_2_is_sacrebleus_sentence_bleu_of_order_two():
    reference, candidate = PAIRS[1]
    scores, _ = lexical_scores(reference, candidate, ["bleu_2"])
    expected = BLEU(max_ngram_order=2, effective_order=True).sentence_score(candidate, [reference]).score / 100
    assert scores == {"bleu_2": pytest.approx(expected)}
    assert 0 < scores["bleu_2"] < 1


EDGE_PAIRS = [*PAIRS, ("a b c", "a b d"), ("one", "two three four five"), ("x", ""), ("", "x"), ("same", "same")]


@pytest.mark.parametrize(("reference", "candidate"), EDGE_PAIRS)
@pytest.mark.parametrize("keys", [["bleu_1"], ["bleu_3"], ["bleu_1", "bleu_4"], ["bleu_2", "bleu_3", "chrf"]])
def test_bleu_orders_and_chrf_from_one_pass_equal_sacrebleus_own_exactly(reference, candidate, keys):
    # Every order asked for is read from one n-gram extraction (of the highest order asked), and chrF's score
    # from the statistics kept for the corpus: the numbers must be sacrebleu's own to the last bit, and so must the
    # statistics the corpus values add up.
    scores, statistics = lexical_scores(reference, candidate, keys)
    for key in keys:
        if key == "chrf":
            chrf = CHRF()
            assert scores[key] == chrf.sentence_score(candidate, [reference]).score / 100
            assert statistics[key] == list(chrf._extract_corpus_statistics([candidate], [[reference]])[0])
            continue
        order = int(key[-1])
        expected = BLEU(max_ngram_order=order, effective_order=True).sentence_score(candidate, [reference])
        assert scores[key] == expected.score / 100
        assert statistics[key] == [expected.counts, expected.totals, expected.sys_len, expected.ref_len]


def test_candidates_sharing_a_reference_read_its_ngrams_once_and_score_as_sacrebleu_alone():
    # A training batch scores a group of completions against one reference: its n-grams are extracted once per
    # metric, and every score is still the one sacrebleu gives the pair on its own (a reference with trailing
    # spaces, which BLEU's preprocessing strips and chrF's keeps, included).
    from radiology_tasks.scorers.lexical import _reference_info

    reference = "Small left pneumothorax, 2 cm. No effusion.  "
    candidates = ["Small right pneumothorax.", "", "No effusion. Small left pneumothorax, 2 cm.", reference]
    _reference_info.cache_clear()
    for candidate in candidates:
        scores, _ = lexical_scores(reference, candidate, ["bleu_1", "bleu_4", "chrf"])
        for order in (1, 4):
            expected = BLEU(max_ngram_order=order, effective_order=True).sentence_score(candidate, [reference])
            assert scores[f"bleu_{order}"] == expected.score / 100
        assert scores["chrf"] == CHRF().sentence_score(candidate, [reference]).score / 100
    info = _reference_info.cache_info()
    assert (info.misses, info.hits) == (2, 2 * (len(candidates) - 1))


def test_rouge_l_equals_rouge_scores_own_on_random_token_lists_and_odd_texts():
    # The longest common subsequence comes from rapidfuzz rather than rouge-score's table: the F-measure must be
    # rouge-score's to the bit, on texts its tokeniser empties or folds (punctuation only, case, digits) and on
    # random texts over a small vocabulary (many repeated tokens, so many equal-length subsequences).
    import random

    rouge = rouge_scorer.RougeScorer(["rougeL"], use_stemmer=False)
    odd = [("", "x"), ("x", ""), ("...", "!!"), ("A b 3", "a B 3"), ("x", "y"), ("the the the", "the")]
    generator = random.Random(7)
    words = ["no", "left", "effusion", "the", "2", "cm", "Lobe"]
    texts = [" ".join(generator.choices(words, k=generator.randint(0, 60))) for _ in range(400)]
    for reference, candidate in [*odd, *zip(texts[::2], texts[1::2])]:
        scores, _ = lexical_scores(reference, candidate, ["rouge_l"])
        assert scores["rouge_l"] == float(rouge.score(reference, candidate)["rougeL"].fmeasure), (reference, candidate)


def test_corpus_values_are_sacrebleus_corpus_scores():
    statistics = [lexical_scores(r, c, LEXICAL_KEYS)[1] for r, c in PAIRS]
    corpus = corpus_scores(statistics, LEXICAL_KEYS)
    hypotheses, references = [c for _, c in PAIRS], [[r for r, _ in PAIRS]]
    for order in (1, 2, 3, 4):
        expected = BLEU(max_ngram_order=order).corpus_score(hypotheses, references).score / 100
        assert corpus[f"corpus_bleu_{order}"] == pytest.approx(expected)
    assert corpus["corpus_chrf"] == pytest.approx(CHRF().corpus_score(hypotheses, references).score / 100)
    assert "corpus_rouge_l" not in corpus
    assert corpus_scores([], LEXICAL_KEYS) == {}


def test_names_expand_and_unknown_names_fail():
    assert lexical_keys(["rouge_l", "bleu"]) == ["bleu_1", "bleu_2", "bleu_3", "bleu_4", "rouge_l"]
    assert lexical_keys(["bleu_2", "bleu_2", "chrf"]) == ["bleu_2", "chrf"]
    with pytest.raises(ValueError, match="unknown lexical metric 'meteor'"):
        lexical_keys(["meteor"])
