"""The shared grammar pieces: GBNF, regex and length agree, checked against the independent GBNF reader."""

from __future__ import annotations

import re

import pytest

from scorers.gbnf import Rule, chars, choice, grammar, literal, optional, repeat, sequence
from tests.gbnf import GbnfLanguage


def test_literal_escapes_for_both_syntaxes() -> None:
    piece = literal('a"b\\c\n[d](e)')
    assert piece.gbnf == '"a\\"b\\\\c\\n[d](e)"'
    assert piece.regex == 'a"b\\\\c\\n\\[d\\]\\(e\\)'
    assert piece.max_chars == 12
    assert re.fullmatch(piece.regex, 'a"b\\c\n[d](e)')


def test_each_combinator_states_its_longest_text() -> None:
    digit = chars("[0-9]")
    word = Rule("word", chars("[a-z]", 1, 3))
    piece = sequence(
        literal("<"), choice(repeat(word.ref, 1, 2), literal("none")), optional(literal("!")), chars("[0-9]", 2, 2)
    )
    assert digit.max_chars == 1 and chars("[0-9]", 2, 2).gbnf == "[0-9]{2}"
    text = grammar(piece, [word])
    assert text.splitlines() == [
        'root ::= "<" ( ( word ){1,2} | "none" ) ( "!" )? [0-9]{2}',
        "word ::= [a-z]{1,3}",
    ]
    language = GbnfLanguage(text)
    assert piece.max_chars == language.max_len == 1 + 6 + 1 + 2
    for sample in ("<abcdef!12", "<none00", "<a99", "<abc!00"):
        assert language.fullmatch(sample) and re.fullmatch(piece.regex, sample)
    for sample in ("<abcdefg!12", "<!12", "<none0", "<a!!00"):
        assert not language.fullmatch(sample) and not re.fullmatch(piece.regex, sample)


@pytest.mark.parametrize(("low", "high"), [(2, 1), (-1, 2), (0, 0)])
def test_repetitions_must_be_bounded_and_ordered(low: int, high: int) -> None:
    with pytest.raises(ValueError, match="a repetition needs"):
        chars("[a]", low, high)
    with pytest.raises(ValueError, match="a repetition needs"):
        repeat(literal("a"), low, high)
