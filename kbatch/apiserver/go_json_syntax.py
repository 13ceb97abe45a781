"""Go's words for JSON that does not parse, as kube-apiserver answers a malformed body.

kube-apiserver reads request bodies with Go's ``encoding/json`` (and sigs.k8s.io/json, a fork with
the same scanner), which checks the whole text before decoding it (``checkValid``) and reports the
first byte it cannot accept (``encoding/json/scanner.go``, ``SyntaxError``)::

    invalid character '}' looking for beginning of object key string
    invalid character 'x' after top-level value
    unexpected end of JSON input

Python's :mod:`json` words the same failures differently (``Expecting property name enclosed in
double quotes: line 1 column 9``) and accepts what Go refuses (``NaN``, ``Infinity``). :func:`loads`
parses with Python's decoder, refusing those constants, and on failure re-scans the bytes as Go's
scanner does to raise :class:`GoSyntaxError` with Go's message. Only the error path scans twice.
"""

from __future__ import annotations

import json
from typing import Any

from kbatch.api.go_unmarshal import JsonNumber

__all__ = ["GoSyntaxError", "interpret_json", "is_json_buffer", "loads", "syntax_error"]

MAX_DEPTH = 10_000  # encoding/json maxNestingDepth
_WS = b" \t\r\n"
_DIGITS = b"0123456789"
_HEX = b"0123456789abcdefABCDEF"
_ESCAPES = b'"\\/bfnrt'
_LITERALS = {ord("t"): b"true", ord("f"): b"false", ord("n"): b"null"}
_GO_ESCAPES = {0x07: "\\a", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x0B: "\\v",
               0x5C: "\\\\"}
_END = "unexpected end of JSON input"


class GoSyntaxError(ValueError):
    """A body Go's ``encoding/json`` would refuse; ``str()`` is Go's message."""


def _refuse_constant(name: str) -> Any:
    raise ValueError(name)  # NaN, Infinity, -Infinity are not JSON to Go


_DECODER = json.JSONDecoder(parse_constant=_refuse_constant)
# numbers with a fraction or an exponent keep their literal (Go's decoding errors name it)
_EXACT = json.JSONDecoder(parse_constant=_refuse_constant, parse_float=JsonNumber)


def loads(body: bytes, *, literals: bool = False) -> Any:
    """``body`` parsed as Go parses JSON, or :class:`GoSyntaxError` with Go's message; ``literals``:
    a number with a fraction or an exponent is a :class:`~kbatch.api.go_unmarshal.JsonNumber`."""
    decoder = _EXACT if literals else _DECODER
    try:
        # Go takes any byte inside a string (invalid UTF-8 becomes U+FFFD), so decode leniently
        return decoder.decode(body.decode("utf-8", "replace"))
    except RecursionError:  # Python's parser stops well before Go's 10,000 levels
        fallback = "exceeded max depth"
    except ValueError:
        fallback = _END
    raise GoSyntaxError(syntax_error(body) or fallback)


def is_json_buffer(text: str) -> bool:
    """apimachinery ``util/yaml`` ``IsJSONBuffer``: the first non-blank character is ``{``, so a
    universal decoder's recognizer gives the text to its JSON serializer, flow-style YAML or not."""
    return text.lstrip().startswith("{")


def interpret_json(text: str) -> Any:
    """Such text as the JSON serializer reads it, numbers as written (:func:`loads` ``literals``); a
    syntax error fails its first step (``SimpleMetaFactory.Interpret``): a :class:`GoSyntaxError`
    reading ``couldn't get version/kind; json parse error: …``."""
    try:
        return loads(text.encode(), literals=True)
    except GoSyntaxError as err:
        raise GoSyntaxError(f"couldn't get version/kind; json parse error: {err}") from None


def quote_char(c: int) -> str:
    """Go's ``quoteChar``: a byte as ``'x'``, escaped as ``strconv.Quote`` escapes the rune ``c``."""
    if c == 0x27:
        return "'\\''"
    if c == 0x22:
        return "'\"'"
    if c in _GO_ESCAPES:
        return f"'{_GO_ESCAPES[c]}'"
    if c < 0x20 or c == 0x7F:
        return f"'\\x{c:02x}'"
    char = chr(c)  # a byte >= 0x80 is the rune U+0080..U+00FF, as Go's string(c)
    return f"'{char}'" if char.isprintable() else f"'\\u{c:04x}'"


def _invalid(data: bytes, i: int, context: str) -> str:
    return f"invalid character {quote_char(data[i])} {context}"


def _skip_ws(data: bytes, i: int) -> int:
    n = len(data)
    while i < n and data[i] in _WS:
        i += 1
    return i


def _string(data: bytes, i: int) -> tuple[int, str | None]:
    """Scan the string whose opening quote is at ``i - 1``: (index after it, error)."""
    n = len(data)
    while i < n:
        c = data[i]
        if c == 0x22:
            return i + 1, None
        if c < 0x20:
            return i, _invalid(data, i, "in string literal")
        if c == 0x5C:
            i += 1
            if i >= n:
                break
            if data[i] == ord("u"):
                for k in range(i + 1, i + 5):
                    if k >= n:
                        return n, _END
                    if data[k] not in _HEX:
                        return k, _invalid(data, k, "in \\u hexadecimal character escape")
                i += 4
            elif data[i] not in _ESCAPES:
                return i, _invalid(data, i, "in string escape code")
        i += 1
    return n, _END


def _digits(data: bytes, i: int) -> int:
    while i < len(data) and data[i] in _DIGITS:
        i += 1
    return i


def _digit_at(data: bytes, i: int, context: str) -> str | None:
    """The error when the digit a number needs at ``i`` is missing (the end, or another byte)."""
    if i >= len(data):
        return _END
    return None if data[i] in _DIGITS else _invalid(data, i, context)


def _number(data: bytes, i: int) -> tuple[int, str | None]:
    """Scan the number starting at ``i`` (a ``-`` or a digit): (index after it, error)."""
    n = len(data)
    if data[i] == ord("-"):
        i += 1
        if err := _digit_at(data, i, "in numeric literal"):
            return min(i, n), err
    i = i + 1 if data[i] == ord("0") else _digits(data, i)
    if i < n and data[i] == ord("."):
        if err := _digit_at(data, i + 1, "after decimal point in numeric literal"):
            return min(i + 1, n), err
        i = _digits(data, i + 1)
    if i < n and data[i] in b"eE":
        i += 2 if i + 1 < n and data[i + 1] in b"+-" else 1
        if err := _digit_at(data, i, "in exponent of numeric literal"):
            return min(i, n), err
        i = _digits(data, i)
    return i, None


def _literal(data: bytes, i: int) -> tuple[int, str | None]:
    word = _LITERALS[data[i]]
    for k, expected in enumerate(word[1:], start=i + 1):
        if k >= len(data):
            return k, _END
        if data[k] != expected:
            name = word.decode()
            return k, _invalid(data, k, f"in literal {name} (expecting {quote_char(expected)})")
    return i + len(word), None


def _value(data: bytes, i: int) -> tuple[int, str | None]:
    """A scalar value at ``i``, or the error of a byte that starts none."""
    c = data[i]
    if c == 0x22:
        return _string(data, i + 1)
    if c == ord("-") or c in _DIGITS:
        return _number(data, i)
    if c in _LITERALS:
        return _literal(data, i)
    return i, _invalid(data, i, "looking for beginning of value")


def syntax_error(data: bytes) -> str | None:
    """Go's ``checkValid`` message for ``data``, or None when Go would accept it."""
    stack: list[int] = []  # the open containers' opening bytes
    expect = "value"  # value | key | colon | next; "first" marks a container's first item
    first = False
    i, n = 0, len(data)
    while True:
        i = _skip_ws(data, i)
        if i >= n:
            return None if expect == "next" and not stack else _END
        c = data[i]
        if expect == "value":
            if first and c == ord("]"):
                stack.pop()
                i, expect, first = i + 1, "next", False
            elif c in b"{[":
                stack.append(c)
                if len(stack) > MAX_DEPTH:
                    return _invalid(data, i, "exceeded max depth")
                i, first = i + 1, True
                expect = "key" if c == ord("{") else "value"
            else:
                i, err = _value(data, i)
                if err:
                    return err
                expect, first = "next", False
        elif expect == "key":
            if first and c == ord("}"):
                stack.pop()
                i, expect, first = i + 1, "next", False
            elif c == 0x22:
                i, err = _string(data, i + 1)
                if err:
                    return err
                expect, first = "colon", False
            else:
                return _invalid(data, i, "looking for beginning of object key string")
        elif expect == "colon":
            if c != ord(":"):
                return _invalid(data, i, "after object key")
            i, expect = i + 1, "value"
        else:
            i, expect, err = _after_value(data, i, stack)
            if err:
                return err


def _after_value(data: bytes, i: int, stack: list[int]) -> tuple[int, str, str | None]:
    """After a complete value: a comma, the close of the open container, or an error."""
    c = data[i]
    if not stack:
        return i, "next", _invalid(data, i, "after top-level value")
    if stack[-1] == ord("{"):
        if c == ord(","):
            return i + 1, "key", None
        if c == ord("}"):
            stack.pop()
            return i + 1, "next", None
        return i, "next", _invalid(data, i, "after object key:value pair")
    if c == ord(","):
        return i + 1, "value", None
    if c == ord("]"):
        stack.pop()
        return i + 1, "next", None
    return i, "next", _invalid(data, i, "after array element")
