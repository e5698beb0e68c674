"""The output contract's own rules: what it must declare, and when a token budget holds its longest answer."""

from __future__ import annotations

import pytest

from radiology_tasks.core.contract import UNICODE_TOKENS_PER_CHAR, OutputContract


@pytest.mark.parametrize(
    "form", [{"gbnf": 'root ::= "a"'}, {"regex": "a"}, {"json_schema": {"type": "object"}}], ids=lambda f: next(iter(f))
)
def test_any_one_form_of_the_answer_is_enough(form: dict) -> None:
    # One character and one token are the smallest lengths allowed.
    contract = OutputContract(name="one", max_chars=1, max_tokens=1, **form)
    assert (contract.max_chars, contract.max_tokens) == (1, 1)


def test_a_contract_without_any_form_is_refused_by_name() -> None:
    with pytest.raises(ValueError) as caught:
        OutputContract(name="empty", max_chars=1, max_tokens=3)
    assert str(caught.value) == "output contract 'empty' declares no grammar, regex or schema"


@pytest.mark.parametrize(("max_chars", "max_tokens"), [(0, 3), (1, 0)])
def test_lengths_must_be_positive(max_chars: int, max_tokens: int) -> None:
    with pytest.raises(ValueError) as caught:
        OutputContract(name="short", max_chars=max_chars, max_tokens=max_tokens, regex="a")
    assert str(caught.value) == "output contract 'short': max_chars and max_tokens must be >= 1"


def test_a_budget_exactly_at_the_margin_fits_and_one_token_less_does_not() -> None:
    # 19 characters at one token each, plus the end-of-sequence token: 20 tokens; with the 10% margin, 22.
    contract = OutputContract(name="ascii", max_chars=19, max_tokens=22, regex="a{19}")
    assert contract.max_answer_tokens == 20
    assert contract.fits(22) and not contract.fits(21)
    # Four tokens a character for free Unicode text: 3 characters -> 13 tokens, 14.3 with the margin.
    unicode = OutputContract(name="any", max_chars=3, max_tokens=15, tokens_per_char=UNICODE_TOKENS_PER_CHAR, regex=".")
    assert unicode.max_answer_tokens == 13
    assert unicode.fits(15) and not unicode.fits(14)
