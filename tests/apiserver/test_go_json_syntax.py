"""Go's ``encoding/json`` syntax errors (:mod:`kbatch.apiserver.go_json_syntax`): the messages of
upstream's scanner for each way a body can be malformed, and acceptance exactly where Go accepts."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from kbatch.apiserver.go_json_syntax import GoSyntaxError, loads, quote_char, syntax_error

# Inputs and Go's messages: encoding/json scanner_test.go's syntax-error table and the messages
# users report from kube-apiserver (kubernetes/kubernetes#19279, kubernetes/kubectl#957).
GO_MESSAGES = [
    (b'{"a":1,}', "invalid character '}' looking for beginning of object key string"),
    (b"<html>", "invalid character '<' looking for beginning of value"),
    (b"", "unexpected end of JSON input"),
    (b"  \n", "unexpected end of JSON input"),
    (b'{"X": "foo", "Y"}', "invalid character '}' after object key"),
    (b'{"a" 1}', "invalid character '1' after object key"),
    (b'{"X":12x}', "invalid character 'x' after object key:value pair"),
    (b"[1, 2, 3+]", "invalid character '+' after array element"),
    (b"[1,]", "invalid character ']' looking for beginning of value"),
    (b"{} x", "invalid character 'x' after top-level value"),
    (b"01", "invalid character '1' after top-level value"),
    (b"tru", "unexpected end of JSON input"),
    (b"trux", "invalid character 'x' in literal true (expecting 'e')"),
    (b"nul", "unexpected end of JSON input"),
    (b"fals3", "invalid character '3' in literal false (expecting 'e')"),
    (b"nil", "invalid character 'i' in literal null (expecting 'u')"),
    (b"-x", "invalid character 'x' in numeric literal"),
    (b"1.x", "invalid character 'x' after decimal point in numeric literal"),
    (b"1ex", "invalid character 'x' in exponent of numeric literal"),
    (b"1e+", "unexpected end of JSON input"),
    (b'"\\x"', "invalid character 'x' in string escape code"),
    (b'"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"),
    (b'"a\nb"', "invalid character '\\n' in string literal"),
    (b'"a\x01"', "invalid character '\\x01' in string literal"),
    (b'{"a":NaN}', "invalid character 'N' looking for beginning of value"),
    (b"[Infinity]", "invalid character 'I' looking for beginning of value"),
    (b'{"a":"b', "unexpected end of JSON input"),
    (b"{'a':1}", "invalid character '\\'' looking for beginning of object key string"),
    (b"\xef\xbb\xbf{}", "invalid character '\u00ef' looking for beginning of value"),
    (b"[" * 10_001, "invalid character '[' exceeded max depth"),
]


@pytest.mark.parametrize(("body", "message"), GO_MESSAGES)
def test_go_message(body: bytes, message: str) -> None:
    assert syntax_error(body) == message
    with pytest.raises(GoSyntaxError) as err:
        loads(body)
    assert str(err.value) == message


def test_quote_char_escapes_as_strconv_quote() -> None:
    assert [quote_char(c) for c in b"a\"'\\\t\x7f"] == ["'a'", "'\"'", "'\\''", "'\\\\'", "'\\t'", "'\\x7f'"]
    assert quote_char(0xA0) == "'\\u00a0'" and quote_char(0xE9) == "'\u00e9'"


def test_deep_but_valid_nesting_is_accepted_by_the_scanner() -> None:
    deep = b"[" * 5_000 + b"]" * 5_000  # deeper than Python's parser goes, within Go's 10,000
    assert syntax_error(deep) is None
    with pytest.raises(GoSyntaxError, match="exceeded max depth"):
        loads(deep)  # kbatch's own limit, in the words Go uses for its own


_JSONISH = st.lists(st.sampled_from([b"{", b"}", b"[", b"]", b",", b":", b'"k"', b'"', b"1", b"-", b".", b"e",
                                     b"0", b"true", b"nul", b"NaN", b" ", b"\\", b"x", b"\n"]),
                    max_size=14).map(b"".join)


def _python_accepts(data: bytes) -> bool:
    # Go's scanner takes any byte >= 0x20 inside a string (invalid UTF-8 is decoded as U+FFFD), so the
    # oracle decodes leniently too; Python's json.loads(bytes) would refuse b'"\x80"' before parsing
    try:
        json.loads(data.decode("utf-8", "replace"),
                   parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
    except ValueError:
        return False
    return True


@settings(max_examples=600, deadline=None)
@given(st.one_of(_JSONISH, st.binary(max_size=12)))
def test_the_scanner_accepts_exactly_what_a_json_parser_accepts(data: bytes) -> None:
    assert (syntax_error(data) is None) == _python_accepts(data)


@settings(max_examples=200, deadline=None)
@given(st.recursive(st.none() | st.booleans() | st.integers()
                    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                                 max_size=3),
                    max_leaves=12))
def test_loads_round_trips_every_json_document(value: object) -> None:
    text = json.dumps(value).encode()
    assert syntax_error(text) is None
    assert loads(text) == value


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.integers() | st.text(max_size=3), lambda inner: st.lists(inner, max_size=3),
                    max_leaves=8), st.data())
def test_a_truncated_document_is_unexpected_end(value: object, data: st.DataObject) -> None:
    text = json.dumps(value).encode()
    cut = data.draw(st.integers(0, len(text) - 1))
    prefix = text[:cut]
    assume(not _python_accepts(prefix))  # a number cut short is still a number
    assert syntax_error(prefix) == "unexpected end of JSON input"
