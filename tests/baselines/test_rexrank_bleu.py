"""ReXrank's BLEU (`bleu_rexrank`): the procedure against fast_bleu's own numbers, and the name in -T baselines."""

from __future__ import annotations

import math

import pytest
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import SampleScore, Target
from inspect_ai.solver import TaskState

from radiology_tasks.core.errors import InputError
from radiology_tasks.core.metrics import mean_of
from radiology_tasks.core.records import ReportPair
from radiology_tasks.lexical import (
    baseline_metrics,
    checked_lexical_keys,
    corpus_lexical,
    lexical_baselines,
    metric_names,
)
from radiology_tasks.scorers.lexical import (
    LEXICAL_KEYS,
    corpus_scores,
    is_lexical,
    lexical_keys,
    lexical_names,
    lexical_scores,
)
from radiology_tasks.scorers.rexrank_bleu import rexrank_bleu, rexrank_tokens

# (reference, candidate, score). The scores were computed with fast_bleu 0.0.90 (PyPI sdist) by ReXrank's
# procedure: each text lower-cased, "." replaced by " .", split at " ", empty pieces dropped, then
# fast_bleu.BLEU([reference_tokens], {"bigram": (1/2., 1/2.)}).get_score([candidate_tokens])["bigram"][0].
FAST_BLEU_VALUES = {
    "identical": ("No acute cardiopulmonary process.", "No acute cardiopulmonary process.", 1.0),
    "disjoint": ("Heart size normal", "lungs clear bilaterally", 0.0),
    # One candidate token: no bigram at all, smoothed to 0.1 / 1; brevity penalty exp(1 - 2/1).
    "one_token_candidate": ("Normal.", "normal", 0.11633369384516794),
    "one_token_each": ("normal", "Normal", 0.3162277660168379),
    # The comma stays on its word; "1.5" becomes "1" ".5".
    "punctuation": (
        "No effusion, no pneumothorax. Nodule measures 1.5 cm.",
        "No effusion or pneumothorax. Nodule measures 1.5cm.",
        0.5046941987886602,
    ),
    "case": ("NO PNEUMOTHORAX. Heart Size Normal.", "no pneumothorax. heart size normal.", 1.0),
    "multi_sentence": (
        "The lungs are clear. There is no pleural effusion or pneumothorax. The heart size is normal.",
        "Heart size is normal. The lungs are clear without effusion. No pneumothorax.",
        0.5932855397749207,
    ),
    "only_period_candidate": ("No acute findings.", ".", 0.01574405340649719),
    # A newline is no separator: ".\nlungs" is one reference token.
    "newline_not_split": ("Heart normal.\nLungs clear.", "Heart normal. Lungs clear.", 0.5163977794943222),
    # "the" is clipped to its one occurrence in the reference; no bigram matches (0.1 / 3).
    "clipped_longer_candidate": ("the cat", "the the the the", 0.09128709291752769),
    "empty_candidate": ("No acute findings.", "", 0.0),
    "no_unigram_match": ("a b", "c", 0.0),
}


@pytest.mark.parametrize("case", FAST_BLEU_VALUES)
def test_procedure_gives_fast_bleus_numbers(case):
    reference, candidate, expected = FAST_BLEU_VALUES[case]
    # fast_bleu sums its logarithms in long double: the last bit may differ.
    assert rexrank_bleu(reference, candidate) == pytest.approx(expected, rel=1e-12, abs=1e-15)


def test_hand_checked_values():
    # p1 = 1/1, p2 = 0.1/1 (smoothed), brevity penalty exp(1 - 4/1).
    assert rexrank_bleu("No acute findings.", ".") == pytest.approx(math.exp(-3) * math.sqrt(0.1))
    # p1 = 1/4 after clipping, p2 = 0.1/3, no brevity penalty (the candidate is longer).
    assert rexrank_bleu("the cat", "the the the the") == pytest.approx(math.sqrt(1 / 4 * 0.1 / 3))


def test_tokens():
    assert rexrank_tokens("Heart  Size 1.5cm.\nNext\tline") == ["heart", "size", "1", ".5cm", ".\nnext\tline"]
    assert rexrank_tokens("   ") == []


def test_bleu_rexrank_is_not_sacrebleus_bleu_2():
    reference, candidate, _ = FAST_BLEU_VALUES["case"]
    scores, statistics = lexical_scores(reference, candidate, ["bleu_2", "bleu_rexrank"])
    assert scores["bleu_rexrank"] == 1.0
    assert scores["bleu_2"] < 1.0  # sacrebleu keeps case
    assert set(statistics) == {"bleu_2"}  # no corpus statistics: ReXrank reports the mean over reports


def test_name_is_a_lexical_baseline():
    assert "bleu_rexrank" in LEXICAL_KEYS and "bleu_rexrank" in lexical_names() and is_lexical("bleu_rexrank")
    assert lexical_keys(["rouge_l", "bleu_rexrank", "bleu"]) == [
        "bleu_1",
        "bleu_2",
        "bleu_3",
        "bleu_4",
        "bleu_rexrank",
        "rouge_l",
    ]
    assert "bleu_rexrank" not in lexical_keys(["bleu"])
    assert checked_lexical_keys(metric_names("bleu_rexrank,bleu_2", "baselines"), "baselines") == [
        "bleu_2",
        "bleu_rexrank",
    ]
    with pytest.raises(InputError, match="known: .*bleu_rexrank"):
        checked_lexical_keys(["bleu_rexrnk"], "baselines")
    metrics = baseline_metrics("bleu_rexrank", experts=None)
    assert len(metrics) == 2  # its mean and the corpus metric


def test_corpus_scores_leave_bleu_rexrank_out():
    statistics = [lexical_scores(r, c, LEXICAL_KEYS)[1] for r, c, _ in FAST_BLEU_VALUES.values() if c]
    corpus = corpus_scores(statistics, LEXICAL_KEYS)
    assert "corpus_bleu_2" in corpus and not any("rexrank" in key for key in corpus)


def _state(sample_id: str, reference: str, candidate: str) -> TaskState:
    # A blank report can only come from the model under test (the data refuses one).
    pair = ReportPair(id=sample_id, reference=reference, candidate=candidate if candidate.strip() else None)
    return TaskState(
        model="none/none",
        sample_id=sample_id,
        epoch=1,
        input="",
        messages=[],
        output=ModelOutput.from_content(model="none", content=candidate),
        metadata=pair.model_dump(mode="json"),
    )


async def test_scorer_value_and_mean_over_reports():
    score = lexical_baselines("bleu_rexrank,bleu_2")
    cases = ["punctuation", "multi_sentence", "one_token_candidate"]
    samples: list[SampleScore] = []
    for case in cases:
        reference, candidate, expected = FAST_BLEU_VALUES[case]
        result = await score(_state(case, reference, candidate), Target(reference))
        assert result.value["bleu_rexrank"] == pytest.approx(expected, rel=1e-12)
        samples.append(SampleScore(score=result, sample_id=case))
    empty = await score(_state("empty", "No acute findings.", " "), Target("No acute findings."))
    assert empty.value["bleu_rexrank"] == 0.0  # unscored, counted as the worst score by default
    samples.append(SampleScore(score=empty, sample_id="empty"))
    mean = mean_of("bleu_rexrank")(samples)
    assert mean == {"bleu_rexrank_mean": pytest.approx(sum(FAST_BLEU_VALUES[c][2] for c in cases) / 4)}
    corpus = corpus_lexical()(samples)
    assert "corpus_bleu_2" in corpus and not any("rexrank" in key for key in corpus)
