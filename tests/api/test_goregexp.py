"""Go's regexp (kbatch.api.goregexp): Go's dialect where it differs from Python's ``re``, Go's
``FindAllString`` rule for empty matches, and Go's compile errors (regexp/syntax ``ErrorCode``)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.goregexp import GoRegexpError, compile_go

# a small grammar in the dialects' common subset: letters, classes, groups, alternation, repetition
_ATOMS = st.sampled_from(["a", "b", "c", "[ab]", "[^a]", ".", "(a|b)", "(ab|a)", "(?:c|)"])
_QUANTIFIERS = st.sampled_from(["", "", "*", "+", "?", "*?", "+?", "{1,2}"])
_PATTERNS = st.lists(st.tuples(_ATOMS, _QUANTIFIERS).map("".join), min_size=1, max_size=4).map("".join)
_TEXTS = st.text(alphabet="abc", max_size=12)


@given(_PATTERNS, _TEXTS)
def test_leftmost_first_matches_as_python_on_the_common_subset(pattern: str, text: str) -> None:
    # both are leftmost-first (Perl) engines: where the syntax is shared the first match is the same
    python = re.search(pattern, text)
    assert compile_go(pattern).find_string(text) == (python.group(0) if python else "")


@given(_PATTERNS, _TEXTS, st.integers(min_value=-1, max_value=6))
def test_find_all_is_the_first_n_of_all(pattern: str, text: str, n: int) -> None:
    every = compile_go(pattern).find_all_string(text)
    assert compile_go(pattern).find_all_string(text, n) == (every if n < 0 else every[:n])


@given(st.text(alphabet="abc", min_size=1, max_size=8))
def test_find_all_of_a_literal_is_its_non_overlapping_occurrences(literal: str) -> None:
    text = literal * 3 + "x" + literal
    assert compile_go(literal).find_all_string(text) == [literal] * text.count(literal)


@given(_TEXTS)
def test_dollar_is_the_end_of_the_text(text: str) -> None:
    # Go's $ without the m flag matches only at the end; Python's also before a final newline
    anchored = compile_go(f"^{text}$")
    assert anchored.match_string(text)
    assert not anchored.match_string(text + "\n")


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        ("a*", "baaab", ["", "aaa", ""]),  # the empty match at 4, right after "aaa", is skipped
        ("", "abc", ["", "", "", ""]),
        (r"\d+", "1\u0663 22", ["1", "22"]),  # \d is ASCII in Go
        (r"\w+", "é ab", ["ab"]),
        (r"[[:alpha:]]+", "ab1c", ["ab", "c"]),
        (r"\pL+", "é1a", ["é", "a"]),
        ("(?i)A", "aA", ["a", "A"]),
    ],
)
def test_find_all_string_examples(pattern: str, text: str, expected: list[str]) -> None:
    assert compile_go(pattern).find_all_string(text) == expected


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(abc", "missing closing ): `(abc`"),
        ("x[ab", "missing closing ]: `[ab`"),
        ("ab)", "unexpected ): `ab)`"),
        ("a**", "invalid nested repetition operator: `**`"),
        ("*a", "missing argument to repetition operator: `*`"),
        ("a{1001}", "invalid repeat count: `{1001}`"),
        ("a{2,1}", "invalid repeat count: `{2,1}`"),
        ("(?=a)", "invalid or unsupported Perl syntax: `(?=`"),
        ("(?<!a)b", "invalid or unsupported Perl syntax: `(?<!`"),
        ("(?P<a-b>x)", "invalid named capture: `(?P<a-b>`"),
        (r"\q", r"invalid escape sequence: `\q`"),
        (r"(a)\1", r"invalid escape sequence: `\1`"),
        (r"a\C", r"invalid escape sequence: `\C`"),
        ("[z-a]", "invalid character class range: `z-a`"),
        ("[[:foo:]]", "invalid character class range: `[:foo:]`"),
        ("ab\\", "trailing backslash at end of expression: ``"),
    ],
)
def test_compile_errors_are_gos(pattern: str, message: str) -> None:
    with pytest.raises(GoRegexpError) as info:
        compile_go(pattern)
    assert str(info.value) == f"error parsing regexp: {message}"


def test_an_escaped_backslash_before_c_is_not_the_any_byte_escape() -> None:
    assert compile_go(r"\\C").match_string("\\C")


def test_a_refused_pattern_is_refused_again_from_the_cache() -> None:
    for _ in range(2):
        with pytest.raises(GoRegexpError, match="missing closing"):
            compile_go("(")
