"""Tests for scorers.report_judge.grammar and the curated shots that must follow the same format."""

from __future__ import annotations

import re

import pytest

from radiology_tasks.core.records import CATEGORY_NAMES, ErrorCounts
from radiology_tasks.scorers.green_vert.curated_shots import ERROR_TYPE_SHOTS, error_type_examples
from radiology_tasks.scorers.report_judge.grammar import AnswerBounds, assessment_gbnf, assessment_regex
from radiology_tasks.scorers.report_judge.parse import parse_assessment
from tests.llama_grammar import llama_cpp_grammar_check


def _categories(counts: dict[str, str]) -> str:
    """Six category lines; `counts` maps a letter to what follows its colon (default "0.")."""
    return "".join(f"({c}) {name}: {counts.get(c, '0.')}\n" for c, name in CATEGORY_NAMES.items())


def _answer(
    explanation: str,
    significant: dict[str, str],
    insignificant: dict[str, str],
    matched: str,
    score: str | None,
) -> str:
    text = (
        f"[Explanation]:\n{explanation}\n"
        f"[Clinically Significant Errors]:\n{_categories(significant)}"
        f"[Clinically Insignificant Errors]:\n{_categories(insignificant)}"
        f"[Matched Findings]:\n{matched}"
    )
    return text if score is None else f"{text}\n[Overall Accuracy Score]:\n{score}"


# (answer, significant, insignificant, matched, score) -- every answer is in the grammar.
SAMPLES_WITH_SCORE = [
    (
        _answer("x", {}, {}, "0.", "0.00"),
        ErrorCounts(),
        ErrorCounts(),
        0,
        0.0,
    ),
    (
        _answer(
            "The candidate misses the effusion and places the nodule in the wrong lobe.",
            {"b": "1. Small left pleural effusion.", "c": "1. Nodule in the left upper lobe."},
            {"a": "2. Mild degenerative change; Old rib fracture."},
            "3. No pneumothorax; Normal heart size; Clear right lung.",
            "0.43",
        ),
        ErrorCounts(b=1, c=1),
        ErrorCounts(a=2),
        3,
        0.43,
    ),
    (
        _answer(
            "Counts: 12 errors: all of them (a); score 0.05.",
            {"a": "12. Many invented findings: see list; 1. 2. 3."},
            {"f": "99."},
            "10. a; b",
            "0.05",
        ),
        ErrorCounts(a=12),
        ErrorCounts(f=99),
        10,
        0.05,
    ),
    (
        _answer(
            "Identical reports (a) to (f): nothing wrong. No errors.",
            {},
            {},
            "4. Heart; Lungs; Pleura; Bones",
            "1.00",
        ),
        ErrorCounts(),
        ErrorCounts(),
        4,
        1.0,
    ),
]


@pytest.mark.parametrize(("answer", "significant", "insignificant", "matched", "score"), SAMPLES_WITH_SCORE)
def test_regex_samples_with_score_match_and_parse(
    answer: str,
    significant: ErrorCounts,
    insignificant: ErrorCounts,
    matched: int,
    score: float,
) -> None:
    assert re.fullmatch(assessment_regex(with_score=True), answer)
    assert not re.fullmatch(assessment_regex(with_score=False), answer)
    result = parse_assessment(answer, require_score=True)
    assert result.significant == significant
    assert result.insignificant == insignificant
    assert result.matched == matched
    assert result.score == score


@pytest.mark.parametrize(("answer", "significant", "insignificant", "matched", "score"), SAMPLES_WITH_SCORE)
def test_regex_samples_without_score_match_and_parse(
    answer: str,
    significant: ErrorCounts,
    insignificant: ErrorCounts,
    matched: int,
    score: float,
) -> None:
    without_score = answer.split("\n[Overall Accuracy Score]:")[0]
    assert re.fullmatch(assessment_regex(with_score=False), without_score)
    assert not re.fullmatch(assessment_regex(with_score=True), without_score)
    result = parse_assessment(without_score, require_score=False)
    assert result.significant == significant
    assert result.insignificant == insignificant
    assert result.matched == matched
    assert result.score is None


VALID = _answer("ok", {}, {}, "1. Heart", "0.50")


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("ok\n", "[Matched Findings]: 9\n"),  # brackets in free text
        ("ok\n", "ok\nmore\n"),  # explanation over two lines
        ("[Explanation]:\nok\n", ""),  # explanation section missing
        ("(c) Misidentification", "(c) Mislocation"),  # category name changed
        ("(e) Mentioning a comparison that isn't in the reference: 0.\n", ""),  # category missing
        ("1. Heart", "100. Heart"),  # three-digit count
        ("1. Heart", "1 Heart"),  # count without full stop
        ("1. Heart", "1.Heart"),  # no space before free text
        ("0.50", "0.5"),  # one decimal
        ("0.50", "1.50"),  # above 1
        ("0.50", "1.01"),  # above 1
        ("0.50", "0.50\n"),  # trailing newline
        ("[Overall Accuracy Score]", "[Overall accuracy Score]"),  # header spelling
    ],
)
def test_regex_rejects(old: str, new: str) -> None:
    assert re.fullmatch(assessment_regex(with_score=True), VALID)
    assert VALID.count(old) >= 1
    assert not re.fullmatch(assessment_regex(with_score=True), VALID.replace(old, new, 1))


def test_free_text_lengths_are_bounded() -> None:
    regex = assessment_regex(with_score=False, bounds=AnswerBounds(explanation=10, item=5, matched=6))
    assert re.fullmatch(regex, _answer("x" * 10, {"a": "1. abcd"}, {}, "1. abcde", None))
    assert not re.fullmatch(regex, _answer("x" * 11, {}, {}, "1.", None))
    assert not re.fullmatch(regex, _answer("x", {"a": "1. abcdef"}, {}, "1.", None))
    assert not re.fullmatch(regex, _answer("x", {}, {}, "1. abcdefg", None))


@pytest.mark.parametrize("kwargs", [{"explanation": 0}, {"item": 0}, {"matched": 0}])
def test_bounds_must_be_positive(kwargs: dict[str, int]) -> None:
    with pytest.raises(ValueError, match="must be >= 1"):
        AnswerBounds(**{"explanation": 5, "item": 5, "matched": 5, **kwargs})


def test_a_bound_of_one_character_is_allowed() -> None:
    assert AnswerBounds(explanation=1, item=1, matched=1).item == 1


def test_gbnf_rules() -> None:
    grammar = assessment_gbnf(with_score=True, bounds=AnswerBounds(explanation=7, item=3, matched=4))
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    assert list(rules) == [
        "root",
        "explanation",
        "significant",
        "insignificant",
        "matched",
        "score",
    ]
    assert rules["root"] == "explanation significant insignificant matched score"
    assert rules["explanation"] == r'"[Explanation]:\n" [ -Z\\^-~]{1,7} "\n"'
    assert rules["matched"] == r'"[Matched Findings]:\n" [0-9]{1,2} "." ( " " [ -Z\\^-~]{1,4} )?'
    assert rules["score"] == r'"\n" "[Overall Accuracy Score]:\n" ( "0." [0-9]{2} | "1.00" )'
    expected_line = (
        r'"(c) Misidentification of a finding' + "'" + r's anatomic location/position: "'
        r' [0-9]{1,2} "." ( " " [ -Z\\^-~]{1,3} )? "\n"'
    )
    for section in ("significant", "insignificant"):
        assert expected_line in rules[section]
        assert rules[section].count('"\\n"') == 6


def test_gbnf_without_score() -> None:
    grammar = assessment_gbnf(with_score=False)
    rules = dict(line.split(" ::= ", 1) for line in grammar.splitlines())
    assert list(rules) == ["root", "explanation", "significant", "insignificant", "matched"]
    assert rules["root"] == "explanation significant insignificant matched"
    assert "{1,240}" in rules["explanation"]
    assert "{1,200}" in rules["matched"]


@pytest.mark.embedded
@pytest.mark.parametrize("with_score", [True, False])
def test_gbnf_loads_in_llama_cpp(with_score: bool) -> None:
    assert llama_cpp_grammar_check()(assessment_gbnf(with_score=with_score))


# --- the curated shots are answers in the grammar ---------------------------------------------


@pytest.mark.parametrize("with_score", [True, False])
def test_curated_answers_match_the_grammar_and_parse(with_score: bool) -> None:
    examples = error_type_examples(with_score=with_score)
    assert [shot.category for shot in ERROR_TYPE_SHOTS] == ["a", "b", "c", "d", "e", "f"]
    assert len(examples) == 6
    regex = assessment_regex(with_score=with_score)
    for shot, example in zip(ERROR_TYPE_SHOTS, examples, strict=True):
        assert example["reference"] == shot.reference
        assert example["candidate"] == shot.candidate
        assert re.fullmatch(regex, example["answer"]), shot.category
        result = parse_assessment(example["answer"], require_score=with_score)
        assert result.significant == ErrorCounts(**{shot.category: 1})
        assert result.insignificant == ErrorCounts()
        assert result.matched == len(shot.matched)
        assert result.explanation == shot.explanation


def test_curated_scores_are_the_formula_and_in_the_one_error_rubric_band() -> None:
    scores = [parse_assessment(example["answer"], require_score=True).score for example in error_type_examples()]
    assert scores == [0.6, 0.6, 0.5, 0.67, 0.6, 0.67]
    assert all(0.5 <= score <= 0.74 for score in scores)


def test_curated_candidates_differ_from_their_references() -> None:
    for shot in ERROR_TYPE_SHOTS:
        assert shot.candidate != shot.reference
        assert shot.modality in {"chest radiograph", "CT", "MRI"}
    assert {shot.modality for shot in ERROR_TYPE_SHOTS} == {"chest radiograph", "CT", "MRI"}


def test_curated_answer_text_exactly() -> None:
    answer = error_type_examples(with_score=True)[3]["answer"]
    assert answer == (
        "[Explanation]:\n"
        "The candidate calls the left pleural effusion small although the reference describes "
        "it as large; the other findings agree.\n"
        "[Clinically Significant Errors]:\n"
        "(a) False report of a finding in the candidate: 0.\n"
        "(b) Missing a finding present in the reference: 0.\n"
        "(c) Misidentification of a finding's anatomic location/position: 0.\n"
        "(d) Misassessment of the severity of a finding: 1. Large left pleural effusion "
        "described as small.\n"
        "(e) Mentioning a comparison that isn't in the reference: 0.\n"
        "(f) Omitting a comparison detailing a change from a prior study: 0.\n"
        "[Clinically Insignificant Errors]:\n"
        "(a) False report of a finding in the candidate: 0.\n"
        "(b) Missing a finding present in the reference: 0.\n"
        "(c) Misidentification of a finding's anatomic location/position: 0.\n"
        "(d) Misassessment of the severity of a finding: 0.\n"
        "(e) Mentioning a comparison that isn't in the reference: 0.\n"
        "(f) Omitting a comparison detailing a change from a prior study: 0.\n"
        "[Matched Findings]:\n"
        "4. Left pleural effusion; Compressive atelectasis; Normal heart size; No pneumothorax.\n"
        "[Overall Accuracy Score]:\n"
        "0.67"
    )
