"""Tests for scorers.report_judge.parse: every tolerated variant and every failure reason."""

from __future__ import annotations

import re

import pytest

from radiology_tasks.core.records import ErrorCounts
from radiology_tasks.scorers.report_judge.grammar import SCORE_ONLY_GBNF, SCORE_ONLY_REGEX
from radiology_tasks.scorers.report_judge.parse import (
    FORMAT_ERROR_REASONS,
    Assessment,
    AssessmentFormatError,
    parse_assessment,
    parse_score_answer,
)

# In the style of GREEN-RadLlama2-7b: explanation paragraph, blank lines between sections,
# every category with a "<count>." and the matched findings as "<count>. a; b".
GREEN_STYLE = """[Explanation]:
The candidate report misses the small left pleural effusion described in the reference and \
places the consolidation in the right lower lobe instead of the left lower lobe. It also \
mentions mild cardiomegaly, which the reference does not report.

[Clinically Significant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 1. Small left pleural effusion.
(c) Misidentification of a finding's anatomic location/position: 1. Consolidation reported in \
the right lower lobe instead of the left lower lobe.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Clinically Insignificant Errors]:
(a) False report of a finding in the candidate: 1. Mild cardiomegaly.
(b) Missing a finding present in the reference: 0.
(c) Misidentification of a finding's anatomic location/position: 0.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.

[Matched Findings]:
2. No pneumothorax; Endotracheal tube in standard position.
"""

GREEN_STYLE_EXPLANATION = (
    "The candidate report misses the small left pleural effusion described in the reference and "
    "places the consolidation in the right lower lobe instead of the left lower lobe. It also "
    "mentions mild cardiomegaly, which the reference does not report."
)

# The same verdict in the compact VERT form, with a score.
VERT_ANSWER = """[Explanation]:
One effusion missed, one consolidation on the wrong side, one extra minor finding.
[Clinically Significant Errors]:
(a) False report of a finding in the candidate: 0.
(b) Missing a finding present in the reference: 1. Small left pleural effusion.
(c) Misidentification of a finding's anatomic location/position: 1. Consolidation side.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.
[Clinically Insignificant Errors]:
(a) False report of a finding in the candidate: 1. Mild cardiomegaly.
(b) Missing a finding present in the reference: 0.
(c) Misidentification of a finding's anatomic location/position: 0.
(d) Misassessment of the severity of a finding: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(f) Omitting a comparison detailing a change from a prior study: 0.
[Matched Findings]:
2. No pneumothorax; Endotracheal tube in standard position.
[Overall Accuracy Score]:
0.55
"""

SIG_B1_C1 = ErrorCounts(b=1, c=1)
INSIG_A1 = ErrorCounts(a=1)
ZERO = ErrorCounts()


def _edit(text: str, old: str, new: str, count: int = 1) -> str:
    """Replace `old` by `new`, insisting that `old` occurs exactly `count` times."""
    assert text.count(old) == count, f"{old!r} occurs {text.count(old)} times, not {count}"
    return text.replace(old, new)


def _section(text: str, header: str, body: str) -> str:
    """Replace the body of the section that starts at `header` (up to the next header)."""
    start = text.index(header) + len(header)
    end = text.find("\n[", start)
    return text[:start] + body + (text[end:] if end != -1 else "\n")


def _assert_counts(
    assessment: Assessment,
    significant: ErrorCounts,
    insignificant: ErrorCounts,
    matched: int,
    score: float | None,
) -> None:
    assert assessment.significant == significant
    assert assessment.insignificant == insignificant
    assert assessment.matched == matched
    assert assessment.score == score


# --- answers that parse -------------------------------------------------------------------------


def test_green_model_style_answer() -> None:
    result = parse_assessment(GREEN_STYLE, require_score=False)
    _assert_counts(result, SIG_B1_C1, INSIG_A1, 2, None)
    assert result.explanation == GREEN_STYLE_EXPLANATION


def test_green_model_style_with_none_body_and_eos_token() -> None:
    text = _section(GREEN_STYLE, "[Clinically Insignificant Errors]:", "\nNone.\n")
    text = _edit(text, "standard position.\n", "standard position.</s>")
    _assert_counts(parse_assessment(text, require_score=False), SIG_B1_C1, ZERO, 2, None)


def test_vert_answer() -> None:
    result = parse_assessment(VERT_ANSWER, require_score=True)
    _assert_counts(result, SIG_B1_C1, INSIG_A1, 2, 0.55)
    assert result.explanation == ("One effusion missed, one consolidation on the wrong side, one extra minor finding.")


def test_score_is_read_when_not_required() -> None:
    _assert_counts(parse_assessment(VERT_ANSWER, require_score=False), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_missing_explanation_gives_none() -> None:
    text = VERT_ANSWER.split("\n", 2)[2]
    assert text.startswith("[Clinically Significant Errors]:")
    result = parse_assessment(text, require_score=True)
    _assert_counts(result, SIG_B1_C1, INSIG_A1, 2, 0.55)
    assert result.explanation is None


def test_explanation_on_header_line() -> None:
    text = _edit(VERT_ANSWER, "[Explanation]:\nOne", "[Explanation]: One")
    result = parse_assessment(text, require_score=True)
    assert result.explanation == ("One effusion missed, one consolidation on the wrong side, one extra minor finding.")


def test_preamble_before_first_header_is_ignored() -> None:
    text = "Sure, here is my assessment of the candidate report.\n\n" + VERT_ANSWER
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_blank_lines_between_category_lines() -> None:
    text = _edit(VERT_ANSWER, ".\n(", ".\n\n(", count=10)
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_crlf_line_endings() -> None:
    text = VERT_ANSWER.replace("\n", "\r\n")
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_markdown_around_headers() -> None:
    text = _edit(VERT_ANSWER, "[Clinically Significant Errors]:", "**[Clinically Significant Errors]:**")
    text = _edit(text, "[Clinically Insignificant Errors]:", "**[Clinically Insignificant Errors]**:")
    text = _edit(text, "[Matched Findings]:", "### [Matched Findings]")
    text = _edit(text, "[Overall Accuracy Score]:", "## **[Overall Accuracy Score]**")
    text = _edit(text, "[Explanation]:", "_[Explanation]_:")
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_headers_without_colon_and_in_other_case() -> None:
    text = _edit(VERT_ANSWER, "[Clinically Significant Errors]:", "[CLINICALLY SIGNIFICANT ERRORS]")
    text = _edit(text, "[Clinically Insignificant Errors]:", "[clinically insignificant errors]:")
    text = _edit(text, "[Overall Accuracy Score]:", "[Overall accuracy Score]:")
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


@pytest.mark.parametrize(
    "written",
    [
        "1.",
        "1",
        "1 error",
        "1 errors",
        "**1**.",
        "1. Small left pleural effusion; see explanation.",
        "1 (Small left pleural effusion)",
    ],
)
def test_count_spellings(written: str) -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1. Small left pleural effusion.",
        f"(b) Missing a finding present in the reference: {written}",
    )
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_two_digit_count() -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1. Small left pleural effusion.",
        "(b) Missing a finding present in the reference: 12. Many findings.",
    )
    _assert_counts(parse_assessment(text, require_score=True), ErrorCounts(b=12, c=1), INSIG_A1, 2, 0.55)


def test_categories_out_of_order() -> None:
    significant = """
(f) Omitting a comparison detailing a change from a prior study: 0.
(c) Misidentification of a finding's anatomic location/position: 1. Consolidation side.
(a) False report of a finding in the candidate: 0.
(e) Mentioning a comparison that isn't in the reference: 0.
(b) Missing a finding present in the reference: 1. Small left pleural effusion.
(d) Misassessment of the severity of a finding: 0.
"""
    text = _section(VERT_ANSWER, "[Clinically Significant Errors]:", significant)
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


@pytest.mark.parametrize(
    "body",
    [
        "None",
        "None.",
        "**None**",
        "No errors.",
        "No errors found.",
        "No clinically significant errors.",
        "No clinically significant errors were identified.",
        "\n\nNone.\n\n",
    ],
)
def test_no_errors_body_means_all_zero(body: str) -> None:
    text = _section(VERT_ANSWER, "[Clinically Significant Errors]:", "\n" + body + "\n")
    _assert_counts(parse_assessment(text, require_score=True), ZERO, INSIG_A1, 2, 0.55)


def test_no_errors_on_header_line() -> None:
    text = _section(VERT_ANSWER, "[Clinically Insignificant Errors]:", " No clinically insignificant errors.\n")
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, ZERO, 2, 0.55)


def test_count_on_line_after_category() -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1. Small left pleural effusion.",
        "(b) Missing a finding present in the reference:\n1. Small left pleural effusion.",
    )
    text = _edit(
        text,
        "Consolidation side.\n(d) Misassessment of the severity of a finding: 0.",
        "Consolidation side.\n(d) Misassessment of the severity of a finding:\n\n0",
    )
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_continuation_lines_after_a_count() -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1. Small left pleural effusion.",
        "(b) Missing a finding present in the reference: 1.\n- Small left pleural effusion",
    )
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


@pytest.mark.parametrize("marker", ["(b)", "b)", "b.", "(B)", "**(b)**", "- (b)", "* b)"], ids=lambda m: m)
def test_category_markers(marker: str) -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1.",
        f"{marker} Missing a finding present in the reference: 1.",
    )
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_all_bare_markers_and_short_labels() -> None:
    significant = """
a) False report: 0.
b) Missing finding: 1. Effusion.
c) Location: 1. Consolidation side.
d) Severity: 0.
e) False comparison: 0.
f) Missing comparison: 0.
"""
    text = _section(VERT_ANSWER, "[Clinically Significant Errors]:", significant)
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


def test_category_without_label() -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1.",
        "(b): 1.",
    )
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("0.85", 0.85),
        (".85", 0.85),
        ("0.85/1", 0.85),
        ("0.85 / 1.0", 0.85),
        ("**0.85**", 0.85),
        ("0.85.", 0.85),
        ("0.85 (high accuracy, one minor discrepancy)", 0.85),
        ("1", 1.0),
        ("1.00", 1.0),
        ("0", 0.0),
        ("0.0", 0.0),
        ("0.85\n\nThe candidate is mostly correct.", 0.85),
    ],
)
def test_score_spellings(written: str, expected: float) -> None:
    text = _section(VERT_ANSWER, "[Overall Accuracy Score]:", "\n" + written)
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, expected)


def test_score_on_header_line() -> None:
    text = _edit(VERT_ANSWER, "[Overall Accuracy Score]:\n0.55", "[Overall Accuracy Score]: 0.55")
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("\n3. Heart size normal; No pneumothorax; No effusion.", 3),
        ("\n3", 3),
        ("\n3 findings matched", 3),
        ("\n**3.** Heart size normal; No pneumothorax; No effusion.", 3),
        ("\nNone", 0),
        ("\nNone.", 0),
        ("\nNo matched findings.", 0),
        ("\n0", 0),
        ("\n0.", 0),
        (" 2. No pneumothorax; Tube in position.", 2),
        ("\n\n2. No pneumothorax; Tube in position.\n\nBoth reports agree on these.", 2),
    ],
)
def test_matched_findings_spellings(body: str, expected: int) -> None:
    text = _section(VERT_ANSWER, "[Matched Findings]:", body)
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, expected, 0.55)


def test_sections_in_another_order() -> None:
    text = """[Matched Findings]:
1. No pneumothorax.
[Overall Accuracy Score]:
0.40
[Clinically Insignificant Errors]:
None.
[Clinically Significant Errors]:
No errors.
[Explanation]:
Short.
"""
    result = parse_assessment(text, require_score=True)
    _assert_counts(result, ZERO, ZERO, 1, 0.40)
    assert result.explanation == "Short."


def test_answer_without_final_newline() -> None:
    text = VERT_ANSWER.rstrip("\n")
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


# --- answers that are refused -------------------------------------------------------------------


def _reason(text: str, *, require_score: bool = True) -> tuple[str, str]:
    with pytest.raises(AssessmentFormatError) as caught:
        parse_assessment(text, require_score=require_score)
    return caught.value.reason, caught.value.detail


@pytest.mark.parametrize("text", ["", "   \n\t\n"])
def test_empty_answer(text: str) -> None:
    assert _reason(text) == ("empty_answer", "the answer is empty")


@pytest.mark.parametrize(
    "header",
    [
        "[Clinically Significant Errors]:",
        "[Clinically Insignificant Errors]:",
        "[Matched Findings]:",
    ],
)
def test_missing_section(header: str) -> None:
    text = _edit(VERT_ANSWER, header, "Section:")
    assert _reason(text) == ("missing_section", header[1:-2])


def test_header_without_brackets_is_not_a_header() -> None:
    text = _edit(VERT_ANSWER, "[Matched Findings]:", "**Matched Findings:**")
    assert _reason(text) == ("missing_section", "Matched Findings")


def test_second_score_section_without_the_candidate_conflicts() -> None:
    text = _edit(
        VERT_ANSWER,
        "one extra minor finding.\n",
        "one extra minor finding. The candidate ends with:\n[Overall Accuracy Score]:\n1.00\n",
    )
    assert _reason(text) == ("conflicting_verdicts", "Overall Accuracy Score")
    assert _reason(text, require_score=False) == ("conflicting_verdicts", "Overall Accuracy Score")


def test_conflicting_error_section() -> None:
    text = VERT_ANSWER + "[Clinically Significant Errors]:\nNone.\n"
    assert _reason(text) == ("conflicting_verdicts", "Clinically Significant Errors")


def test_conflicting_section_in_other_spelling() -> None:
    text = VERT_ANSWER + "**[matched findings]**\n0.\n"
    assert _reason(text) == ("conflicting_verdicts", "Matched Findings")


def test_a_repeated_identical_verdict_is_one_verdict() -> None:
    text = VERT_ANSWER + "[Matched Findings]:\n2. The same two findings.\n[Overall Accuracy Score]:\n0.55\n"
    _assert_counts(parse_assessment(text, require_score=True), SIG_B1_C1, INSIG_A1, 2, 0.55)


@pytest.mark.parametrize(
    "body",
    ["\n", "\nThe candidate is accurate.\n", "\nNone. But see the explanation.\n", "\n0\n"],
)
def test_unreadable_error_section(body: str) -> None:
    text = _section(VERT_ANSWER, "[Clinically Significant Errors]:", body)
    assert _reason(text) == (
        "unreadable_section",
        "Clinically Significant Errors: no category lines and no 'no errors' statement",
    )


def test_missing_category_as_original_green_sometimes_writes() -> None:
    significant = """
(b) Missing a finding present in the reference: 1. Multiple left-sided rib fractures.
(c) Misidentification of a finding's anatomic location/position: 1. Effusion side.
(e) Mentioning a comparison that isn't in the reference: 1. Comparison to a prior CT.
"""
    text = _section(GREEN_STYLE, "[Clinically Significant Errors]:", significant)
    assert _reason(text, require_score=False) == (
        "missing_category",
        "Clinically Significant Errors: (a), (d), (f)",
    )


def test_duplicate_category() -> None:
    text = _edit(VERT_ANSWER, "Consolidation side.\n", "Consolidation side.\n(b) Missing: 2.\n")
    assert _reason(text) == ("duplicate_category", "Clinically Significant Errors (b)")


def test_mismatched_category_letter_and_name() -> None:
    text = _edit(
        VERT_ANSWER,
        "(a) False report of a finding in the candidate: 0.\n(b) Missing a finding present in the reference: 1. Small",
        "(a) Missing a finding present in the reference: 0.\n(b) Missing a finding present in the reference: 1. Small",
    )
    assert _reason(text) == (
        "mismatched_category",
        "Clinically Significant Errors (a) is labelled as category (b)",
    )


@pytest.mark.parametrize(
    ("written", "detail"),
    [
        (": one.", "Clinically Significant Errors (b): '(b) Missing a finding: one.'"),
        (": -1.", "Clinically Significant Errors (b): '(b) Missing a finding: -1.'"),
        (": 1.5", "Clinically Significant Errors (b): '(b) Missing a finding: 1.5'"),
        (": 1,5", "Clinically Significant Errors (b): '(b) Missing a finding: 1,5'"),
        (": some", "Clinically Significant Errors (b): '(b) Missing a finding: some'"),
        (" 1.", "Clinically Significant Errors (b): '(b) Missing a finding 1.'"),
        (":", "Clinically Significant Errors (b): no count"),
        (":\nseveral", "Clinically Significant Errors (b): 'several'"),
        (
            ":\n1. Small left pleural effusion\n2. Rib fracture",
            "Clinically Significant Errors (b): numbered list, not a count",
        ),
    ],
)
def test_unreadable_count(written: str, detail: str) -> None:
    text = _edit(
        VERT_ANSWER,
        "(b) Missing a finding present in the reference: 1. Small left pleural effusion.",
        f"(b) Missing a finding{written}",
    )
    assert _reason(text) == ("unreadable_count", detail)


def test_unreadable_count_at_end_of_section() -> None:
    text = _edit(
        VERT_ANSWER,
        "(f) Omitting a comparison detailing a change from a prior study: 0.\n[Clinically Insig",
        "(f) Omitting a comparison detailing a change from a prior study:\n[Clinically Insig",
    )
    assert _reason(text) == ("unreadable_count", "Clinically Significant Errors (f): no count")


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        ("\n", "Matched Findings: empty"),
        ("\nSeveral findings match.", "Matched Findings: 'Several findings match.'"),
        ("\nTwo. No pneumothorax; Tube.", "Matched Findings: 'Two. No pneumothorax; Tube.'"),
        ("\n2.5 findings", "Matched Findings: '2.5 findings'"),
    ],
)
def test_missing_matched_count(body: str, detail: str) -> None:
    text = _section(VERT_ANSWER, "[Matched Findings]:", body)
    assert _reason(text) == ("missing_matched_count", detail)


def test_numbered_list_of_matched_findings() -> None:
    text = _section(VERT_ANSWER, "[Matched Findings]:", "\n1. No pneumothorax\n2. Tube in position\n")
    assert _reason(text) == (
        "ambiguous_matched_count",
        "Matched Findings: numbered list instead of a count",
    )


def test_missing_score_section() -> None:
    text = VERT_ANSWER.split("[Overall Accuracy Score]")[0]
    assert _reason(text) == ("missing_score", "Overall Accuracy Score: section absent")
    _assert_counts(parse_assessment(text, require_score=False), SIG_B1_C1, INSIG_A1, 2, None)


def test_empty_score_section() -> None:
    text = _section(VERT_ANSWER, "[Overall Accuracy Score]:", "\n\n")
    assert _reason(text) == ("missing_score", "Overall Accuracy Score: empty")


@pytest.mark.parametrize(
    ("written", "detail"),
    [
        ("high", "Overall Accuracy Score: 'high'"),
        ("85%", "Overall Accuracy Score: '85%'"),
        ("8.5/10", "Overall Accuracy Score: '8.5/10'"),
        ("4/5", "Overall Accuracy Score: '4/5'"),
        ("0,85", "Overall Accuracy Score: '0,85'"),
        ("Score: 0.85", "Overall Accuracy Score: 'Score: 0.85'"),
        ("0.85\n0.90", "Overall Accuracy Score: more than one number"),
    ],
)
def test_unreadable_score(written: str, detail: str) -> None:
    text = _section(VERT_ANSWER, "[Overall Accuracy Score]:", "\n" + written)
    assert _reason(text) == ("unreadable_score", detail)


@pytest.mark.parametrize(
    ("written", "detail"),
    [
        ("1.5", "Overall Accuracy Score: 1.5"),
        ("85", "Overall Accuracy Score: 85.0"),
        ("4", "Overall Accuracy Score: 4.0"),
        ("-0.1", "Overall Accuracy Score: -0.1"),
    ],
)
def test_score_out_of_range(written: str, detail: str) -> None:
    text = _section(VERT_ANSWER, "[Overall Accuracy Score]:", "\n" + written)
    assert _reason(text) == ("score_out_of_range", detail)
    assert _reason(text, require_score=False) == ("score_out_of_range", detail)


def test_every_reason_is_documented_and_exercised() -> None:
    exercised = {
        "empty_answer",
        "missing_section",
        "conflicting_verdicts",
        "unreadable_section",
        "missing_category",
        "duplicate_category",
        "mismatched_category",
        "unreadable_count",
        "missing_matched_count",
        "ambiguous_matched_count",
        "missing_score",
        "unreadable_score",
        "score_out_of_range",
    }
    assert set(FORMAT_ERROR_REASONS) == exercised
    assert len(FORMAT_ERROR_REASONS) == len(exercised)


def test_error_message_names_reason_and_detail() -> None:
    error = AssessmentFormatError("missing_section", "Matched Findings")
    assert str(error) == "missing_section: Matched Findings"
    assert isinstance(error, ValueError)


def test_assessment_is_frozen() -> None:
    result = parse_assessment(VERT_ANSWER, require_score=True)
    with pytest.raises(ValueError):
        result.matched = 5  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "expected"), [("0.7", 0.7), ("**0.3**\n", 0.3), ("1.0", 1.0), ("0.85/1", 0.85), ("0.85 / 1", 0.85)]
)
def test_score_only_answer(text: str, expected: float) -> None:
    assert parse_score_answer(text) == expected


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty_answer"),
        (" \n\t", "empty_answer"),
        ("fine", "unreadable_score"),
        ("1.4", "score_out_of_range"),
        ("0.5\n0.6", "unreadable_score"),
        ("0.5\r\n0.6", "unreadable_score"),
    ],
)
def test_score_only_answer_failures(text: str, reason: str) -> None:
    with pytest.raises(AssessmentFormatError) as caught:
        parse_score_answer(text)
    assert caught.value.reason == reason
    if reason == "empty_answer":
        assert caught.value.detail == "the answer is empty"


def test_a_no_errors_statement_with_a_stray_word_after_it_is_not_read_as_none() -> None:
    answer = VERT_ANSWER.replace(
        VERT_ANSWER[
            VERT_ANSWER.index("[Clinically Significant Errors]") : VERT_ANSWER.index("[Clinically Insignificant")
        ],
        "[Clinically Significant Errors]:\nNone X\n\n",
    )
    with pytest.raises(AssessmentFormatError) as caught:
        parse_assessment(answer, require_score=True)
    assert caught.value.reason == "unreadable_section"


def test_score_only_grammar_and_regex_agree() -> None:
    for text in ("0.0", "0.7", "1.0"):
        assert re.fullmatch(SCORE_ONLY_REGEX, text) and parse_score_answer(text) == float(text)
    assert not re.fullmatch(SCORE_ONLY_REGEX, "1.5")
    assert SCORE_ONLY_GBNF.startswith("root ::=")


def _with_significant(body: str) -> str:
    """VERT_ANSWER with its significant-error section body replaced by `body`."""
    start = VERT_ANSWER.index("[Clinically Significant Errors]")
    end = VERT_ANSWER.index("[Clinically Insignificant Errors]")
    return VERT_ANSWER[:start] + "[Clinically Significant Errors]:\n" + body + "\n" + VERT_ANSWER[end:]


def test_a_numbered_list_of_errors_under_a_counted_category_is_detail_not_a_count() -> None:
    answer = _with_significant(
        "(a) False report of a finding in the candidate: 0.\n"
        "(b) Missing a finding present in the reference: 2.\n"
        "1. Small left pleural effusion.\n"
        "2. Right lower lobe nodule.\n"
        "(c) Misidentification of a finding's anatomic location/position: 0.\n"
        "(d) Misassessment of the severity of a finding: 0.\n"
        "(e) Mentioning a comparison that isn't in the reference: 0.\n"
        "(f) Omitting a comparison detailing a change from a prior study: 0."
    )
    assert parse_assessment(answer, require_score=True).significant == ErrorCounts(b=2)


def test_a_no_errors_statement_may_run_over_two_lines() -> None:
    answer = _with_significant("No clinically significant errors\nwere identified.")
    assert parse_assessment(answer, require_score=True).significant == ErrorCounts()


def test_a_matched_section_without_a_count_is_unreadable_unless_it_says_no_in_zero_mode() -> None:
    answer = VERT_ANSWER.replace("2. No pneumothorax; Endotracheal tube in standard position.", "Several match.")
    for mode in ("zero", "strict"):
        with pytest.raises(AssessmentFormatError) as caught:
            parse_assessment(answer, require_score=True, missing_categories=mode)
        assert caught.value.reason == "missing_matched_count"
    nothing = VERT_ANSWER.replace("2. No pneumothorax; Endotracheal tube in standard position.", "No matches here.")
    assert parse_assessment(nothing, require_score=True, missing_categories="zero").matched == 0


@pytest.mark.parametrize("newline", ["\r", "\r\n"], ids=["cr", "crlf"])
def test_old_style_line_breaks_read_like_newlines(newline: str) -> None:
    assert parse_assessment(VERT_ANSWER.replace("\n", newline), require_score=True) == parse_assessment(
        VERT_ANSWER, require_score=True
    )
