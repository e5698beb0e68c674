"""The shared grammar pieces, JSON ones included: GBNF, regex and length agree, checked against the independent GBNF
reader."""

from __future__ import annotations

import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from radiology_tasks.scorers.gbnf import Piece, Rule, chars, choice, grammar, literal, optional, repeat, sequence
from radiology_tasks.scorers.json_gbnf import (
    JSON_CHAR,
    Spacing,
    json_array,
    json_list,
    json_member,
    json_object,
    json_string,
    json_value,
    prose_string,
    whitespace,
)
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


def test_a_single_character_is_the_class_itself_and_repetitions_may_start_at_zero() -> None:
    assert chars("[0-9]") == Piece("[0-9]", "[0-9]", 1)
    assert chars("[0-9]", 1, 2) == Piece("[0-9]{1,2}", "[0-9]{1,2}", 2)
    assert chars("[a]", 0, 2) == Piece("[a]{0,2}", "[a]{0,2}", 2)
    assert repeat(literal("ab"), 0, 1) == Piece('( "ab" ){0,1}', "(?:ab){0,1}", 2)


# JSON pieces (scorers.json_gbnf): each is put in a grammar with the rules it names, read back by the independent
# reader, and held to its own regex and length bound.

COMPACT = Spacing(2)
PADDED = Spacing(2, padded=True)


def json_language(piece: Piece, spacing: Spacing = COMPACT) -> GbnfLanguage:
    """The independent reading of a grammar whose root is `piece`, with the JSON rules it may name."""
    return GbnfLanguage(grammar(piece, [JSON_CHAR, spacing.rule]))


def assert_longest(piece: Piece, longest: str, spacing: Spacing = COMPACT) -> None:
    """`longest` is admitted by grammar and regex alike and is as long as the grammar's and the piece's bound."""
    language = json_language(piece, spacing)
    assert language.max_len == piece.max_chars == len(longest)
    assert language.fullmatch(longest) and re.fullmatch(piece.regex, longest)


def assert_admitted(piece: Piece, text: str, admitted: bool, spacing: Spacing = COMPACT) -> None:
    assert json_language(piece, spacing).fullmatch(text) is admitted
    assert (re.fullmatch(piece.regex, text) is not None) is admitted


def test_whitespace_is_bounded() -> None:
    assert whitespace(3).gbnf == "ws ::= [ \\t\\n]{0,3}"
    assert Spacing(3).rule == whitespace(3)
    assert_longest(sequence(literal("["), Spacing(3).rule.ref, literal("]")), "[\t\n ]", Spacing(3))
    assert_admitted(sequence(literal("["), Spacing(3).rule.ref, literal("]")), "[    ]", False, Spacing(3))


def test_json_string_bounds_the_decoded_length_and_writes_escapes_in_two_characters() -> None:
    piece = json_string(3, min_length=1)
    assert_longest(piece, '"\\"\\\\\\n"')
    for text in ('"a"', '"abc"', '"\\t\\/b"', '"×é肺"'):
        assert_admitted(piece, text, True)
        assert 1 <= len(json.loads(text)) <= 3
    for text in ('""', '"abcd"', '"\\"\\"\\"\\""', '"a\nb"', '"a\x7fb"', '"\\u0041"', '"\\x"', '"a"b"'):
        assert_admitted(piece, text, False)
    # Without a lower bound the empty string is a JSON string too.
    assert_admitted(json_string(3), '""', True)


def test_prose_string_is_printable_ascii_without_escapes() -> None:
    piece = prose_string(5, min_length=1)
    assert_longest(piece, '"a ~#]"')
    assert_admitted(piece, '"[x]"', True)
    for text in ('""', '"abcdef"', '"a\\"b"', '"a\\\\"', '"é"', '"a\tb"', '"a"b"'):
        assert_admitted(piece, text, False)


@pytest.mark.parametrize("value", ['He said "no" \\ ×.', 0.5, 12, True, None])
def test_json_value_is_exactly_the_compact_json_text(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert_longest(json_value(value), text)
    assert_admitted(json_value(value), text + " ", False)


MEMBERS = [("a", json_value(1)), ("b", choice(json_value(True), json_value(False)))]


@pytest.mark.parametrize(
    ("spacing", "longest"),
    [(COMPACT, '{  "a":  1,  "b":  false  }'), (PADDED, '{  "a"  :  1  ,  "b"  :  false  }')],
    ids=["compact", "padded"],
)
def test_json_object_holds_its_members_in_order_with_bounded_whitespace(spacing: Spacing, longest: str) -> None:
    piece = json_object(MEMBERS, spacing)
    assert_longest(piece, longest, spacing)
    for text in (json.dumps({"a": 1, "b": True}), json.dumps({"a": 1, "b": False}, indent=1), '{"a":1,"b":true}'):
        assert_admitted(piece, text, True, spacing)
    for text in ('{"b": true, "a": 1}', '{"a": 1}', '{"a": 1, "b": true, "c": 1}', '{   "a": 1, "b": true}'):
        assert_admitted(piece, text, False, spacing)
    assert_admitted(piece, '{"a" : 1 , "b": true}', spacing.padded, spacing)
    assert_longest(json_object([], spacing), "{  }", spacing)


@pytest.mark.parametrize("spacing", [COMPACT, PADDED], ids=["compact", "padded"])
def test_json_member_carries_the_whitespace_around_it(spacing: Spacing) -> None:
    piece = json_member("k", json_value(0), spacing)
    assert_longest(piece, '  "k"  :  0  ' if spacing.padded else '  "k":  0', spacing)


@pytest.mark.parametrize("spacing", [COMPACT, PADDED], ids=["compact", "padded"])
def test_json_array_holds_exactly_its_items(spacing: Spacing) -> None:
    piece = json_array([json_value("x"), prose_string(2)], spacing)
    assert_longest(piece, '[  "x"  ,  "ab"  ]' if spacing.padded else '[  "x",  "ab"  ]', spacing)
    for text in ('["x", ""]', json.dumps(["x", "yz"], indent=1)):
        assert_admitted(piece, text, True, spacing)
    for text in ('["x"]', '["ab", "x"]', '["x", "ab", "ab"]'):
        assert_admitted(piece, text, False, spacing)


@pytest.mark.parametrize("spacing", [COMPACT, PADDED], ids=["compact", "padded"])
def test_json_list_holds_up_to_its_bound(spacing: Spacing) -> None:
    piece = json_list(prose_string(2, min_length=1), 3, spacing)
    longest = '[  "ab"  ,  "ab"  ,  "ab"  ]' if spacing.padded else '[  "ab",  "ab",  "ab"  ]'
    assert_longest(piece, longest, spacing)
    for text in ("[]", "[  ]", '["a"]', '["a", "bc"]', json.dumps(["a", "b", "c"], indent=1)):
        assert_admitted(piece, text, True, spacing)
    for text in ('["a", "b", "c", "d"]', '[""]', '["a",]', "[   ]"):
        assert_admitted(piece, text, False, spacing)
    assert_longest(json_list(json_value(1), 1, spacing), "[  1  ]", spacing)


def test_bounds_are_checked() -> None:
    with pytest.raises(ValueError, match="max_items"):
        json_list(json_value(1), 0, COMPACT)
    with pytest.raises(ValueError, match="a repetition needs"):
        json_string(2, min_length=3)
    with pytest.raises(ValueError, match="a repetition needs"):
        prose_string(0)


@pytest.mark.parametrize("spacing", [COMPACT, PADDED], ids=["compact", "padded"])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_whatever_the_grammar_admits_the_regex_admits_and_json_reads(spacing: Spacing, data: st.DataObject) -> None:
    item = json_object([("text", json_string(4)), ("note", prose_string(3, min_length=1))], spacing)
    piece = json_object([("items", json_list(item, 2, spacing)), ("pair", json_array([item, item], spacing))], spacing)
    language = json_language(piece, spacing)
    answer = data.draw(st.from_regex(language.regex, fullmatch=True))
    assert re.fullmatch(piece.regex, answer)
    assert len(answer) <= piece.max_chars
    value = json.loads(answer)
    assert len(value["items"]) <= 2 and all(len(entry["text"]) <= 4 for entry in value["pair"])
    assert language.fullmatch(data.draw(st.from_regex(piece.regex, fullmatch=True)))
