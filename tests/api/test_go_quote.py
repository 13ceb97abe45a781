"""``go_quote`` against Go's ``strconv.Quote`` (``strconv/quote_test.go`` quotetests, the rows that
are valid UTF-8), and field errors rendering a string value as ``%q`` does."""

from __future__ import annotations

import ast

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kbatch.api.errors import FieldError
from kbatch.api.go_quote import go_quote, go_quote_list

QUOTE_TESTS = [
    ("\a\b\f\r\n\t\v", '"\\a\\b\\f\\r\\n\\t\\v"'),
    ("\\", '"\\\\"'),
    ("\u263a", '"\u263a"'),
    ("\U0010ffff", '"\\U0010ffff"'),
    ("\x04", '"\\x04"'),
    ("!\u00a0!\u2000!\u3000!", '"!\\u00a0!\\u2000!\\u3000!"'),
    ("\x7f", '"\\x7f"'),
    ('say "hi"', '"say \\"hi\\""'),
    ("", '""'),
    ("m\u00e9", '"m\u00e9"'),
]


@pytest.mark.parametrize(("text", "quoted"), QUOTE_TESTS)
def test_go_quote_matches_strconv_quote(text: str, quoted: str) -> None:
    assert go_quote(text) == quoted


@given(st.text())
def test_go_quote_reads_back_as_the_same_text(text: str) -> None:
    """Go's escapes are a subset of Python's string-literal escapes, so the quoted text is a Python
    literal of the original; and nothing printable is escaped but the quote and the backslash."""
    quoted = go_quote(text)
    assert ast.literal_eval(quoted) == text
    if text.isprintable() and '"' not in text and "\\" not in text:
        assert quoted == f'"{text}"'


def test_a_field_error_prints_a_non_ascii_value_as_go_does() -> None:
    """``field.Invalid(path, "mé", ...)`` renders the value with ``%q``: ``"mé"``, not ``"m\\u00e9"``."""
    err = FieldError.invalid("metadata.labels", "m\u00e9", "bad")
    assert 'Invalid value: "m\u00e9": bad' in str(err)


def test_go_quote_list_quotes_each_element_as_strconv_quote() -> None:
    """``%q`` of a ``[]string`` quotes each element: a quote or backslash inside one is escaped (the
    RBAC, token-audience and impersonation messages wrote them bare before)."""
    assert go_quote_list([]) == "[]"
    assert go_quote_list(["a", 'b"c', "d\\"]) == '["a" "b\\"c" "d\\\\"]'


@given(st.lists(st.text(), max_size=4))
def test_go_quote_list_is_the_elements_quotes_joined(values: list[str]) -> None:
    assert go_quote_list(values) == "[" + " ".join(go_quote(v) for v in values) + "]"
