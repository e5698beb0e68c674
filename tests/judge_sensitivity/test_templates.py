"""The family's prompts render from the inputs the solvers and the scorer give them."""

from __future__ import annotations

import pytest

from radiology_tasks.core.records import CATEGORY_NAMES, ReportPair
from radiology_tasks.report_judge.scorer import TEMPLATES
from radiology_tasks.scorers.judge_sensitivity.answers import Change
from radiology_tasks.scorers.judge_sensitivity.sentences import split_sentences
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS
from radiology_tasks.solvers.judge_sensitivity.prompts import (
    injection_inputs,
    paraphrase_check_inputs,
    paraphrase_inputs,
    plausibility_inputs,
)
from radiology_tasks.solvers.judge_sensitivity.variants import VariantSpec
from radiology_tasks.templates import render

PAIR = ReportPair(id="r", reference="Small left effusion. No pneumothorax.", modality="XR", anatomy="chest")
SPLIT = split_sentences(PAIR.reference)


@pytest.mark.parametrize(
    ("spec", "guidance", "deletions"),
    [
        (VariantSpec("error", "a", 2), "(a) A false finding.", False),
        (VariantSpec("error", "b", 1), "(b) A missed finding.", True),
        (VariantSpec("error", "f", 1), "(f) A missed comparison.", True),
        (VariantSpec("attribute", None, 1), "A changed detail.", False),
    ],
)
def test_the_injection_prompt_numbers_the_sentences_and_names_the_error(spec, guidance, deletions) -> None:
    text = render("judge_sensitivity/inject", **injection_inputs(PAIR, SPLIT, spec))
    assert "Sentence 0: Small left effusion.\nSentence 1: No pneumothorax.\n" in text
    assert f"Put errors into exactly {spec.n_changes} of them" in text
    assert guidance in text and "Study: XR, chest." in text
    assert ("delete its whole sentence" in text) is deletions


def test_the_checks_show_the_changes_or_the_rewrites() -> None:
    change = Change(sentence_index=1, original="No pneumothorax.", modified="", explanation="removed")
    text = render("judge_sensitivity/plausibility", **plausibility_inputs(PAIR, "Small left effusion.", [change]))
    assert "1. Sentence 1, originally: No pneumothorax.\n   now: (deleted)\n   intended error: removed" in text
    rewrites = {0: "Effusion on the left.", 1: "There is no pneumothorax."}
    text = render("judge_sensitivity/paraphrase_check", **paraphrase_check_inputs(PAIR, SPLIT, rewrites))
    assert "Sentence 1: No pneumothorax.\n" in text and "Sentence 1: There is no pneumothorax.\n" in text
    text = render("judge_sensitivity/paraphrase", **paraphrase_inputs(PAIR, SPLIT))
    assert "Sentence 0 (rewrite in at most 80 characters): Small left effusion." in text


@pytest.mark.parametrize("prompt", ["green", "vert", "formula", "rubric"])
def test_the_second_pass_is_the_judge_prompt_with_the_differences_to_classify(prompt: str) -> None:
    shared = {"reference": "REF", "candidate": "CAND", "examples": [], "error_descriptions": False}
    shared |= {"bounds": DETAIL_BOUNDS["full"], "detail": "full"}
    one_pass = render(TEMPLATES[prompt], **shared)
    two_pass = render("judge_sensitivity/classify", base=f"{TEMPLATES[prompt]}.jinja", differences=["x"], **shared)
    added = "## Differences found in a first reading"
    assert added in two_pass and "1. x\n" in two_pass
    head, tail = one_pass.split("\n## Answer format", 1)
    assert two_pass.startswith(head) and two_pass.endswith("## Answer format" + tail)
    empty = render("judge_sensitivity/classify", base=f"{TEMPLATES[prompt]}.jinja", differences=[], **shared)
    assert "(The first reading found no difference.)" in empty


def test_the_first_pass_shows_both_reports_between_their_tags() -> None:
    text = render("judge_sensitivity/differences", reference="REF", candidate="CAND", max_differences=12)
    assert "<reference_report>\nREF\n</reference_report>" in text and "<candidate_report>\nCAND\n" in text
    assert "at most 12 differences" in text


def test_a_variant_describes_itself_and_an_error_without_category_is_refused() -> None:
    assert VariantSpec("error", "c", 2).describe("R1") == (
        "Reference R1 with 2 clinically significant errors of type (c), "
        f"{CATEGORY_NAMES['c'].lower()}, one per sentence."
    )
    with pytest.raises(ValueError, match="^error variant of reference R1 names no error category$"):
        VariantSpec("error", None, 1).describe("R1")


def test_the_family_s_prompt_templates_are_these():
    from radiology_tasks.templates import template_names

    assert [name for name in template_names() if name.startswith("judge_sensitivity/")] == [
        "judge_sensitivity/classify",
        "judge_sensitivity/differences",
        "judge_sensitivity/inject",
        "judge_sensitivity/paraphrase",
        "judge_sensitivity/paraphrase_check",
        "judge_sensitivity/plausibility",
    ]
