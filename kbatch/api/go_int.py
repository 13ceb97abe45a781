"""Go's ``strconv.ParseInt(text, 10, bits)`` and ``strconv.Atoi``, for values upstream parses from
strings (label selector ``Gt``/``Lt`` bounds, annotations, labels, query parameters).

Go takes an optional sign and ASCII decimal digits within the signed range of ``bits``; Python's
``int`` would also take blanks, underscores, other scripts' digits and any size.
``parse_int`` says only whether it parses; ``go_parse_int`` raises ``NumError`` with Go's error
text (``strconv.Atoi: parsing "x": invalid syntax``) for callers that report it.
"""

from __future__ import annotations

import re

from kbatch.api.go_quote import go_quote

__all__ = ["NumError", "go_parse_int", "int32", "parse_int", "parse_uint"]

_SYNTAX = re.compile(r"[+-]?[0-9]+")
_UNSIGNED = re.compile(r"[0-9]+")
_DIGITS = re.compile(r"[0-9]*")
_UINT64_MAX = (1 << 64) - 1
SYNTAX, RANGE = "invalid syntax", "value out of range"


class NumError(ValueError):
    """Go's ``*strconv.NumError``: ``str()`` is its ``Error()`` text."""

    def __init__(self, func: str, text: str, reason: str) -> None:
        super().__init__(f"strconv.{func}: parsing {go_quote(text)}: {reason}")
        self.func, self.text, self.reason = func, text, reason


def go_parse_int(text: str, bits: int = 64, func: str = "ParseInt") -> int:
    """``strconv.ParseInt(text, 10, bits)`` (``func="Atoi"``: ``strconv.Atoi``, 64-bit): the value,
    or ``NumError`` as Go words it. Like ``ParseUint``, Go reports a range error as soon as the
    leading digits overflow uint64, before it reaches a later bad byte."""
    body = text[1:] if text[:1] in ("+", "-") else text
    lead = _DIGITS.match(body)
    prefix = lead.group().lstrip("0") if lead else ""
    # the digit count first: int() refuses strings of over 4300 digits
    if len(prefix) > 20 or (prefix and int(prefix) > _UINT64_MAX):
        raise NumError(func, text, RANGE)
    if not _SYNTAX.fullmatch(text):
        raise NumError(func, text, SYNTAX)
    value = int(text)
    bound = 1 << (bits - 1)
    if not -bound <= value < bound:
        raise NumError(func, text, RANGE)
    return value


def int32(value: int) -> int:
    """Go's ``int32(v)`` conversion of a wider integer: it wraps (``int32(1 << 32 | 1) == 1``)."""
    return (value + (1 << 31)) % (1 << 32) - (1 << 31)


def parse_int(text: str, bits: int = 64) -> int | None:
    """The value, or ``None`` where ``ParseInt`` fails (syntax or range)."""
    try:
        return go_parse_int(text, bits)
    except NumError:
        return None


def parse_uint(text: str) -> int | None:
    """``strconv.ParseUint(text, 10, 64)``: ASCII digits, no sign, below 2**64; ``None`` otherwise."""
    digits = text.lstrip("0")
    if not _UNSIGNED.fullmatch(text) or len(digits) > 20 or int(digits or "0") > _UINT64_MAX:
        return None
    return int(digits or "0")
