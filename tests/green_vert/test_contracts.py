"""The GREEN/VERT output contracts: grammar, regex, parser and length bound describe one language.

The GBNF grammar is read independently (`tests.gbnf`), answers are drawn from *its* language with
Hypothesis, and each must be matched by the contract's regex and read by the parser with the numbers it
states. Answers that break the contract where it matters (a section, a count or the score) are refused by
all three. The parser is lenient on purpose about cosmetic differences (markdown, spacing, long text), so
only such material breaks are expected to fail it.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from inspect_ai import eval as inspect_eval

from radiology_tasks.core.contract import BUDGET_MARGIN
from radiology_tasks.green_vert.tasks import green, vert
from radiology_tasks.report_judge.options import DETAILS
from radiology_tasks.report_judge.scorer import JUDGE_PROMPTS, judge_contract
from radiology_tasks.scorers.report_judge import grammar
from radiology_tasks.scorers.report_judge.grammar import DETAIL_BOUNDS, AnswerBounds, assessment_contract
from radiology_tasks.scorers.report_judge.parse import AssessmentFormatError, parse_assessment, parse_score_answer
from tests.gbnf import GbnfLanguage
from tests.judge_answers import assessment
from tests.openai_stub import openai_stub

CONTRACTS = [(prompt, detail) for prompt in JUDGE_PROMPTS for detail in DETAILS]
SECTIONED = [(prompt, detail) for prompt, detail in CONTRACTS if prompt != "score"]


@pytest.mark.parametrize(("prompt", "detail"), CONTRACTS)
def test_the_longest_admitted_answer_fits_the_budget(prompt: str, detail: str) -> None:
    contract = judge_contract(prompt, detail)  # type: ignore[arg-type]
    language = GbnfLanguage(contract.gbnf)
    assert contract.max_chars == language.max_len  # stated length = the grammar's own longest string
    assert contract.max_answer_tokens == contract.max_chars + 1  # printable ASCII: one token per character
    assert contract.max_tokens >= contract.max_answer_tokens * BUDGET_MARGIN
    assert contract.fits(contract.max_tokens)


def test_raising_a_bound_without_raising_the_budget_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    wider = AnswerBounds(explanation=240, item=200, matched=200)
    monkeypatch.setitem(grammar.DETAIL_BOUNDS, "full", wider)
    contract = assessment_contract("vert", with_score=True, detail="full")
    assert contract.max_chars == GbnfLanguage(contract.gbnf).max_len
    assert not contract.fits(contract.max_tokens)


@pytest.mark.parametrize(
    ("task", "budget"),
    [
        (lambda: vert(limit=1), 3072),
        (lambda: green(limit=1, detail="brief"), 1536),
        (lambda: vert(limit=1, judge_max_tokens=500), 500),
    ],
)
def test_tasks_send_the_contract_budget_unless_told_otherwise(monkeypatch, task, budget) -> None:
    with openai_stub(lambda body: assessment({}, 1, 0.5)) as server:
        monkeypatch.setenv("STUBSVC_BASE_URL", server.base_url)
        monkeypatch.setenv("STUBSVC_API_KEY", "none")
        (log,) = inspect_eval(task(), model="none", model_roles={"grader": "openai-api/stubsvc/j"}, display="none")
    assert log.status == "success"
    assert [r["max_tokens"] for r in server.requests] == [budget]


def _numbers(answer: str) -> tuple[list[int], int, float | None]:
    """The counts, matched count and score an admitted answer states, read with plain regexes."""
    counts = [int(n) for n in re.findall(r"^\([a-f]\) [^:]+: (\d+)\.", answer, re.M)]
    matched = int(re.search(r"\[Matched Findings\]:\n(\d+)\.", answer).group(1))  # type: ignore[union-attr]
    score = re.search(r"\[Overall Accuracy Score\]:\n(\S+)$", answer)
    return counts, matched, float(score.group(1)) if score else None


def _drawn(prompt: str, detail: str) -> st.SearchStrategy[str]:
    return st.from_regex(GbnfLanguage(judge_contract(prompt, detail).gbnf).regex, fullmatch=True)  # type: ignore[arg-type]


@pytest.mark.parametrize(("prompt", "detail"), SECTIONED)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_every_answer_the_grammar_admits_is_matched_and_read(prompt: str, detail: str, data: st.DataObject) -> None:
    answer = data.draw(_drawn(prompt, detail))
    contract = judge_contract(prompt, detail)  # type: ignore[arg-type]
    assert re.fullmatch(contract.regex, answer)
    assessment = parse_assessment(answer, require_score=prompt != "green", missing_categories="strict")
    counts, matched, score = _numbers(answer)
    assert assessment.significant.as_dict() == dict(zip("abcdef", counts[:6]))
    assert assessment.insignificant.as_dict() == dict(zip("abcdef", counts[6:]))
    assert assessment.matched == matched
    assert assessment.score == score


@settings(max_examples=30, deadline=None)
@given(answer=st.from_regex(GbnfLanguage(judge_contract("score").gbnf).regex, fullmatch=True))
def test_every_score_only_answer_is_matched_and_read(answer: str) -> None:
    assert re.fullmatch(judge_contract("score").regex, answer)
    assert parse_score_answer(answer) == float(answer)


def _drop_header(answer: str, header: str) -> str:
    return answer.replace(f"[{header}]:\n", f"{header}:\n")


MATERIAL_BREAKS = {
    "no significant section": lambda a: _drop_header(a, "Clinically Significant Errors"),
    "no matched section": lambda a: _drop_header(a, "Matched Findings"),
    "no score section": lambda a: _drop_header(a, "Overall Accuracy Score"),
    "count spelled out": lambda a: re.sub(r"(\(b\) [^:]+: )\d+\.", r"\1one.", a, count=1),
    "decimal count": lambda a: re.sub(r"(\(c\) [^:]+: )\d+\.", r"\g<1>1.5.", a, count=1),
    "score above one": lambda a: re.sub(r"\n[01]\.\d\d$", "\n1.50", a),
    "second, different score": lambda a: (
        a + "\n[Overall Accuracy Score]:\n" + ("0.11" if a.endswith("0.99") else "0.99")
    ),
}


@pytest.mark.parametrize("name", MATERIAL_BREAKS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_answers_outside_the_contract_are_refused_by_all_three(name: str, data: st.DataObject) -> None:
    answer = data.draw(_drawn("vert", "brief"))
    broken = MATERIAL_BREAKS[name](answer)
    assert broken != answer
    contract = judge_contract("vert", "brief")
    assert not GbnfLanguage(contract.gbnf).fullmatch(broken)
    assert not re.fullmatch(contract.regex, broken)
    with pytest.raises(AssessmentFormatError):
        parse_assessment(broken, require_score=True, missing_categories="strict")


@pytest.mark.parametrize("detail", DETAILS)
def test_free_text_one_character_past_its_bound_is_outside_the_contract(detail: str) -> None:
    bounds = DETAIL_BOUNDS[detail]  # type: ignore[index]
    contract = judge_contract("green", detail)  # type: ignore[arg-type]
    lines = ["[Explanation]:", "x" * bounds.explanation, "[Clinically Significant Errors]:"]
    categories = [
        "(a) False report of a finding in the candidate",
        "(b) Missing a finding present in the reference",
        "(c) Misidentification of a finding's anatomic location/position",
        "(d) Misassessment of the severity of a finding",
        "(e) Mentioning a comparison that isn't in the reference",
        "(f) Omitting a comparison detailing a change from a prior study",
    ]
    lines += [f"{c}: 10. " + "y" * bounds.item for c in categories]
    lines += ["[Clinically Insignificant Errors]:", *[f"{c}: 99. " + "w" * bounds.item for c in categories]]
    lines += ["[Matched Findings]:", "12. " + "z" * bounds.matched]
    longest = "\n".join(lines)
    assert len(longest) == contract.max_chars
    assert re.fullmatch(contract.regex, longest) and GbnfLanguage(contract.gbnf).fullmatch(longest)
    for too_long in (longest.replace("x", "xx", 1), longest.replace("y", "yy", 1), longest + "z"):
        assert not re.fullmatch(contract.regex, too_long)
        assert not GbnfLanguage(contract.gbnf).fullmatch(too_long)
    bracketed = longest.replace("yy", "[y", 1)
    assert not re.fullmatch(contract.regex, bracketed)


def test_contract_names_say_the_prompt_and_any_level_of_detail_but_full() -> None:
    assert assessment_contract("vert", with_score=True).name == "vert"
    assert assessment_contract("vert", with_score=True) == assessment_contract("vert", with_score=True, detail="full")
    assert assessment_contract("green", with_score=False, detail="brief").name == "green-brief"


def test_a_contract_is_built_once_per_prompt_and_detail_and_shared() -> None:
    # A judge asks for its contract with every report: the grammar and regex are built once and the frozen
    # contract is shared, and different settings still get their own.
    first = assessment_contract("green", with_score=False, detail="brief")
    assert assessment_contract("green", with_score=False, detail="brief") is first
    assert assessment_contract("green", with_score=True, detail="brief") is not first
    assert assessment_contract("green", with_score=True, detail="brief").regex != first.regex
